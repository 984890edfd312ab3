// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK: {{^}}ge.transpose: permutation {{\[}}0, 0, 1{{\]}} is not a permutation of the 3 dims of 2x3x4{{$}}
func.func @transpose_perm(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %y = ge.transpose %x {permutation = array<i64: 0, 0, 1>} : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  func.return %y : tensor<2x3x4xf32>
}

// -----

// CHECK: {{^}}ge.transpose: result shape 2x3x4 does not match the inferred shape 2x4x3{{$}}
func.func @transpose_result(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %y = ge.transpose %x {permutation = array<i64: 0, 2, 1>} : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  func.return %y : tensor<2x3x4xf32>
}

// -----

// CHECK: {{^}}ge.expand: cannot expand 2x3 to 4x3{{$}}
func.func @expand_incompatible(%x: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %y = ge.expand %x : tensor<2x3xf32> -> tensor<4x3xf32>
  func.return %y : tensor<4x3xf32>
}

// -----

// CHECK: {{^}}ge.expand: cannot expand 2x3 to the lower rank 3{{$}}
func.func @expand_rank(%x: tensor<2x3xf32>) -> tensor<3xf32> {
  %y = ge.expand %x : tensor<2x3xf32> -> tensor<3xf32>
  func.return %y : tensor<3xf32>
}

// -----

// CHECK: {{^}}ge.slice: slice step must be >= 1, got 0{{$}}
func.func @slice_step(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = ge.slice %x {dim = 0 : i64, start = 0 : i64, end = 8 : i64, step = 0 : i64} : tensor<8xf32> -> tensor<8xf32>
  func.return %y : tensor<8xf32>
}

// -----

// CHECK: {{^}}ge.slice: dimension 1 is out of range for rank 1{{$}}
func.func @slice_dim(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = ge.slice %x {dim = 1 : i64, start = 0 : i64, end = 8 : i64, step = 1 : i64} : tensor<8xf32> -> tensor<8xf32>
  func.return %y : tensor<8xf32>
}

// -----

// CHECK: {{^}}ge.slice: result shape 4 does not match the inferred shape 3{{$}}
func.func @slice_result(%x: tensor<8xf32>) -> tensor<4xf32> {
  %y = ge.slice %x {dim = 0 : i64, start = 2 : i64, end = 5 : i64, step = 1 : i64} : tensor<8xf32> -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: {{^}}ge.concat: concat inputs 2x3 and 2x4 differ outside dim 0{{$}}
func.func @concat_mismatch(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) -> tensor<4x3xf32> {
  %y = ge.concat %a, %b {dim = 0 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  func.return %y : tensor<4x3xf32>
}

// -----

// CHECK: {{^}}ge.concat: concat inputs must have the same rank, got 2x3 and 3{{$}}
func.func @concat_rank(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<5x3xf32> {
  %y = ge.concat %a, %b {dim = 0 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<5x3xf32>
  func.return %y : tensor<5x3xf32>
}
