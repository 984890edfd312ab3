// RUN: ge-opt %s --split-input-file --verify-diagnostics -p verify-plan | filecheck %s
// RUN: not ge-opt %s -p verify-plan 2>&1 | filecheck %s --check-prefix=EXIT

// verify-plan checks hand-written plans and changes nothing. Plans that
// memory-reuse and task-parallel make: verify-plan-pipelines.mlir; broken
// plans, one per kind of fault: errors/verify-plan.mlir.

// %b takes %a's bytes on another stream, after an event that follows %a's
// last reader: legal reuse.
// CHECK-LABEL: func.func @reuse_after_event
// CHECK-NEXT:    %a = ascend.buffer {offset = 0 : i64} : memref<4xf32>
// CHECK:         ascend.record_event {event = 0 : i64, stream = 0 : i64}
// CHECK-NEXT:    ascend.wait_event {event = 0 : i64, stream = 1 : i64}
// CHECK-NEXT:    %b = ascend.buffer {offset = 0 : i64} : memref<4xf32>
func.func @reuse_after_event(%x: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>) attributes {ascend.arena_size = 1536 : i64} {
  %a = ascend.buffer {offset = 0 : i64} : memref<4xf32>
  ascend.task "relu_0" {unit = "vector", stream = 0 : i64} ins(%x : memref<4xf32>) outs(%a : memref<4xf32>) {
  ^bb0(%t: tensor<4xf32>):
    %r = ge.relu %t : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  %a2 = ascend.buffer {offset = 512 : i64} : memref<4xf32>
  ascend.task "neg_0" {unit = "vector", stream = 0 : i64} ins(%a : memref<4xf32>) outs(%a2 : memref<4xf32>) {
  ^bb0(%t: tensor<4xf32>):
    %r = ge.neg %t : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  ascend.record_event {event = 0 : i64, stream = 0 : i64}
  ascend.wait_event {event = 0 : i64, stream = 1 : i64}
  %b = ascend.buffer {offset = 0 : i64} : memref<4xf32>
  ascend.task "relu_1" {unit = "vector", stream = 1 : i64} ins(%x : memref<4xf32>) outs(%b : memref<4xf32>) {
  ^bb0(%t: tensor<4xf32>):
    %r = ge.relu %t : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  %b2 = ascend.buffer {offset = 1024 : i64} : memref<4xf32>
  ascend.task "neg_1" {unit = "vector", stream = 1 : i64} ins(%b : memref<4xf32>) outs(%b2 : memref<4xf32>) {
  ^bb0(%t: tensor<4xf32>):
    %r = ge.neg %t : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  func.return %a2, %b2 : memref<4xf32>, memref<4xf32>
}

// -----

// Elementwise tasks writing in place over the input they read last, twice in
// a row: %a, %b and %c share bytes.
// CHECK-LABEL: func.func @in_place_chain
// CHECK-NEXT:    %a = ascend.buffer {offset = 0 : i64} : memref<2x4xf32>
// CHECK:         %b = ascend.buffer {offset = 0 : i64} : memref<2x4xf32>
// CHECK:         %c = ascend.buffer {offset = 0 : i64} : memref<8xf32>
func.func @in_place_chain(%x: memref<2x4xf32>, %y: memref<4xf32>) -> memref<8xf32> attributes {ascend.arena_size = 512 : i64} {
  %a = ascend.buffer {offset = 0 : i64} : memref<2x4xf32>
  ascend.task "relu_0" {unit = "vector", stream = 0 : i64} ins(%x : memref<2x4xf32>) outs(%a : memref<2x4xf32>) {
  ^bb0(%t: tensor<2x4xf32>):
    %r = ge.relu %t : tensor<2x4xf32>
    ge.yield %r : tensor<2x4xf32>
  }
  %b = ascend.buffer {offset = 0 : i64} : memref<2x4xf32>
  ascend.task "add_0" {unit = "vector", stream = 0 : i64} ins(%a, %y : memref<2x4xf32>, memref<4xf32>) outs(%b : memref<2x4xf32>) {
  ^bb0(%t: tensor<2x4xf32>, %u: tensor<4xf32>):
    %r = ge.add %t, %u : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
    ge.yield %r : tensor<2x4xf32>
  }
  %c = ascend.buffer {offset = 0 : i64} : memref<8xf32>
  ascend.task "flatten_0" {unit = "vector", stream = 0 : i64} ins(%b : memref<2x4xf32>) outs(%c : memref<8xf32>) {
  ^bb0(%t: tensor<2x4xf32>):
    %r = ge.flatten %t {start_dim = 0 : i64, end_dim = -1 : i64} : tensor<2x4xf32> -> tensor<8xf32>
    ge.yield %r : tensor<8xf32>
  }
  func.return %c : memref<8xf32>
}

// -----

// Not lowered (no ascend.arena_size): left alone.
// CHECK-LABEL: func.func @graph_level
// CHECK-NEXT:    %y = ge.relu %x : tensor<4xf32>
func.func @graph_level(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.relu %x : tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// A dyn_buffer has no offset (the executor places it); its uses are still checked.
// CHECK-LABEL: func.func @dynamic
// CHECK-NEXT:    %a = ascend.dyn_buffer : memref<?x4xf32>
func.func @dynamic(%x: memref<?x4xf32>) -> memref<?x4xf32> attributes {ascend.arena_size = 0 : i64} {
  %a = ascend.dyn_buffer : memref<?x4xf32>
  ascend.task "relu_0" {unit = "vector", stream = 0 : i64} ins(%x : memref<?x4xf32>) outs(%a : memref<?x4xf32>) {
  ^bb0(%t: tensor<?x4xf32>):
    %r = ge.relu %t : tensor<?x4xf32>
    ge.yield %r : tensor<?x4xf32>
  }
  %b = ascend.dyn_buffer : memref<?x4xf32>
  ascend.record_event {event = 0 : i64, stream = 0 : i64}
  ascend.wait_event {event = 0 : i64, stream = 1 : i64}
  ascend.task "neg_0" {unit = "vector", stream = 1 : i64} ins(%a : memref<?x4xf32>) outs(%b : memref<?x4xf32>) {
  ^bb0(%t: tensor<?x4xf32>):
    %r = ge.neg %t : tensor<?x4xf32>
    ge.yield %r : tensor<?x4xf32>
  }
  func.return %b : memref<?x4xf32>
}

// -----

// The same reuse as @reuse_after_event without the event: stream 1 may
// overwrite %a while stream 0 still reads it.
// CHECK: {{^}}verify-plan: @reuse_without_event: %a (bytes [0, 16)) and %b (bytes [0, 16)) overlap but may be live at once: task 'relu_1' (stream 1) writes %b and task 'neg_0' (stream 0) reads %a with no stream order or event path between them{{$}}
// EXIT: {{^.*}}verify-plan.mlir:[[# @LINE + 2]]:1: error: verify-plan: @reuse_without_event: %a (bytes [0, 16)) and %b (bytes [0, 16)) overlap but may be live at once: task 'relu_1' (stream 1) writes %b and task 'neg_0' (stream 0) reads %a with no stream order or event path between them{{$}}
// EXIT-NOT: Traceback
func.func @reuse_without_event(%x: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>) attributes {ascend.arena_size = 1536 : i64} {
  %a = ascend.buffer {offset = 0 : i64} : memref<4xf32>
  ascend.task "relu_0" {unit = "vector", stream = 0 : i64} ins(%x : memref<4xf32>) outs(%a : memref<4xf32>) {
  ^bb0(%t: tensor<4xf32>):
    %r = ge.relu %t : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  %a2 = ascend.buffer {offset = 512 : i64} : memref<4xf32>
  ascend.task "neg_0" {unit = "vector", stream = 0 : i64} ins(%a : memref<4xf32>) outs(%a2 : memref<4xf32>) {
  ^bb0(%t: tensor<4xf32>):
    %r = ge.neg %t : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  %b = ascend.buffer {offset = 0 : i64} : memref<4xf32>
  ascend.task "relu_1" {unit = "vector", stream = 1 : i64} ins(%x : memref<4xf32>) outs(%b : memref<4xf32>) {
  ^bb0(%t: tensor<4xf32>):
    %r = ge.relu %t : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  %b2 = ascend.buffer {offset = 1024 : i64} : memref<4xf32>
  ascend.task "neg_1" {unit = "vector", stream = 1 : i64} ins(%b : memref<4xf32>) outs(%b2 : memref<4xf32>) {
  ^bb0(%t: tensor<4xf32>):
    %r = ge.neg %t : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  func.return %a2, %b2 : memref<4xf32>, memref<4xf32>
}
