// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP

// NCHW -> NC1HWC0: C0 is 32 bytes of elements (8 for f32, 16 for f16), C1 rounds up.
// CHECK-LABEL: func.func @to_5hd(
// CHECK-NEXT:    %a = ge.trans_data %x {src_format = "NCHW", dst_format = "NC1HWC0"} : tensor<1x3x8x8xf32> -> tensor<1x1x8x8x8xf32>
// CHECK-NEXT:    %b = ge.trans_data %h {src_format = "NCHW", dst_format = "NC1HWC0"} : tensor<2x40x4x4xf16> -> tensor<2x3x4x4x16xf16>
func.func @to_5hd(%x: tensor<1x3x8x8xf32>, %h: tensor<2x40x4x4xf16>) -> (tensor<1x1x8x8x8xf32>, tensor<2x3x4x4x16xf16>) {
  %a = ge.trans_data %x {src_format = "NCHW", dst_format = "NC1HWC0"} : tensor<1x3x8x8xf32> -> tensor<1x1x8x8x8xf32>
  %b = ge.trans_data %h {src_format = "NCHW", dst_format = "NC1HWC0"} : tensor<2x40x4x4xf16> -> tensor<2x3x4x4x16xf16>
  func.return %a, %b : tensor<1x1x8x8x8xf32>, tensor<2x3x4x4x16xf16>
}

// NC1HWC0 -> NCHW keeps the channels the result type names; dynamic batch is fine.
// CHECK-LABEL: func.func @to_nchw(
// CHECK-NEXT:    %y = ge.trans_data %x {src_format = "NC1HWC0", dst_format = "NCHW"} : tensor<?x2x4x4x8xf32> -> tensor<?x12x4x4xf32>
func.func @to_nchw(%x: tensor<?x2x4x4x8xf32>) -> tensor<?x12x4x4xf32> {
  %y = ge.trans_data %x {src_format = "NC1HWC0", dst_format = "NCHW"} : tensor<?x2x4x4x8xf32> -> tensor<?x12x4x4xf32>
  func.return %y : tensor<?x12x4x4xf32>
}

// Conv and pooling on NC1HWC0 infer NC1HWC0 results.
// CHECK-LABEL: func.func @ops_5hd(
// CHECK-NEXT:    %c = ge.conv2d %x, %w {{.*}} : tensor<1x1x8x8x8xf32>, tensor<12x3x3x3xf32> -> tensor<1x2x6x6x8xf32>
// CHECK-NEXT:    %p = ge.max_pool2d %c {{.*}} : tensor<1x2x6x6x8xf32> -> tensor<1x2x3x3x8xf32>
// CHECK-NEXT:    %g = ge.adaptive_avg_pool2d %p {output_size = array<i64: 1, 1>} : tensor<1x2x3x3x8xf32> -> tensor<1x2x1x1x8xf32>
func.func @ops_5hd(%x: tensor<1x1x8x8x8xf32>, %w: tensor<12x3x3x3xf32>) -> tensor<1x2x1x1x8xf32> {
  %c = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1x8x8x8xf32>, tensor<12x3x3x3xf32> -> tensor<1x2x6x6x8xf32>
  %p = ge.max_pool2d %c {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = false} : tensor<1x2x6x6x8xf32> -> tensor<1x2x3x3x8xf32>
  %g = ge.adaptive_avg_pool2d %p {output_size = array<i64: 1, 1>} : tensor<1x2x3x3x8xf32> -> tensor<1x2x1x1x8xf32>
  func.return %g : tensor<1x2x1x1x8xf32>
}
