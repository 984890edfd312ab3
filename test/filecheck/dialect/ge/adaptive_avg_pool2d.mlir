// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP

// Global average pooling: output_size 1x1.
// CHECK-LABEL: func.func @global_pool(
// CHECK-NEXT:    %y = ge.adaptive_avg_pool2d %x {output_size = array<i64: 1, 1>} : tensor<1x512x7x7xf32> -> tensor<1x512x1x1xf32>
func.func @global_pool(%x: tensor<1x512x7x7xf32>) -> tensor<1x512x1x1xf32> {
  %y = ge.adaptive_avg_pool2d %x {output_size = array<i64: 1, 1>} : tensor<1x512x7x7xf32> -> tensor<1x512x1x1xf32>
  func.return %y : tensor<1x512x1x1xf32>
}

// The output size is taken as given, whatever the input size.
// CHECK-LABEL: func.func @pool_to_7x5(
// CHECK-NEXT:    %y = ge.adaptive_avg_pool2d %x {output_size = array<i64: 7, 5>} : tensor<2x16x14x?xf32> -> tensor<2x16x7x5xf32>
func.func @pool_to_7x5(%x: tensor<2x16x14x?xf32>) -> tensor<2x16x7x5xf32> {
  %y = ge.adaptive_avg_pool2d %x {output_size = array<i64: 7, 5>} : tensor<2x16x14x?xf32> -> tensor<2x16x7x5xf32>
  func.return %y : tensor<2x16x7x5xf32>
}

// Unbatched CHW input.
// CHECK-LABEL: func.func @pool_chw(
// CHECK-NEXT:    %y = ge.adaptive_avg_pool2d %x {output_size = array<i64: 2, 2>} : tensor<3x8x8xf32> -> tensor<3x2x2xf32>
func.func @pool_chw(%x: tensor<3x8x8xf32>) -> tensor<3x2x2xf32> {
  %y = ge.adaptive_avg_pool2d %x {output_size = array<i64: 2, 2>} : tensor<3x8x8xf32> -> tensor<3x2x2xf32>
  func.return %y : tensor<3x2x2xf32>
}
