// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK: {{^}}ge.trans_data: 1x3x8x8 in NC1HWC0 with C0 = 8 is 1x1x8x8x8, not 1x1x8x8x16{{$}}
func.func @wrong_c0(%x: tensor<1x3x8x8xf32>) -> tensor<1x1x8x8x16xf32> {
  %y = ge.trans_data %x {src_format = "NCHW", dst_format = "NC1HWC0"} : tensor<1x3x8x8xf32> -> tensor<1x1x8x8x16xf32>
  func.return %y : tensor<1x1x8x8x16xf32>
}

// -----

// CHECK: {{^}}ge.trans_data: 1x20x4x4 in NC1HWC0 with C0 = 8 is 1x3x4x4x8, not 1x2x4x4x8{{$}}
func.func @too_many_channels(%x: tensor<1x2x4x4x8xf32>) -> tensor<1x20x4x4xf32> {
  %y = ge.trans_data %x {src_format = "NC1HWC0", dst_format = "NCHW"} : tensor<1x2x4x4x8xf32> -> tensor<1x20x4x4xf32>
  func.return %y : tensor<1x20x4x4xf32>
}

// -----

// CHECK: {{^}}ge.trans_data: formats must be two different ones of NCHW, NC1HWC0, got NCHW -> NHWC{{$}}
func.func @unknown_format(%x: tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32> {
  %y = ge.trans_data %x {src_format = "NCHW", dst_format = "NHWC"} : tensor<1x3x8x8xf32> -> tensor<1x8x8x3xf32>
  func.return %y : tensor<1x8x8x3xf32>
}

// -----

// CHECK: {{^}}ge.conv2d: NC1HWC0 input has C1 = 2, but weight expects 3 x 1 groups = 3 channels (C1 = 1 at C0 = 8){{$}}
func.func @conv_c1_mismatch(%x: tensor<1x2x8x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x1x6x6x8xf32> {
  %y = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x2x8x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x1x6x6x8xf32>
  func.return %y : tensor<1x1x6x6x8xf32>
}
