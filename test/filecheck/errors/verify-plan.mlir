// Device plans broken by hand: verify-plan must name the buffers, offsets,
// sizes and tasks at fault. Valid plans: passes/verify-plan.mlir.

// RUN: ge-opt %s --split-input-file -p verify-plan --verify-diagnostics | filecheck %s

// Bytes past the arena are caught by ascend.buffer's own verifier, before the pass runs.
// CHECK: {{^}}ascend.buffer: bytes [512, 1088) exceed the arena of 1024 bytes{{$}}
func.func @outside_arena(%x: memref<1x4x6x6xf32>) -> memref<1x4x6x6xf32> attributes {ascend.arena_size = 1024 : i64} {
  %a = ascend.buffer {offset = 512 : i64} : memref<1x4x6x6xf32>
  ascend.task "relu_0" {unit = "vector", stream = 0 : i64} ins(%x : memref<1x4x6x6xf32>) outs(%a : memref<1x4x6x6xf32>) {
  ^bb0(%t: tensor<1x4x6x6xf32>):
    %r = ge.relu %t : tensor<1x4x6x6xf32>
    ge.yield %r : tensor<1x4x6x6xf32>
  }
  func.return %a : memref<1x4x6x6xf32>
}

// -----

// 16 bytes fit, but the block is padded to 512 (MEM_ALIGN_SIZE) and the padding does not.
// CHECK: {{^}}verify-plan: @padding_outside_arena: %a at bytes [512, 528) (padded to 1024) lies outside the arena of 528 bytes{{$}}
func.func @padding_outside_arena(%x: memref<4xf32>) -> memref<4xf32> attributes {ascend.arena_size = 528 : i64} {
  %a = ascend.buffer {offset = 512 : i64} : memref<4xf32>
  ascend.task "relu_0" {unit = "vector", stream = 0 : i64} ins(%x : memref<4xf32>) outs(%a : memref<4xf32>) {
  ^bb0(%t: tensor<4xf32>):
    %r = ge.relu %t : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  func.return %a : memref<4xf32>
}

// -----

// CHECK: {{^}}verify-plan: @misaligned: %a at offset 256 is not aligned to 512 bytes{{$}}
func.func @misaligned(%x: memref<4xf32>) -> memref<4xf32> attributes {ascend.arena_size = 1024 : i64} {
  %a = ascend.buffer {offset = 256 : i64} : memref<4xf32>
  ascend.task "relu_0" {unit = "vector", stream = 0 : i64} ins(%x : memref<4xf32>) outs(%a : memref<4xf32>) {
  ^bb0(%t: tensor<4xf32>):
    %r = ge.relu %t : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  func.return %a : memref<4xf32>
}

// -----

// One stream: %b overwrites %a while add_0 still has to read %a.
// CHECK: {{^}}verify-plan: @overlap_one_stream: %a (bytes [0, 16)) and %b (bytes [0, 16)) overlap but may be live at once: task 'relu_1' (stream 0) writes %b before task 'add_0' (stream 0) reads %a{{$}}
func.func @overlap_one_stream(%x: memref<4xf32>) -> memref<4xf32> attributes {ascend.arena_size = 1024 : i64} {
  %a = ascend.buffer {offset = 0 : i64} : memref<4xf32>
  ascend.task "relu_0" {unit = "vector", stream = 0 : i64} ins(%x : memref<4xf32>) outs(%a : memref<4xf32>) {
  ^bb0(%t: tensor<4xf32>):
    %r = ge.relu %t : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  %b = ascend.buffer {offset = 0 : i64} : memref<4xf32>
  ascend.task "relu_1" {unit = "vector", stream = 0 : i64} ins(%x : memref<4xf32>) outs(%b : memref<4xf32>) {
  ^bb0(%t: tensor<4xf32>):
    %r = ge.relu %t : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  %c = ascend.buffer {offset = 512 : i64} : memref<4xf32>
  ascend.task "add_0" {unit = "vector", stream = 0 : i64} ins(%a, %b : memref<4xf32>, memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%s: tensor<4xf32>, %t: tensor<4xf32>):
    %r = ge.add %s, %t : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  func.return %c : memref<4xf32>
}

// -----

// Two streams, no event between them: %a and %b may be live at the same time.
// CHECK: {{^}}verify-plan: @overlap_two_streams: %a (bytes [0, 16)) and %b (bytes [0, 16)) overlap but may be live at once: task 'relu_2' (stream 1) writes %b and task 'relu_1' (stream 0) reads %a with no stream order or event path between them{{$}}
func.func @overlap_two_streams(%x: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>) attributes {ascend.arena_size = 2048 : i64} {
  %a = ascend.buffer {offset = 0 : i64} : memref<4xf32>
  ascend.task "relu_0" {unit = "vector", stream = 0 : i64} ins(%x : memref<4xf32>) outs(%a : memref<4xf32>) {
  ^bb0(%t: tensor<4xf32>):
    %r = ge.relu %t : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  %a2 = ascend.buffer {offset = 512 : i64} : memref<4xf32>
  ascend.task "relu_1" {unit = "vector", stream = 0 : i64} ins(%a : memref<4xf32>) outs(%a2 : memref<4xf32>) {
  ^bb0(%t: tensor<4xf32>):
    %r = ge.relu %t : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  %b = ascend.buffer {offset = 0 : i64} : memref<4xf32>
  ascend.task "relu_2" {unit = "vector", stream = 1 : i64} ins(%x : memref<4xf32>) outs(%b : memref<4xf32>) {
  ^bb0(%t: tensor<4xf32>):
    %r = ge.relu %t : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  %b2 = ascend.buffer {offset = 1024 : i64} : memref<4xf32>
  ascend.task "relu_3" {unit = "vector", stream = 1 : i64} ins(%b : memref<4xf32>) outs(%b2 : memref<4xf32>) {
  ^bb0(%t: tensor<4xf32>):
    %r = ge.relu %t : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  func.return %a2, %b2 : memref<4xf32>, memref<4xf32>
}

// -----

// relu_1 on stream 1 reads what relu_0 writes on stream 0, with no event.
// CHECK: {{^}}verify-plan: @cross_stream_read: task 'relu_1' (stream 1) reads %a, which task 'relu_0' (stream 0) writes earlier, with no stream order or event path between them (a cross-stream use needs a record_event/wait_event pair){{$}}
func.func @cross_stream_read(%x: memref<4xf32>) -> memref<4xf32> attributes {ascend.arena_size = 1024 : i64} {
  %a = ascend.buffer {offset = 0 : i64} : memref<4xf32>
  ascend.task "relu_0" {unit = "vector", stream = 0 : i64} ins(%x : memref<4xf32>) outs(%a : memref<4xf32>) {
  ^bb0(%t: tensor<4xf32>):
    %r = ge.relu %t : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  %b = ascend.buffer {offset = 512 : i64} : memref<4xf32>
  ascend.task "relu_1" {unit = "vector", stream = 1 : i64} ins(%a : memref<4xf32>) outs(%b : memref<4xf32>) {
  ^bb0(%t: tensor<4xf32>):
    %r = ge.relu %t : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  func.return %b : memref<4xf32>
}

// -----

// The event is recorded on the wrong stream (1, not 0): the wait orders nothing.
// CHECK: {{^}}verify-plan: @event_on_wrong_stream: task 'relu_1' (stream 1) reads %a, which task 'relu_0' (stream 0) writes earlier, with no stream order or event path between them (a cross-stream use needs a record_event/wait_event pair){{$}}
func.func @event_on_wrong_stream(%x: memref<4xf32>) -> memref<4xf32> attributes {ascend.arena_size = 1024 : i64} {
  %a = ascend.buffer {offset = 0 : i64} : memref<4xf32>
  ascend.task "relu_0" {unit = "vector", stream = 0 : i64} ins(%x : memref<4xf32>) outs(%a : memref<4xf32>) {
  ^bb0(%t: tensor<4xf32>):
    %r = ge.relu %t : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  ascend.record_event {event = 0 : i64, stream = 1 : i64}
  ascend.wait_event {event = 0 : i64, stream = 1 : i64}
  %b = ascend.buffer {offset = 512 : i64} : memref<4xf32>
  ascend.task "relu_1" {unit = "vector", stream = 1 : i64} ins(%a : memref<4xf32>) outs(%b : memref<4xf32>) {
  ^bb0(%t: tensor<4xf32>):
    %r = ge.relu %t : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  func.return %b : memref<4xf32>
}

// -----

// The record comes after the wait in program order.
// CHECK: {{^}}verify-plan: @wait_without_record: ascend.wait_event 0 on stream 1 has no earlier ascend.record_event 0: the stream would wait forever (and 1 more){{$}}
func.func @wait_without_record(%x: memref<4xf32>) -> memref<4xf32> attributes {ascend.arena_size = 1024 : i64} {
  %a = ascend.buffer {offset = 0 : i64} : memref<4xf32>
  ascend.task "relu_0" {unit = "vector", stream = 0 : i64} ins(%x : memref<4xf32>) outs(%a : memref<4xf32>) {
  ^bb0(%t: tensor<4xf32>):
    %r = ge.relu %t : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  ascend.wait_event {event = 0 : i64, stream = 1 : i64}
  ascend.record_event {event = 0 : i64, stream = 0 : i64}
  %b = ascend.buffer {offset = 512 : i64} : memref<4xf32>
  ascend.task "relu_1" {unit = "vector", stream = 1 : i64} ins(%a : memref<4xf32>) outs(%b : memref<4xf32>) {
  ^bb0(%t: tensor<4xf32>):
    %r = ge.relu %t : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  func.return %b : memref<4xf32>
}

// -----

// A write after a read on another stream (WAR): relu_1 may overwrite %a while neg_0 reads it.
// CHECK: {{^}}verify-plan: @write_after_read: task 'relu_1' (stream 0) writes %a, which task 'neg_0' (stream 1) reads earlier, with no stream order or event path between them (a cross-stream use needs a record_event/wait_event pair){{$}}
func.func @write_after_read(%x: memref<4xf32>, %a: memref<4xf32>) -> memref<4xf32> attributes {ascend.arena_size = 512 : i64} {
  %b = ascend.buffer {offset = 0 : i64} : memref<4xf32>
  ascend.task "neg_0" {unit = "vector", stream = 1 : i64} ins(%a : memref<4xf32>) outs(%b : memref<4xf32>) {
  ^bb0(%t: tensor<4xf32>):
    %r = ge.neg %t : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  ascend.task "relu_1" {unit = "vector", stream = 0 : i64} ins(%x : memref<4xf32>) outs(%a : memref<4xf32>) {
  ^bb0(%t: tensor<4xf32>):
    %r = ge.relu %t : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  func.return %b : memref<4xf32>
}

// -----

// Writing in place is legal only for tasks that compute by flat index: a transpose is not.
// CHECK: {{^}}verify-plan: @in_place_transpose: %a (bytes [0, 24)) and %b (bytes [0, 24)) overlap but may be live at once: task 'transpose_0' (stream 0) uses both, and is not an elementwise task writing in place over an input it reads last{{$}}
func.func @in_place_transpose(%x: memref<2x3xf32>) -> memref<3x2xf32> attributes {ascend.arena_size = 512 : i64} {
  %a = ascend.buffer {offset = 0 : i64} : memref<2x3xf32>
  ascend.task "relu_0" {unit = "vector", stream = 0 : i64} ins(%x : memref<2x3xf32>) outs(%a : memref<2x3xf32>) {
  ^bb0(%t: tensor<2x3xf32>):
    %r = ge.relu %t : tensor<2x3xf32>
    ge.yield %r : tensor<2x3xf32>
  }
  %b = ascend.buffer {offset = 0 : i64} : memref<3x2xf32>
  ascend.task "transpose_0" {unit = "vector", stream = 0 : i64} ins(%a : memref<2x3xf32>) outs(%b : memref<3x2xf32>) {
  ^bb0(%t: tensor<2x3xf32>):
    %r = ge.transpose %t {permutation = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
    ge.yield %r : tensor<3x2xf32>
  }
  func.return %b : memref<3x2xf32>
}

// -----

// A conv task may write over its residual (read by index in the add), never
// over the conv's own input %a.
// CHECK: {{^}}verify-plan: @conv_over_its_input: %a (bytes [0, 256)) and %r (bytes [0, 256)) overlap but may be live at once: task 'conv2d_add_0' (stream 0) uses both, and is not an elementwise task writing in place over an input it reads last{{$}}
func.func @conv_over_its_input(%x: memref<1x4x4x4xf32>, %res: memref<1x4x4x4xf32>) -> memref<1x4x4x4xf32> attributes {ascend.arena_size = 512 : i64} {
  %w = ascend.weight dense<5.000000e-01> : tensor<4x4x1x1xf32> -> memref<4x4x1x1xf32>
  %a = ascend.buffer {offset = 0 : i64} : memref<1x4x4x4xf32>
  ascend.task "relu_0" {unit = "vector", stream = 0 : i64} ins(%x : memref<1x4x4x4xf32>) outs(%a : memref<1x4x4x4xf32>) {
  ^bb0(%t: tensor<1x4x4x4xf32>):
    %r = ge.relu %t : tensor<1x4x4x4xf32>
    ge.yield %r : tensor<1x4x4x4xf32>
  }
  %r = ascend.buffer {offset = 0 : i64} : memref<1x4x4x4xf32>
  ascend.task "conv2d_add_0" {unit = "cube", stream = 0 : i64} ins(%a, %w, %res : memref<1x4x4x4xf32>, memref<4x4x1x1xf32>, memref<1x4x4x4xf32>) outs(%r : memref<1x4x4x4xf32>) {
  ^bb0(%t: tensor<1x4x4x4xf32>, %k: tensor<4x4x1x1xf32>, %s: tensor<1x4x4x4xf32>):
    %c = ge.conv2d %t, %k {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32> -> tensor<1x4x4x4xf32>
    %y = ge.add %c, %s : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32> -> tensor<1x4x4x4xf32>
    ge.yield %y : tensor<1x4x4x4xf32>
  }
  func.return %r : memref<1x4x4x4xf32>
}

// -----

// In place, but %a is read again afterwards: relu_1 is not its last reader.
// CHECK: {{^}}verify-plan: @in_place_not_last_reader: %a (bytes [0, 16)) and %b (bytes [0, 16)) overlap but may be live at once: task 'relu_1' (stream 0) writes %b before task 'add_0' (stream 0) reads %a{{$}}
func.func @in_place_not_last_reader(%x: memref<4xf32>) -> memref<4xf32> attributes {ascend.arena_size = 1024 : i64} {
  %a = ascend.buffer {offset = 0 : i64} : memref<4xf32>
  ascend.task "relu_0" {unit = "vector", stream = 0 : i64} ins(%x : memref<4xf32>) outs(%a : memref<4xf32>) {
  ^bb0(%t: tensor<4xf32>):
    %r = ge.relu %t : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  %b = ascend.buffer {offset = 0 : i64} : memref<4xf32>
  ascend.task "relu_1" {unit = "vector", stream = 0 : i64} ins(%a : memref<4xf32>) outs(%b : memref<4xf32>) {
  ^bb0(%t: tensor<4xf32>):
    %r = ge.relu %t : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  %c = ascend.buffer {offset = 512 : i64} : memref<4xf32>
  ascend.task "add_0" {unit = "vector", stream = 0 : i64} ins(%a, %b : memref<4xf32>, memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%s: tensor<4xf32>, %t: tensor<4xf32>):
    %r = ge.add %s, %t : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  func.return %c : memref<4xf32>
}

// -----

// Two function results may not share bytes: the caller reads both.
// CHECK: {{^}}verify-plan: @overlapping_results: %a (bytes [0, 16)) and %b (bytes [0, 16)) overlap but may be live at once: task 'relu_1' (stream 0) writes %b before the caller reads %a (a function result){{$}}
func.func @overlapping_results(%x: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>) attributes {ascend.arena_size = 512 : i64} {
  %a = ascend.buffer {offset = 0 : i64} : memref<4xf32>
  ascend.task "relu_0" {unit = "vector", stream = 0 : i64} ins(%x : memref<4xf32>) outs(%a : memref<4xf32>) {
  ^bb0(%t: tensor<4xf32>):
    %r = ge.relu %t : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  %b = ascend.buffer {offset = 0 : i64} : memref<4xf32>
  ascend.task "relu_1" {unit = "vector", stream = 0 : i64} ins(%x : memref<4xf32>) outs(%b : memref<4xf32>) {
  ^bb0(%t: tensor<4xf32>):
    %r = ge.relu %t : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  func.return %a, %b : memref<4xf32>, memref<4xf32>
}

// -----

// CHECK: {{^}}verify-plan: @event_in_body: ascend.record_event inside task 'relu_0' (stream 0): events belong at the top level of the function{{$}}
func.func @event_in_body(%x: memref<4xf32>) -> memref<4xf32> attributes {ascend.arena_size = 512 : i64} {
  %a = ascend.buffer {offset = 0 : i64} : memref<4xf32>
  ascend.task "relu_0" {unit = "vector", stream = 0 : i64} ins(%x : memref<4xf32>) outs(%a : memref<4xf32>) {
  ^bb0(%t: tensor<4xf32>):
    ascend.record_event {event = 0 : i64, stream = 0 : i64}
    %r = ge.relu %t : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  func.return %a : memref<4xf32>
}

// -----

// CHECK: {{^}}verify-plan: @two_blocks: has 2 blocks; a lowered function has one{{$}}
func.func @two_blocks() attributes {ascend.arena_size = 0 : i64} {
  cf.br ^next
^next:
  func.return
}
