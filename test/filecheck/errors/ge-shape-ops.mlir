// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK: {{^}}ge.flatten: result shape 6x4 does not match the inferred shape 2x12{{$}}
func.func @flatten_shape(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  %y = ge.flatten %x {start_dim = 1 : i64, end_dim = -1 : i64} : tensor<2x3x4xf32> -> tensor<6x4xf32>
  func.return %y : tensor<6x4xf32>
}

// -----

// CHECK: {{^}}ge.flatten: dimension 3 is out of range for rank 3{{$}}
func.func @flatten_dim_range(%x: tensor<2x3x4xf32>) -> tensor<2x12xf32> {
  %y = ge.flatten %x {start_dim = 3 : i64, end_dim = -1 : i64} : tensor<2x3x4xf32> -> tensor<2x12xf32>
  func.return %y : tensor<2x12xf32>
}

// -----

// CHECK: {{^}}ge.flatten: dimension -4 is out of range for rank 3{{$}}
func.func @flatten_negative_range(%x: tensor<2x3x4xf32>) -> tensor<24xf32> {
  %y = ge.flatten %x {start_dim = 0 : i64, end_dim = -4 : i64} : tensor<2x3x4xf32> -> tensor<24xf32>
  func.return %y : tensor<24xf32>
}

// -----

// CHECK: {{^}}ge.flatten: start_dim 2 is after end_dim 1 for rank 3{{$}}
func.func @flatten_order(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %y = ge.flatten %x {start_dim = 2 : i64, end_dim = 1 : i64} : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  func.return %y : tensor<2x3x4xf32>
}

// -----

// CHECK: {{^}}ge.reshape: cannot reshape 24 elements into 25{{$}}
func.func @reshape_count(%x: tensor<2x3x4xf32>) -> tensor<5x5xf32> {
  %y = ge.reshape %x : tensor<2x3x4xf32> -> tensor<5x5xf32>
  func.return %y : tensor<5x5xf32>
}

// -----

// CHECK: {{^}}ge.reshape: operand element type f32 differs from result element type f16{{$}}
func.func @reshape_element_type(%x: tensor<2x3xf32>) -> tensor<6xf16> {
  %y = ge.reshape %x : tensor<2x3xf32> -> tensor<6xf16>
  func.return %y : tensor<6xf16>
}
