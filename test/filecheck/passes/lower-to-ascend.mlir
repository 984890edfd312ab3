// RUN: ge-opt %s --split-input-file -p lower-to-ascend | filecheck %s

// One task per op or fused group; cube for conv/matmul groups, vector for the
// rest; one 512-byte-aligned buffer per result, and the arena size on the func.
// CHECK-LABEL: func.func @main(%x: memref<1x1x4x4xf32>) -> memref<1x2xf32> attributes {ascend.arena_size = 1536 : i64}
// CHECK-NEXT:    %w = ascend.weight dense<1.000000e+00> : tensor<2x1x1x1xf32> -> memref<2x1x1x1xf32>
// CHECK-NEXT:    %f = ascend.buffer {offset = 0 : i64} : memref<1x2x4x4xf32>
// CHECK-NEXT:    ascend.task "conv2d_relu_0" {unit = "cube", stream = 0 : i64} ins(%x, %w : memref<1x1x4x4xf32>, memref<2x1x1x1xf32>) outs(%f : memref<1x2x4x4xf32>) {
// CHECK-NEXT:    ^bb0(%{{.*}}: tensor<1x1x4x4xf32>, %{{.*}}: tensor<2x1x1x1xf32>):
// CHECK-NEXT:      ge.conv2d
// CHECK-NEXT:      ge.relu
// CHECK-NEXT:      ge.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %p = ascend.buffer {offset = 512 : i64} : memref<1x2x1x1xf32>
// CHECK-NEXT:    ascend.task "adaptive_avg_pool2d_0" {unit = "vector", stream = 0 : i64} ins(%f : memref<1x2x4x4xf32>) outs(%p : memref<1x2x1x1xf32>)
// CHECK:         %r = ascend.buffer {offset = 1024 : i64} : memref<1x2xf32>
// CHECK-NEXT:    ascend.task "reshape_0" {unit = "vector", stream = 0 : i64}
// CHECK:         func.return %r : memref<1x2xf32>
func.func @main(%x: tensor<1x1x4x4xf32>) -> tensor<1x2xf32> {
  %w = ge.const dense<1.0> : tensor<2x1x1x1xf32>
  %f = ge.fused "conv2d_relu"(%x, %w) : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32> {
  ^bb0(%a: tensor<1x1x4x4xf32>, %k: tensor<2x1x1x1xf32>):
    %c = ge.conv2d %a, %k {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x4x4xf32>
    %r = ge.relu %c : tensor<1x2x4x4xf32>
    ge.yield %r : tensor<1x2x4x4xf32>
  }
  %p = ge.adaptive_avg_pool2d %f {output_size = array<i64: 1, 1>} : tensor<1x2x4x4xf32> -> tensor<1x2x1x1xf32>
  %r = ge.reshape %p : tensor<1x2x1x1xf32> -> tensor<1x2xf32>
  func.return %r : tensor<1x2xf32>
}

// -----

// A linear layer is a cube task.
// CHECK-LABEL: func.func @fc
// CHECK:         ascend.task "linear_0" {unit = "cube", stream = 0 : i64}
func.func @fc(%x: tensor<2x8xf32>) -> tensor<2x4xf32> {
  %w = ge.const dense<1.0> : tensor<4x8xf32>
  %y = ge.linear %x, %w : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}

