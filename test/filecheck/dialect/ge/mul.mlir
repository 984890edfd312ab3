// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP

// CHECK-LABEL: func.func @mul_row(
// CHECK-NEXT:    %z = ge.mul %x, %s : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
func.func @mul_row(%x: tensor<4x8xf32>, %s: tensor<8xf32>) -> tensor<4x8xf32> {
  %z = ge.mul %x, %s : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  func.return %z : tensor<4x8xf32>
}

// A rank-0 operand scales everything; operand order does not matter.
// CHECK-LABEL: func.func @mul_scalar(
// CHECK-NEXT:    %z = ge.mul %s, %x : tensor<f32>, tensor<2x3x4xf32> -> tensor<2x3x4xf32>
func.func @mul_scalar(%x: tensor<2x3x4xf32>, %s: tensor<f32>) -> tensor<2x3x4xf32> {
  %z = ge.mul %s, %x : tensor<f32>, tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  func.return %z : tensor<2x3x4xf32>
}

// CHECK-LABEL: func.func @mul_broadcast_both(
// CHECK-NEXT:    %z = ge.mul %x, %y : tensor<2x1x4xf32>, tensor<3x1xf32> -> tensor<2x3x4xf32>
func.func @mul_broadcast_both(%x: tensor<2x1x4xf32>, %y: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %z = ge.mul %x, %y : tensor<2x1x4xf32>, tensor<3x1xf32> -> tensor<2x3x4xf32>
  func.return %z : tensor<2x3x4xf32>
}

// A declared `?` is accepted where the inferred dim is static.
// CHECK-LABEL: func.func @mul_dynamic_result(
// CHECK-NEXT:    %z = ge.mul %x, %y : tensor<?x4xf32>, tensor<?x1xf32> -> tensor<?x4xf32>
func.func @mul_dynamic_result(%x: tensor<?x4xf32>, %y: tensor<?x1xf32>) -> tensor<?x4xf32> {
  %z = ge.mul %x, %y : tensor<?x4xf32>, tensor<?x1xf32> -> tensor<?x4xf32>
  func.return %z : tensor<?x4xf32>
}
