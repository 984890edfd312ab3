// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP

// CHECK-LABEL: func.func @batch_norm_2d(
// CHECK-NEXT:    %y = ge.batch_norm %x, %w, %b, %m, %v {epsilon = 1.000000e-05 : f64} : tensor<1x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<1x64x56x56xf32>
func.func @batch_norm_2d(%x: tensor<1x64x56x56xf32>, %w: tensor<64xf32>, %b: tensor<64xf32>, %m: tensor<64xf32>, %v: tensor<64xf32>) -> tensor<1x64x56x56xf32> {
  %y = ge.batch_norm %x, %w, %b, %m, %v {epsilon = 1.000000e-05 : f64} : tensor<1x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<1x64x56x56xf32>
  func.return %y : tensor<1x64x56x56xf32>
}

// BatchNorm1d over [N, C]; the channel is still dim 1. Epsilon is an f64.
// CHECK-LABEL: func.func @batch_norm_1d(
// CHECK-NEXT:    %y = ge.batch_norm %x, %p, %p, %p, %p {epsilon = 1.000000e-03 : f64} : tensor<?x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32> -> tensor<?x16xf32>
func.func @batch_norm_1d(%x: tensor<?x16xf32>, %p: tensor<16xf32>) -> tensor<?x16xf32> {
  %y = ge.batch_norm %x, %p, %p, %p, %p {epsilon = 1.0e-3 : f64} : tensor<?x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32> -> tensor<?x16xf32>
  func.return %y : tensor<?x16xf32>
}

// A dynamic channel dim accepts any per-channel vector length.
// CHECK-LABEL: func.func @batch_norm_dynamic_channels(
// CHECK-NEXT:    %y = ge.batch_norm %x, %p, %p, %p, %p {epsilon = 1.000000e-05 : f64} : tensor<2x?x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x?x4x4xf32>
func.func @batch_norm_dynamic_channels(%x: tensor<2x?x4x4xf32>, %p: tensor<8xf32>) -> tensor<2x?x4x4xf32> {
  %y = ge.batch_norm %x, %p, %p, %p, %p {epsilon = 1.000000e-05 : f64} : tensor<2x?x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x?x4x4xf32>
  func.return %y : tensor<2x?x4x4xf32>
}
