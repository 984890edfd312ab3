// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK: {{^}}ge.scatter_update: updates must have shape 1x2x1x8 (the ref's with dim 2 the number of indices), got 1x2x2x8{{$}}
func.func @scatter_update_rows(%k: tensor<1x2x16x8xf32>, %pos: tensor<1xi64>, %new: tensor<1x2x2x8xf32>) -> tensor<1x2x16x8xf32> {
  %k1 = ge.scatter_update %k[%pos], %new {dim = 2 : i64} : tensor<1x2x16x8xf32>, tensor<1xi64>, tensor<1x2x2x8xf32> -> tensor<1x2x16x8xf32>
  func.return %k1 : tensor<1x2x16x8xf32>
}

// -----

// CHECK: {{^}}ge.scatter_update: indices must have i32 or i64 elements, got f32{{$}}
func.func @scatter_update_float_indices(%k: tensor<4x8xf32>, %pos: tensor<1xf32>, %new: tensor<1x8xf32>) -> tensor<4x8xf32> {
  %k1 = ge.scatter_update %k[%pos], %new {dim = 0 : i64} : tensor<4x8xf32>, tensor<1xf32>, tensor<1x8xf32> -> tensor<4x8xf32>
  func.return %k1 : tensor<4x8xf32>
}

// -----

// CHECK: {{^}}ge.scatter_update: indices must be 1-D, got 1x1{{$}}
func.func @scatter_update_2d_indices(%k: tensor<4x8xf32>, %pos: tensor<1x1xi64>, %new: tensor<1x8xf32>) -> tensor<4x8xf32> {
  %k1 = ge.scatter_update %k[%pos], %new {dim = 0 : i64} : tensor<4x8xf32>, tensor<1x1xi64>, tensor<1x8xf32> -> tensor<4x8xf32>
  func.return %k1 : tensor<4x8xf32>
}
