// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK: {{^}}ge.matmul: contraction dimensions differ: 16x32 @ 16x64{{$}}
func.func @contraction(%a: tensor<16x32xf32>, %b: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %y = ge.matmul %a, %b : tensor<16x32xf32>, tensor<16x64xf32> -> tensor<16x64xf32>
  func.return %y : tensor<16x64xf32>
}

// -----

// The batch dim of the lhs is kept.
// CHECK: {{^}}ge.matmul: result shape 16x64 does not match the inferred shape 8x16x64{{$}}
func.func @result_shape(%a: tensor<8x16x32xf32>, %b: tensor<32x64xf32>) -> tensor<16x64xf32> {
  %y = ge.matmul %a, %b : tensor<8x16x32xf32>, tensor<32x64xf32> -> tensor<16x64xf32>
  func.return %y : tensor<16x64xf32>
}

// -----

// A 1-D lhs is promoted to a row and the row dim is dropped again.
// CHECK: {{^}}ge.matmul: result shape 1x64 does not match the inferred shape 64{{$}}
func.func @vector_keeps_dim(%v: tensor<32xf32>, %m: tensor<32x64xf32>) -> tensor<1x64xf32> {
  %y = ge.matmul %v, %m : tensor<32xf32>, tensor<32x64xf32> -> tensor<1x64xf32>
  func.return %y : tensor<1x64xf32>
}

// -----

// Batch dims must broadcast.
// CHECK: {{^}}ge.matmul: shapes 2 and 3 do not broadcast{{$}}
func.func @batch_broadcast(%a: tensor<2x4x8xf32>, %b: tensor<3x8x5xf32>) -> tensor<2x4x5xf32> {
  %y = ge.matmul %a, %b : tensor<2x4x8xf32>, tensor<3x8x5xf32> -> tensor<2x4x5xf32>
  func.return %y : tensor<2x4x5xf32>
}

// -----

// CHECK: {{^}}ge.matmul: matmul operands must have rank >= 1{{$}}
func.func @scalar_operand(%a: tensor<f32>, %b: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %y = ge.matmul %a, %b : tensor<f32>, tensor<3x5xf32> -> tensor<3x5xf32>
  func.return %y : tensor<3x5xf32>
}
