// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP

// CHECK-LABEL: func.func @add_same_shape(
// CHECK-NEXT:    %z = ge.add %x, %y : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
func.func @add_same_shape(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %z = ge.add %x, %y : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  func.return %z : tensor<4x8xf32>
}

// Per-channel bias: the lower-rank operand is aligned to the trailing dims.
// CHECK-LABEL: func.func @add_channel_bias(
// CHECK-NEXT:    %z = ge.add %x, %b : tensor<1x64x56x56xf32>, tensor<64x1x1xf32> -> tensor<1x64x56x56xf32>
func.func @add_channel_bias(%x: tensor<1x64x56x56xf32>, %b: tensor<64x1x1xf32>) -> tensor<1x64x56x56xf32> {
  %z = ge.add %x, %b : tensor<1x64x56x56xf32>, tensor<64x1x1xf32> -> tensor<1x64x56x56xf32>
  func.return %z : tensor<1x64x56x56xf32>
}

// Both sides stretch: 4x1 + 1x5 -> 4x5.
// CHECK-LABEL: func.func @add_outer(
// CHECK-NEXT:    %z = ge.add %x, %y : tensor<4x1xf32>, tensor<1x5xf32> -> tensor<4x5xf32>
func.func @add_outer(%x: tensor<4x1xf32>, %y: tensor<1x5xf32>) -> tensor<4x5xf32> {
  %z = ge.add %x, %y : tensor<4x1xf32>, tensor<1x5xf32> -> tensor<4x5xf32>
  func.return %z : tensor<4x5xf32>
}

// A dynamic dim broadcasts against 1 and is refined by a static size.
// CHECK-LABEL: func.func @add_dynamic(
// CHECK-NEXT:    %z = ge.add %x, %y : tensor<?x8xf32>, tensor<8xf32> -> tensor<?x8xf32>
// CHECK-NEXT:    %w = ge.add %x, %v : tensor<?x8xf32>, tensor<3x1xf32> -> tensor<3x8xf32>
func.func @add_dynamic(%x: tensor<?x8xf32>, %y: tensor<8xf32>, %v: tensor<3x1xf32>) -> (tensor<?x8xf32>, tensor<3x8xf32>) {
  %z = ge.add %x, %y : tensor<?x8xf32>, tensor<8xf32> -> tensor<?x8xf32>
  %w = ge.add %x, %v : tensor<?x8xf32>, tensor<3x1xf32> -> tensor<3x8xf32>
  func.return %z, %w : tensor<?x8xf32>, tensor<3x8xf32>
}

// CHECK-LABEL: func.func @add_i32(
// CHECK-NEXT:    %z = ge.add %x, %y : tensor<3xi32>, tensor<i32> -> tensor<3xi32>
func.func @add_i32(%x: tensor<3xi32>, %y: tensor<i32>) -> tensor<3xi32> {
  %z = ge.add %x, %y : tensor<3xi32>, tensor<i32> -> tensor<3xi32>
  func.return %z : tensor<3xi32>
}
