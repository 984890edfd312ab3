// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK: {{^}}ge.conv_transpose2d: input has 8 channels but the weight expects 4{{$}}
func.func @conv_transpose2d_channels(%x: tensor<1x8x4x4xf32>, %w: tensor<4x4x2x2xf32>) -> tensor<1x4x8x8xf32> {
  %y = ge.conv_transpose2d %x, %w {stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, output_padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x8x4x4xf32>, tensor<4x4x2x2xf32> -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}

// -----

// CHECK: {{^}}ge.conv_transpose2d: output_padding 2 must be >= 0 and smaller than stride 2 or dilation 1{{$}}
func.func @conv_transpose2d_output_padding(%x: tensor<1x8x4x4xf32>, %w: tensor<8x4x2x2xf32>) -> tensor<1x4x10x10xf32> {
  %y = ge.conv_transpose2d %x, %w {stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, output_padding = array<i64: 2, 2>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x8x4x4xf32>, tensor<8x4x2x2xf32> -> tensor<1x4x10x10xf32>
  func.return %y : tensor<1x4x10x10xf32>
}

// -----

// CHECK: {{^}}ge.conv_transpose2d: result shape 1x4x9x9 does not match the inferred shape 1x4x8x8{{$}}
func.func @conv_transpose2d_result(%x: tensor<1x8x4x4xf32>, %w: tensor<8x4x2x2xf32>) -> tensor<1x4x9x9xf32> {
  %y = ge.conv_transpose2d %x, %w {stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, output_padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x8x4x4xf32>, tensor<8x4x2x2xf32> -> tensor<1x4x9x9xf32>
  func.return %y : tensor<1x4x9x9xf32>
}

// -----

// CHECK: {{^}}ge.avg_pool2d: padding 2 is more than half the kernel size 2{{$}}
func.func @avg_pool2d_padding(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %y = ge.avg_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 1, 1>, padding = array<i64: 2, 2>, ceil_mode = false, count_include_pad = true} : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}

// -----

// CHECK: {{^}}ge.adaptive_max_pool2d: output_size must be >= 1, got 0x2{{$}}
func.func @adaptive_max_pool2d_size(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x0x2xf32> {
  %y = ge.adaptive_max_pool2d %x {output_size = array<i64: 0, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x0x2xf32>
  func.return %y : tensor<1x4x0x2xf32>
}

// -----

// CHECK: {{^}}ge.interpolate: exactly one of size and scale must be given{{$}}
func.func @interpolate_both(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x16x16xf32> {
  %y = ge.interpolate %x {mode = "nearest", align_corners = false, size = array<i64: 16, 16>, scale = array<f64: 2.0, 2.0>} : tensor<1x4x8x8xf32> -> tensor<1x4x16x16xf32>
  func.return %y : tensor<1x4x16x16xf32>
}

// -----

// CHECK: {{^}}ge.interpolate: mode must be one of nearest, bilinear, bicubic, got 'trilinear'{{$}}
func.func @interpolate_mode(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x16x16xf32> {
  %y = ge.interpolate %x {mode = "trilinear", align_corners = false, size = array<i64: 16, 16>} : tensor<1x4x8x8xf32> -> tensor<1x4x16x16xf32>
  func.return %y : tensor<1x4x16x16xf32>
}

// -----

// CHECK: {{^}}ge.interpolate: align_corners applies to bilinear and bicubic modes only{{$}}
func.func @interpolate_corners(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x16x16xf32> {
  %y = ge.interpolate %x {mode = "nearest", align_corners = true, size = array<i64: 16, 16>} : tensor<1x4x8x8xf32> -> tensor<1x4x16x16xf32>
  func.return %y : tensor<1x4x16x16xf32>
}

// -----

// CHECK: {{^}}ge.interpolate: result shape 1x4x11x11 does not match the inferred shape 1x4x10x10{{$}}
func.func @interpolate_scale_result(%x: tensor<1x4x7x7xf32>) -> tensor<1x4x11x11xf32> {
  %y = ge.interpolate %x {mode = "nearest", align_corners = false, scale = array<f64: 1.5, 1.5>} : tensor<1x4x7x7xf32> -> tensor<1x4x11x11xf32>
  func.return %y : tensor<1x4x11x11xf32>
}

// -----

// CHECK: {{^}}ge.layer_norm: normalized_shape 32 must be the trailing dims of the input 2x8x64{{$}}
func.func @layer_norm_shape(%x: tensor<2x8x64xf32>) -> tensor<2x8x64xf32> {
  %y = ge.layer_norm %x {normalized_shape = array<i64: 32>, epsilon = 1.0e-05 : f64} : tensor<2x8x64xf32> -> tensor<2x8x64xf32>
  func.return %y : tensor<2x8x64xf32>
}

// -----

// CHECK: {{^}}ge.layer_norm: weight and bias must have shape 64, got 32{{$}}
func.func @layer_norm_weight(%x: tensor<2x8x64xf32>, %w: tensor<32xf32>) -> tensor<2x8x64xf32> {
  %y = ge.layer_norm %x, %w {normalized_shape = array<i64: 64>, epsilon = 1.0e-05 : f64} : tensor<2x8x64xf32>, tensor<32xf32> -> tensor<2x8x64xf32>
  func.return %y : tensor<2x8x64xf32>
}

// -----

// CHECK: {{^}}ge.softmax: dimension 2 is out of range for rank 2{{$}}
func.func @softmax_dim(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %y = ge.softmax %x {dim = 2 : i64} : tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

// CHECK: {{^}}ge.embedding: indices must have integer elements, got f32{{$}}
func.func @embedding_float_indices(%t: tensor<10x4xf32>, %i: tensor<3xf32>) -> tensor<3x4xf32> {
  %y = ge.embedding %t, %i : tensor<10x4xf32>, tensor<3xf32> -> tensor<3x4xf32>
  func.return %y : tensor<3x4xf32>
}

// -----

// CHECK: {{^}}ge.embedding: the table must be 2-D {{\[}}num, dim{{\]}}, got 10{{$}}
func.func @embedding_table_rank(%t: tensor<10xf32>, %i: tensor<3xi64>) -> tensor<3xf32> {
  %y = ge.embedding %t, %i : tensor<10xf32>, tensor<3xi64> -> tensor<3xf32>
  func.return %y : tensor<3xf32>
}
