// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP
// RUN: ge-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// The bias is an optional operand: operandSegmentSizes records whether it is there.
// CHECK-LABEL: func.func @conv2d_bias(
// CHECK-NEXT:    %y = ge.conv2d %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32> -> tensor<1x4x6x6xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "conv2d_bias"
// GENERIC:         %y = "ge.conv2d"(%x, %w, %b) <{stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
func.func @conv2d_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x6x6xf32> {
  %y = ge.conv2d %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32> -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// CHECK-LABEL: func.func @conv2d_no_bias(
// CHECK-NEXT:    %y = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "conv2d_no_bias"
// GENERIC:         %y = "ge.conv2d"(%x, %w) <{stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
func.func @conv2d_no_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// ResNet stem: 7x7, stride 2, padding 3 halves 224 to 112.
// CHECK-LABEL: func.func @conv2d_strided_padded(
// CHECK-NEXT:    %y = ge.conv2d %x, %w {stride = array<i64: 2, 2>, padding = array<i64: 3, 3>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32> -> tensor<1x64x112x112xf32>
func.func @conv2d_strided_padded(%x: tensor<1x3x224x224xf32>, %w: tensor<64x3x7x7xf32>) -> tensor<1x64x112x112xf32> {
  %y = ge.conv2d %x, %w {stride = array<i64: 2, 2>, padding = array<i64: 3, 3>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32> -> tensor<1x64x112x112xf32>
  func.return %y : tensor<1x64x112x112xf32>
}

// Per-axis parameters: H uses stride 2 and padding 1, W stride 1 and padding 0.
// CHECK-LABEL: func.func @conv2d_asymmetric(
// CHECK-NEXT:    %y = ge.conv2d %x, %w {stride = array<i64: 2, 1>, padding = array<i64: 1, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x9x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x5x6xf32>
func.func @conv2d_asymmetric(%x: tensor<1x3x9x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x5x6xf32> {
  %y = ge.conv2d %x, %w {stride = array<i64: 2, 1>, padding = array<i64: 1, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x9x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x5x6xf32>
  func.return %y : tensor<1x4x5x6xf32>
}

// Dilation 2 makes the 3x3 kernel span 5, so padding 2 keeps 16x16.
// CHECK-LABEL: func.func @conv2d_dilated(
// CHECK-NEXT:    %y = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 2, 2>, dilation = array<i64: 2, 2>, groups = 1 : i64} : tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32> -> tensor<1x8x16x16xf32>
func.func @conv2d_dilated(%x: tensor<1x8x16x16xf32>, %w: tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32> {
  %y = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 2, 2>, dilation = array<i64: 2, 2>, groups = 1 : i64} : tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32> -> tensor<1x8x16x16xf32>
  func.return %y : tensor<1x8x16x16xf32>
}

// 4 groups of 2 input channels each.
// CHECK-LABEL: func.func @conv2d_grouped(
// CHECK-NEXT:    %y = ge.conv2d %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 4 : i64} : tensor<1x8x8x8xf32>, tensor<8x2x3x3xf32>, tensor<8xf32> -> tensor<1x8x8x8xf32>
func.func @conv2d_grouped(%x: tensor<1x8x8x8xf32>, %w: tensor<8x2x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x8x8xf32> {
  %y = ge.conv2d %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 4 : i64} : tensor<1x8x8x8xf32>, tensor<8x2x3x3xf32>, tensor<8xf32> -> tensor<1x8x8x8xf32>
  func.return %y : tensor<1x8x8x8xf32>
}

// Depthwise: groups equals the channel count, one input channel per filter.
// CHECK-LABEL: func.func @conv2d_depthwise(
// CHECK-NEXT:    %y = ge.conv2d %x, %w {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 32 : i64} : tensor<1x32x16x16xf32>, tensor<32x1x3x3xf32> -> tensor<1x32x8x8xf32>
func.func @conv2d_depthwise(%x: tensor<1x32x16x16xf32>, %w: tensor<32x1x3x3xf32>) -> tensor<1x32x8x8xf32> {
  %y = ge.conv2d %x, %w {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 32 : i64} : tensor<1x32x16x16xf32>, tensor<32x1x3x3xf32> -> tensor<1x32x8x8xf32>
  func.return %y : tensor<1x32x8x8xf32>
}

// A dynamic batch or spatial dim stays dynamic; the static ones are still inferred.
// CHECK-LABEL: func.func @conv2d_dynamic(
// CHECK-NEXT:    %y = ge.conv2d %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32> -> tensor<?x4x6x6xf32>
// CHECK-NEXT:    %z = ge.conv2d %h, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x?x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x?x6xf32>
func.func @conv2d_dynamic(%x: tensor<?x3x8x8xf32>, %h: tensor<1x3x?x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> (tensor<?x4x6x6xf32>, tensor<1x4x?x6xf32>) {
  %y = ge.conv2d %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32> -> tensor<?x4x6x6xf32>
  %z = ge.conv2d %h, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x?x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x?x6xf32>
  func.return %y, %z : tensor<?x4x6x6xf32>, tensor<1x4x?x6xf32>
}

// CHECK-LABEL: func.func @conv2d_f16(
// CHECK-NEXT:    %y = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<2x3x8x8xf16>, tensor<4x3x3x3xf16> -> tensor<2x4x8x8xf16>
func.func @conv2d_f16(%x: tensor<2x3x8x8xf16>, %w: tensor<4x3x3x3xf16>) -> tensor<2x4x8x8xf16> {
  %y = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<2x3x8x8xf16>, tensor<4x3x3x3xf16> -> tensor<2x4x8x8xf16>
  func.return %y : tensor<2x4x8x8xf16>
}
