// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK: {{^}}ascend.send: peer must be >= 0{{$}}
func.func @negative_peer(%x: memref<4xf32>) {
  ascend.send %x {peer = -1 : i64, tag = 0 : i64} : memref<4xf32>
  func.return
}

// -----

// CHECK: {{^}}ascend.recv: tag must be >= 0{{$}}
func.func @negative_tag() attributes {ascend.arena_size = 512 : i64} {
  %b = ascend.buffer {offset = 0 : i64} : memref<4xf32>
  ascend.recv %b {peer = 0 : i64, tag = -2 : i64} : memref<4xf32>
  func.return
}

// -----

// CHECK: {{^}}ascend.send: peer 1 is this stage's own rank{{$}}
func.func @main_stage1(%x: memref<4xf32>) attributes {ascend.stage = 1 : i64} {
  ascend.send %x {peer = 1 : i64, tag = 0 : i64} : memref<4xf32>
  func.return
}

// -----

// CHECK: {{^}}ascend.send: the buffer must have a static shape{{$}}
func.func @dynamic(%x: memref<?x4xf32>) {
  ascend.send %x {peer = 1 : i64, tag = 0 : i64} : memref<?x4xf32>
  func.return
}

// -----

// A receive after a task: the stage would start before its input arrived.
// CHECK: {{^}}ascend.recv: must come before the function's first ascend.task{{$}}
func.func @late_recv(%x: memref<4xf32>) attributes {ascend.arena_size = 1024 : i64} {
  %y = ascend.buffer {offset = 0 : i64} : memref<4xf32>
  ascend.task "relu_0" {unit = "vector", stream = 0 : i64} ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    %r = ge.relu %a : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  %z = ascend.buffer {offset = 512 : i64} : memref<4xf32>
  ascend.recv %z {peer = 0 : i64, tag = 0 : i64} : memref<4xf32>
  func.return
}

// -----

// CHECK: {{^}}ascend.send: must come after the function's last ascend.task{{$}}
func.func @early_send(%x: memref<4xf32>) -> memref<4xf32> attributes {ascend.arena_size = 512 : i64} {
  ascend.send %x {peer = 1 : i64, tag = 0 : i64} : memref<4xf32>
  %y = ascend.buffer {offset = 0 : i64} : memref<4xf32>
  ascend.task "relu_0" {unit = "vector", stream = 0 : i64} ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    %r = ge.relu %a : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  func.return %y : memref<4xf32>
}
