// RUN: ge-opt %s --split-input-file -p layout-transform | filecheck %s

// A conv goes 5-D with explicit conversions; the back conversion sinks
// through relu and max pooling; f32 uses C0 = 8 (32 bytes).
// CHECK-LABEL: func.func @conv_relu_pool
// CHECK-NEXT:    %w = ge.const
// CHECK-NEXT:    %[[X:.*]] = ge.trans_data %x {src_format = "NCHW", dst_format = "NC1HWC0"} : tensor<1x3x8x8xf32> -> tensor<1x1x8x8x8xf32>
// CHECK-NEXT:    %[[C:.*]] = ge.conv2d %[[X]], %w {{.*}} : tensor<1x1x8x8x8xf32>, tensor<12x3x3x3xf32> -> tensor<1x2x8x8x8xf32>
// CHECK-NEXT:    %[[R:.*]] = ge.relu %[[C]] : tensor<1x2x8x8x8xf32>
// CHECK-NEXT:    %[[P:.*]] = ge.max_pool2d %[[R]] {{.*}} : tensor<1x2x8x8x8xf32> -> tensor<1x2x4x4x8xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.trans_data %[[P]] {src_format = "NC1HWC0", dst_format = "NCHW"} : tensor<1x2x4x4x8xf32> -> tensor<1x12x4x4xf32>
// CHECK-NEXT:    func.return %[[B]] :
func.func @conv_relu_pool(%x: tensor<1x3x8x8xf32>) -> tensor<1x12x4x4xf32> {
  %w = ge.const dense<0.5> : tensor<12x3x3x3xf32>
  %c = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<12x3x3x3xf32> -> tensor<1x12x8x8xf32>
  %r = ge.relu %c : tensor<1x12x8x8xf32>
  %p = ge.max_pool2d %r {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = false} : tensor<1x12x8x8xf32> -> tensor<1x12x4x4xf32>
  func.return %p : tensor<1x12x4x4xf32>
}

// -----

// Back-to-back convs and a residual add stay 5-D: the conversions in between cancel.
// CHECK-LABEL: func.func @residual
// CHECK-COUNT-1: ge.trans_data %x {src_format = "NCHW", dst_format = "NC1HWC0"}
// CHECK-NOT:     dst_format = "NCHW"
// CHECK:         ge.add {{.*}} : tensor<1x1x4x4x8xf32>, tensor<1x1x4x4x8xf32> -> tensor<1x1x4x4x8xf32>
// CHECK-NEXT:    ge.trans_data {{.*}} {src_format = "NC1HWC0", dst_format = "NCHW"}
// CHECK-NEXT:    func.return
func.func @residual(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %w = ge.const dense<0.1> : tensor<8x8x1x1xf32>
  %a = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32> -> tensor<1x8x4x4xf32>
  %b = ge.conv2d %a, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32> -> tensor<1x8x4x4xf32>
  %s = ge.add %b, %x : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32> -> tensor<1x8x4x4xf32>
  func.return %s : tensor<1x8x4x4xf32>
}

// -----

// Negative: a broadcasting add, flatten and linear need NCHW; the conversion
// back stays right before them.
// CHECK-LABEL: func.func @boundary
// CHECK:         %[[C:.*]] = ge.conv2d
// CHECK-NEXT:    %[[B:.*]] = ge.trans_data %[[C]] {src_format = "NC1HWC0", dst_format = "NCHW"}
// CHECK-NEXT:    ge.add %[[B]], %bias : tensor<1x8x4x4xf32>, tensor<8x1x1xf32>
// CHECK-NEXT:    ge.flatten
// CHECK-NEXT:    ge.linear
func.func @boundary(%x: tensor<1x8x4x4xf32>) -> tensor<1x2xf32> {
  %w = ge.const dense<0.1> : tensor<8x8x1x1xf32>
  %bias = ge.const dense<1.0> : tensor<8x1x1xf32>
  %fw = ge.const dense<0.1> : tensor<2x128xf32>
  %c = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32> -> tensor<1x8x4x4xf32>
  %a = ge.add %c, %bias : tensor<1x8x4x4xf32>, tensor<8x1x1xf32> -> tensor<1x8x4x4xf32>
  %f = ge.flatten %a {start_dim = 1 : i64, end_dim = -1 : i64} : tensor<1x8x4x4xf32> -> tensor<1x128xf32>
  %y = ge.linear %f, %fw : tensor<1x128xf32>, tensor<2x128xf32> -> tensor<1x2xf32>
  func.return %y : tensor<1x2xf32>
}

// -----

// Negative: without a conv nothing changes.
// CHECK-LABEL: func.func @no_conv
// CHECK-NOT:     ge.trans_data
func.func @no_conv(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x2x2xf32> {
  %r = ge.relu %x : tensor<1x8x4x4xf32>
  %p = ge.max_pool2d %r {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = false} : tensor<1x8x4x4xf32> -> tensor<1x8x2x2xf32>
  func.return %p : tensor<1x8x2x2xf32>
}
