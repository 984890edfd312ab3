// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Without ceil_mode the partial last window is dropped: 7 -> 3.
// CHECK: {{^}}ge.max_pool2d: result shape 1x8x4x4 does not match the inferred shape 1x8x3x3{{$}}
func.func @max_pool_ceil_shape(%x: tensor<1x8x7x7xf32>) -> tensor<1x8x4x4xf32> {
  %y = ge.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = false} : tensor<1x8x7x7xf32> -> tensor<1x8x4x4xf32>
  func.return %y : tensor<1x8x4x4xf32>
}

// -----

// CHECK: {{^}}ge.max_pool2d: padding 2 is more than half the kernel size 3{{$}}
func.func @max_pool_padding(%x: tensor<1x8x8x8xf32>) -> tensor<1x8x5x5xf32> {
  %y = ge.max_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 2, 2>, dilation = array<i64: 1, 1>, ceil_mode = false} : tensor<1x8x8x8xf32> -> tensor<1x8x5x5xf32>
  func.return %y : tensor<1x8x5x5xf32>
}

// -----

// CHECK: {{^}}ge.max_pool2d: kernel_size must have 2 entries, got 1{{$}}
func.func @max_pool_kernel_length(%x: tensor<1x8x8x8xf32>) -> tensor<1x8x4x4xf32> {
  %y = ge.max_pool2d %x {kernel_size = array<i64: 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = false} : tensor<1x8x8x8xf32> -> tensor<1x8x4x4xf32>
  func.return %y : tensor<1x8x4x4xf32>
}

// -----

// CHECK: {{^}}ge.max_pool2d: pooling expects a 4-D NCHW or 5-D NC1HWC0 input, got 8x8x8{{$}}
func.func @max_pool_rank(%x: tensor<8x8x8xf32>) -> tensor<8x4x4xf32> {
  %y = ge.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = false} : tensor<8x8x8xf32> -> tensor<8x4x4xf32>
  func.return %y : tensor<8x4x4xf32>
}

// -----

// CHECK: {{^}}ge.max_pool2d: operand element type f16 differs from result element type f32{{$}}
func.func @max_pool_element_type(%x: tensor<1x8x8x8xf16>) -> tensor<1x8x4x4xf32> {
  %y = ge.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = false} : tensor<1x8x8x8xf16> -> tensor<1x8x4x4xf32>
  func.return %y : tensor<1x8x4x4xf32>
}

// -----

// Pooling keeps the channel count.
// CHECK: {{^}}ge.max_pool2d: result shape 1x4x4x4 does not match the inferred shape 1x8x4x4{{$}}
func.func @max_pool_channels(%x: tensor<1x8x8x8xf32>) -> tensor<1x4x4x4xf32> {
  %y = ge.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = false} : tensor<1x8x8x8xf32> -> tensor<1x4x4x4xf32>
  func.return %y : tensor<1x4x4x4xf32>
}

// -----

// CHECK: {{^}}ge.adaptive_avg_pool2d: result shape 1x512x2x2 does not match the inferred shape 1x512x1x1{{$}}
func.func @adaptive_shape(%x: tensor<1x512x7x7xf32>) -> tensor<1x512x2x2xf32> {
  %y = ge.adaptive_avg_pool2d %x {output_size = array<i64: 1, 1>} : tensor<1x512x7x7xf32> -> tensor<1x512x2x2xf32>
  func.return %y : tensor<1x512x2x2xf32>
}

// -----

// CHECK: {{^}}ge.adaptive_avg_pool2d: expects a 3-D, 4-D or NC1HWC0 input and 2 output sizes, got 7x7 and 2 sizes{{$}}
func.func @adaptive_rank(%x: tensor<7x7xf32>) -> tensor<1x1xf32> {
  %y = ge.adaptive_avg_pool2d %x {output_size = array<i64: 1, 1>} : tensor<7x7xf32> -> tensor<1x1xf32>
  func.return %y : tensor<1x1xf32>
}

// -----

// CHECK: {{^}}ge.adaptive_avg_pool2d: expects a 3-D, 4-D or NC1HWC0 input and 2 output sizes, got 1x4x7x7 and 3 sizes{{$}}
func.func @adaptive_sizes(%x: tensor<1x4x7x7xf32>) -> tensor<1x4x1x1xf32> {
  %y = ge.adaptive_avg_pool2d %x {output_size = array<i64: 1, 1, 1>} : tensor<1x4x7x7xf32> -> tensor<1x4x1x1xf32>
  func.return %y : tensor<1x4x1x1xf32>
}
