// RUN: ge-opt %s --split-input-file --verify-diagnostics -p 'memory-reuse{in-place=false}' | filecheck %s

// Lifetimes across streams follow stream order and events, not program order.
// Stream 1 runs relu_2 (writes %q) with nothing ordering it after stream 0's
// relu_0/relu_1, which touch %p: %q must not take %p's bytes.
// CHECK-LABEL: func.func @concurrent
// CHECK-NEXT:    %p = ascend.buffer {offset = 0 : i64}
// CHECK-NEXT:    %r = ascend.buffer {offset = 1024 : i64}
// CHECK-NEXT:    %q = ascend.buffer {offset = 2048 : i64}
// CHECK-NEXT:    %s = ascend.buffer {offset = 0 : i64}
func.func @concurrent(%x: memref<1x4x8x8xf32>) -> memref<1x4x8x8xf32> attributes {ascend.arena_size = 4096 : i64} {
  %p = ascend.buffer {offset = 0 : i64} : memref<1x4x8x8xf32>
  %r = ascend.buffer {offset = 0 : i64} : memref<1x4x8x8xf32>
  %q = ascend.buffer {offset = 0 : i64} : memref<1x4x8x8xf32>
  %s = ascend.buffer {offset = 0 : i64} : memref<1x4x8x8xf32>
  ascend.task "relu_0" {unit = "vector", stream = 0 : i64} ins(%x : memref<1x4x8x8xf32>) outs(%p : memref<1x4x8x8xf32>) {
  ^bb0(%i: tensor<1x4x8x8xf32>):
    %o = ge.relu %i : tensor<1x4x8x8xf32>
    ge.yield %o : tensor<1x4x8x8xf32>
  }
  ascend.task "relu_1" {unit = "vector", stream = 0 : i64} ins(%p : memref<1x4x8x8xf32>) outs(%r : memref<1x4x8x8xf32>) {
  ^bb0(%i: tensor<1x4x8x8xf32>):
    %o = ge.relu %i : tensor<1x4x8x8xf32>
    ge.yield %o : tensor<1x4x8x8xf32>
  }
  ascend.task "relu_2" {unit = "vector", stream = 1 : i64} ins(%x : memref<1x4x8x8xf32>) outs(%q : memref<1x4x8x8xf32>) {
  ^bb0(%i: tensor<1x4x8x8xf32>):
    %o = ge.relu %i : tensor<1x4x8x8xf32>
    ge.yield %o : tensor<1x4x8x8xf32>
  }
  ascend.record_event {event = 0 : i64, stream = 1 : i64}
  ascend.wait_event {event = 0 : i64, stream = 0 : i64}
  ascend.task "add_0" {unit = "vector", stream = 0 : i64} ins(%r, %q : memref<1x4x8x8xf32>, memref<1x4x8x8xf32>) outs(%s : memref<1x4x8x8xf32>) {
  ^bb0(%i: tensor<1x4x8x8xf32>, %j: tensor<1x4x8x8xf32>):
    %o = ge.add %i, %j : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
    ge.yield %o : tensor<1x4x8x8xf32>
  }
  func.return %s : memref<1x4x8x8xf32>
}

// -----

// The same graph with event 1: stream 1 waits for relu_1, the last reader of
// %p, before relu_2 writes %q, so %q may reuse %p's bytes.
// CHECK-LABEL: func.func @ordered
// CHECK-NEXT:    %p = ascend.buffer {offset = 0 : i64}
// CHECK-NEXT:    %r = ascend.buffer {offset = 1024 : i64}
// CHECK-NEXT:    %q = ascend.buffer {offset = 0 : i64}
func.func @ordered(%x: memref<1x4x8x8xf32>) -> memref<1x4x8x8xf32> attributes {ascend.arena_size = 4096 : i64} {
  %p = ascend.buffer {offset = 0 : i64} : memref<1x4x8x8xf32>
  %r = ascend.buffer {offset = 0 : i64} : memref<1x4x8x8xf32>
  %q = ascend.buffer {offset = 0 : i64} : memref<1x4x8x8xf32>
  %s = ascend.buffer {offset = 0 : i64} : memref<1x4x8x8xf32>
  ascend.task "relu_0" {unit = "vector", stream = 0 : i64} ins(%x : memref<1x4x8x8xf32>) outs(%p : memref<1x4x8x8xf32>) {
  ^bb0(%i: tensor<1x4x8x8xf32>):
    %o = ge.relu %i : tensor<1x4x8x8xf32>
    ge.yield %o : tensor<1x4x8x8xf32>
  }
  ascend.task "relu_1" {unit = "vector", stream = 0 : i64} ins(%p : memref<1x4x8x8xf32>) outs(%r : memref<1x4x8x8xf32>) {
  ^bb0(%i: tensor<1x4x8x8xf32>):
    %o = ge.relu %i : tensor<1x4x8x8xf32>
    ge.yield %o : tensor<1x4x8x8xf32>
  }
  ascend.record_event {event = 1 : i64, stream = 0 : i64}
  ascend.wait_event {event = 1 : i64, stream = 1 : i64}
  ascend.task "relu_2" {unit = "vector", stream = 1 : i64} ins(%x : memref<1x4x8x8xf32>) outs(%q : memref<1x4x8x8xf32>) {
  ^bb0(%i: tensor<1x4x8x8xf32>):
    %o = ge.relu %i : tensor<1x4x8x8xf32>
    ge.yield %o : tensor<1x4x8x8xf32>
  }
  ascend.record_event {event = 0 : i64, stream = 1 : i64}
  ascend.wait_event {event = 0 : i64, stream = 0 : i64}
  ascend.task "add_0" {unit = "vector", stream = 0 : i64} ins(%r, %q : memref<1x4x8x8xf32>, memref<1x4x8x8xf32>) outs(%s : memref<1x4x8x8xf32>) {
  ^bb0(%i: tensor<1x4x8x8xf32>, %j: tensor<1x4x8x8xf32>):
    %o = ge.add %i, %j : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
    ge.yield %o : tensor<1x4x8x8xf32>
  }
  func.return %s : memref<1x4x8x8xf32>
}

// -----

// A race in the input (add_0 reads %q, written on stream 1, with no event) has
// no safe plan: the pass refuses it.
// CHECK: memory-reuse: task 'add_0' (stream 0) uses a buffer that 'relu_2' (stream 1) touches, with no stream order or event between them
func.func @racy(%x: memref<1x4x8x8xf32>) -> memref<1x4x8x8xf32> attributes {ascend.arena_size = 4096 : i64} {
  %p = ascend.buffer {offset = 0 : i64} : memref<1x4x8x8xf32>
  %r = ascend.buffer {offset = 0 : i64} : memref<1x4x8x8xf32>
  %q = ascend.buffer {offset = 0 : i64} : memref<1x4x8x8xf32>
  %s = ascend.buffer {offset = 0 : i64} : memref<1x4x8x8xf32>
  ascend.task "relu_0" {unit = "vector", stream = 0 : i64} ins(%x : memref<1x4x8x8xf32>) outs(%p : memref<1x4x8x8xf32>) {
  ^bb0(%i: tensor<1x4x8x8xf32>):
    %o = ge.relu %i : tensor<1x4x8x8xf32>
    ge.yield %o : tensor<1x4x8x8xf32>
  }
  ascend.task "relu_1" {unit = "vector", stream = 0 : i64} ins(%p : memref<1x4x8x8xf32>) outs(%r : memref<1x4x8x8xf32>) {
  ^bb0(%i: tensor<1x4x8x8xf32>):
    %o = ge.relu %i : tensor<1x4x8x8xf32>
    ge.yield %o : tensor<1x4x8x8xf32>
  }
  ascend.task "relu_2" {unit = "vector", stream = 1 : i64} ins(%x : memref<1x4x8x8xf32>) outs(%q : memref<1x4x8x8xf32>) {
  ^bb0(%i: tensor<1x4x8x8xf32>):
    %o = ge.relu %i : tensor<1x4x8x8xf32>
    ge.yield %o : tensor<1x4x8x8xf32>
  }
  ascend.task "add_0" {unit = "vector", stream = 0 : i64} ins(%r, %q : memref<1x4x8x8xf32>, memref<1x4x8x8xf32>) outs(%s : memref<1x4x8x8xf32>) {
  ^bb0(%i: tensor<1x4x8x8xf32>, %j: tensor<1x4x8x8xf32>):
    %o = ge.add %i, %j : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
    ge.yield %o : tensor<1x4x8x8xf32>
  }
  func.return %s : memref<1x4x8x8xf32>
}
