// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK: {{^}}ge.batch_norm: per-channel operands must have shape 64, got 32{{$}}
func.func @channels(%x: tensor<1x64x8x8xf32>, %p: tensor<32xf32>) -> tensor<1x64x8x8xf32> {
  %y = ge.batch_norm %x, %p, %p, %p, %p {epsilon = 1.0e-05 : f64} : tensor<1x64x8x8xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32> -> tensor<1x64x8x8xf32>
  func.return %y : tensor<1x64x8x8xf32>
}

// -----

// Each of the four per-channel operands is checked, not just the first.
// CHECK: {{^}}ge.batch_norm: per-channel operands must have shape 4, got 1x4{{$}}
func.func @running_var_only(%x: tensor<1x4x8x8xf32>, %p: tensor<4xf32>, %v: tensor<1x4xf32>) -> tensor<1x4x8x8xf32> {
  %y = ge.batch_norm %x, %p, %p, %p, %v {epsilon = 1.0e-05 : f64} : tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1x4xf32> -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}

// -----

// CHECK: {{^}}ge.batch_norm: input must have a channel dimension, got 4{{$}}
func.func @rank(%x: tensor<4xf32>, %p: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.batch_norm %x, %p, %p, %p, %p {epsilon = 1.0e-05 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: {{^}}ge.batch_norm: result shape 1x4x4x4 does not match the inferred shape 1x4x8x8{{$}}
func.func @result_shape(%x: tensor<1x4x8x8xf32>, %p: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  %y = ge.batch_norm %x, %p, %p, %p, %p {epsilon = 1.0e-05 : f64} : tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32> -> tensor<1x4x4x4xf32>
  func.return %y : tensor<1x4x4x4xf32>
}

// -----

// CHECK: {{^}}f32 should be of base attribute f64{{$}}
func.func @epsilon_type(%x: tensor<1x4x8x8xf32>, %p: tensor<4xf32>) -> tensor<1x4x8x8xf32> {
  %y = ge.batch_norm %x, %p, %p, %p, %p {epsilon = 1.0e-05 : f32} : tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32> -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}
