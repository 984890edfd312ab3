// RUN: ge-opt %s --split-input-file -p lower-to-ascend,task-parallel | filecheck %s
// RUN: ge-opt %s --split-input-file -p 'lower-to-ascend,task-parallel{max-streams=1}' | filecheck %s --check-prefix=SINGLE
// RUN: ge-opt %s --split-input-file -p 'lower-to-ascend,memory-reuse{in-place=false},task-parallel' | filecheck %s --check-prefix=REUSED

// Three independent branches run on three streams. Each cross-stream
// dependence gets one record/wait pair; the joins wait on stream 0.
// CHECK-LABEL: func.func @branches
// CHECK:         ascend.task "relu_0" {unit = "vector", stream = 0 : i64}
// CHECK:         ascend.task "relu_1" {unit = "vector", stream = 0 : i64}
// CHECK:         ascend.task "relu_2" {unit = "vector", stream = 1 : i64}
// CHECK:         ascend.task "relu_3" {unit = "vector", stream = 1 : i64}
// CHECK:         ascend.record_event {event = 0 : i64, stream = 1 : i64}
// CHECK:         ascend.task "relu_4" {unit = "vector", stream = 2 : i64}
// CHECK:         ascend.record_event {event = 1 : i64, stream = 2 : i64}
// CHECK:         ascend.wait_event {event = 0 : i64, stream = 0 : i64}
// CHECK-NEXT:    ascend.task "add_0" {unit = "vector", stream = 0 : i64}
// CHECK:         ascend.wait_event {event = 1 : i64, stream = 0 : i64}
// CHECK-NEXT:    ascend.task "add_1" {unit = "vector", stream = 0 : i64}
// CHECK-NOT:     ascend.record_event
// ge.enableSingleStream: one stream, no events.
// SINGLE-LABEL: func.func @branches
// SINGLE-NOT:     stream = 1
// SINGLE-NOT:     ascend.record_event
// After memory-reuse, %b takes dead %a's bytes, so relu_2 must follow relu_1
// (the last reader of %a): the branches no longer overlap.
// REUSED-LABEL: func.func @branches
// REUSED:         %a = ascend.buffer {offset = 0 : i64}
// REUSED:         ascend.task "relu_1" {unit = "vector", stream = 0 : i64}
// REUSED:         %b = ascend.buffer {offset = 0 : i64}
// REUSED-NEXT:    ascend.task "relu_2" {unit = "vector", stream = 0 : i64}
func.func @branches(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %a = ge.relu %x : tensor<1x4x8x8xf32>
  %a2 = ge.relu %a : tensor<1x4x8x8xf32>
  %b = ge.relu %x : tensor<1x4x8x8xf32>
  %b2 = ge.relu %b : tensor<1x4x8x8xf32>
  %c = ge.relu %x : tensor<1x4x8x8xf32>
  %ab = ge.add %a2, %b2 : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %y = ge.add %ab, %c : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}

// -----

// Negative: a chain has nothing to overlap; it stays on stream 0, no events.
// CHECK-LABEL: func.func @chain
// CHECK-NOT:     stream = 1
// CHECK-NOT:     ascend.record_event
func.func @chain(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %a = ge.relu %x : tensor<1x4x8x8xf32>
  %b = ge.relu %a : tensor<1x4x8x8xf32>
  %c = ge.add %a, %b : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  func.return %c : tensor<1x4x8x8xf32>
}
