// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP

// A whole lowered graph: weights, arena buffers, tasks on two streams ordered by an event.
// CHECK-LABEL: func.func @lowered(%x: memref<1x3x8x8xf32>) -> memref<1x4x6x6xf32> attributes {ascend.arena_size = 1152 : i64} {
// CHECK-NEXT:    %w = ascend.weight dense<5.000000e-01> : tensor<4x3x3x3xf32> -> memref<4x3x3x3xf32>
// CHECK-NEXT:    %b = ascend.weight dense<1.000000e-01> : tensor<4xf32> -> memref<4xf32>
// CHECK-NEXT:    %t0 = ascend.buffer {offset = 0 : i64} : memref<1x4x6x6xf32>
// CHECK-NEXT:    %t1 = ascend.buffer {offset = 576 : i64} : memref<1x4x6x6xf32>
// CHECK-NEXT:    ascend.task "conv2d_0" {unit = "cube", stream = 0 : i64} ins(%x, %w, %b : memref<1x3x8x8xf32>, memref<4x3x3x3xf32>, memref<4xf32>) outs(%t0 : memref<1x4x6x6xf32>) {
// CHECK-NEXT:    ^bb0(%a: tensor<1x3x8x8xf32>, %k: tensor<4x3x3x3xf32>, %c: tensor<4xf32>):
// CHECK-NEXT:      %0 = ge.conv2d %a, %k, %c {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32> -> tensor<1x4x6x6xf32>
// CHECK-NEXT:      ge.yield %0 : tensor<1x4x6x6xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    ascend.record_event {event = 0 : i64, stream = 0 : i64}
// CHECK-NEXT:    ascend.wait_event {event = 0 : i64, stream = 1 : i64}
// CHECK-NEXT:    ascend.task "relu_1" {unit = "vector", stream = 1 : i64} ins(%t0 : memref<1x4x6x6xf32>) outs(%t1 : memref<1x4x6x6xf32>) {
// CHECK-NEXT:    ^bb0(%a: tensor<1x4x6x6xf32>):
// CHECK-NEXT:      %0 = ge.relu %a : tensor<1x4x6x6xf32>
// CHECK-NEXT:      ge.yield %0 : tensor<1x4x6x6xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %t1 : memref<1x4x6x6xf32>
// CHECK-NEXT:  }
func.func @lowered(%x: memref<1x3x8x8xf32>) -> memref<1x4x6x6xf32> attributes {ascend.arena_size = 1152 : i64} {
  %w = ascend.weight dense<5.000000e-01> : tensor<4x3x3x3xf32> -> memref<4x3x3x3xf32>
  %b = ascend.weight dense<1.000000e-01> : tensor<4xf32> -> memref<4xf32>
  %t0 = ascend.buffer {offset = 0 : i64} : memref<1x4x6x6xf32>
  %t1 = ascend.buffer {offset = 576 : i64} : memref<1x4x6x6xf32>
  ascend.task "conv2d_0" {unit = "cube", stream = 0 : i64} ins(%x, %w, %b : memref<1x3x8x8xf32>, memref<4x3x3x3xf32>, memref<4xf32>) outs(%t0 : memref<1x4x6x6xf32>) {
  ^bb0(%a: tensor<1x3x8x8xf32>, %k: tensor<4x3x3x3xf32>, %c: tensor<4xf32>):
    %0 = ge.conv2d %a, %k, %c {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32> -> tensor<1x4x6x6xf32>
    ge.yield %0 : tensor<1x4x6x6xf32>
  }
  ascend.record_event {event = 0 : i64, stream = 0 : i64}
  ascend.wait_event {event = 0 : i64, stream = 1 : i64}
  ascend.task "relu_1" {unit = "vector", stream = 1 : i64} ins(%t0 : memref<1x4x6x6xf32>) outs(%t1 : memref<1x4x6x6xf32>) {
  ^bb0(%a: tensor<1x4x6x6xf32>):
    %0 = ge.relu %a : tensor<1x4x6x6xf32>
    ge.yield %0 : tensor<1x4x6x6xf32>
  }
  func.return %t1 : memref<1x4x6x6xf32>
}
