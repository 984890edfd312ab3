// A dynamic weight dim makes the dims it feeds dynamic; it is never treated
// as the number DYNAMIC_INDEX.

// RUN: ge-opt %s | filecheck %s

// CHECK-LABEL: func.func @conv2d_dynamic_in_channels(
// CHECK-NEXT:    ge.conv2d
func.func @conv2d_dynamic_in_channels(%x: tensor<1x3x8x8xf32>, %w: tensor<4x?x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x?x3x3xf32> -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// CHECK-LABEL: func.func @conv2d_dynamic_kernel(
// CHECK-NEXT:    ge.conv2d
func.func @conv2d_dynamic_kernel(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x?x?xf32>) -> tensor<1x4x?x?xf32> {
  %y = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x?x?xf32> -> tensor<1x4x?x?xf32>
  func.return %y : tensor<1x4x?x?xf32>
}

// CHECK-LABEL: func.func @linear_dynamic_in_features(
// CHECK-NEXT:    ge.linear
func.func @linear_dynamic_in_features(%x: tensor<2x4xf32>, %w: tensor<5x?xf32>) -> tensor<2x5xf32> {
  %y = ge.linear %x, %w : tensor<2x4xf32>, tensor<5x?xf32> -> tensor<2x5xf32>
  func.return %y : tensor<2x5xf32>
}
