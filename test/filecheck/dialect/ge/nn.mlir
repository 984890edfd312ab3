// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP

// Transposed convolution: weight is [in, out / groups, kh, kw]; stride 2 doubles H and W.
// CHECK-LABEL: func.func @conv_transpose2d(
// CHECK-NEXT:    %y = ge.conv_transpose2d %x, %w, %b {stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, output_padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x8x4x4xf32>, tensor<8x4x2x2xf32>, tensor<4xf32> -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    func.return %y : tensor<1x4x8x8xf32>
func.func @conv_transpose2d(%x: tensor<1x8x4x4xf32>, %w: tensor<8x4x2x2xf32>, %b: tensor<4xf32>) -> tensor<1x4x8x8xf32> {
  %y = ge.conv_transpose2d %x, %w, %b {stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, output_padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x8x4x4xf32>, tensor<8x4x2x2xf32>, tensor<4xf32> -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}

// Grouped, padded, with output_padding and no bias.
// CHECK-LABEL: func.func @conv_transpose2d_grouped(
// CHECK-NEXT:    %y = ge.conv_transpose2d %x, %w {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, output_padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 4 : i64} : tensor<?x8x5x5xf32>, tensor<8x2x3x3xf32> -> tensor<?x8x10x10xf32>
// CHECK-NEXT:    func.return %y : tensor<?x8x10x10xf32>
func.func @conv_transpose2d_grouped(%x: tensor<?x8x5x5xf32>, %w: tensor<8x2x3x3xf32>) -> tensor<?x8x10x10xf32> {
  %y = ge.conv_transpose2d %x, %w {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, output_padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 4 : i64} : tensor<?x8x5x5xf32>, tensor<8x2x3x3xf32> -> tensor<?x8x10x10xf32>
  func.return %y : tensor<?x8x10x10xf32>
}

// CHECK-LABEL: func.func @pools(
// CHECK-NEXT:    %a = ge.avg_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false, count_include_pad = true} : tensor<1x16x8x8xf32> -> tensor<1x16x4x4xf32>
// CHECK-NEXT:    %b = ge.avg_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, ceil_mode = true, count_include_pad = false} : tensor<1x16x8x8xf32> -> tensor<1x16x5x5xf32>
// CHECK-NEXT:    %c = ge.adaptive_max_pool2d %x {output_size = array<i64: 3, 5>} : tensor<1x16x8x8xf32> -> tensor<1x16x3x5xf32>
// CHECK-NEXT:    func.return %a, %b, %c : tensor<1x16x4x4xf32>, tensor<1x16x5x5xf32>, tensor<1x16x3x5xf32>
func.func @pools(%x: tensor<1x16x8x8xf32>) -> (tensor<1x16x4x4xf32>, tensor<1x16x5x5xf32>, tensor<1x16x3x5xf32>) {
  %a = ge.avg_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false, count_include_pad = true} : tensor<1x16x8x8xf32> -> tensor<1x16x4x4xf32>
  %b = ge.avg_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, ceil_mode = true, count_include_pad = false} : tensor<1x16x8x8xf32> -> tensor<1x16x5x5xf32>
  %c = ge.adaptive_max_pool2d %x {output_size = array<i64: 3, 5>} : tensor<1x16x8x8xf32> -> tensor<1x16x3x5xf32>
  func.return %a, %b, %c : tensor<1x16x4x4xf32>, tensor<1x16x5x5xf32>, tensor<1x16x3x5xf32>
}

// Resize to a size, or by a scale (floor(size * scale)); `?` stays `?`.
// CHECK-LABEL: func.func @interpolate(
// CHECK-NEXT:    %a = ge.interpolate %x {mode = "bilinear", align_corners = true, size = array<i64: 16, 12>} : tensor<1x8x7x7xf32> -> tensor<1x8x16x12xf32>
// CHECK-NEXT:    %b = ge.interpolate %x {mode = "nearest", align_corners = false, scale = array<f64: 1.500000e+00, 2.000000e+00>} : tensor<1x8x7x7xf32> -> tensor<1x8x10x14xf32>
// CHECK-NEXT:    %c = ge.interpolate %d {mode = "nearest", align_corners = false, scale = array<f64: 2.000000e+00, 2.000000e+00>} : tensor<1x8x?x7xf32> -> tensor<1x8x?x14xf32>
// CHECK-NEXT:    func.return %a, %b, %c : tensor<1x8x16x12xf32>, tensor<1x8x10x14xf32>, tensor<1x8x?x14xf32>
func.func @interpolate(%x: tensor<1x8x7x7xf32>, %d: tensor<1x8x?x7xf32>) -> (tensor<1x8x16x12xf32>, tensor<1x8x10x14xf32>, tensor<1x8x?x14xf32>) {
  %a = ge.interpolate %x {mode = "bilinear", align_corners = true, size = array<i64: 16, 12>} : tensor<1x8x7x7xf32> -> tensor<1x8x16x12xf32>
  %b = ge.interpolate %x {mode = "nearest", align_corners = false, scale = array<f64: 1.5, 2.0>} : tensor<1x8x7x7xf32> -> tensor<1x8x10x14xf32>
  %c = ge.interpolate %d {mode = "nearest", align_corners = false, scale = array<f64: 2.0, 2.0>} : tensor<1x8x?x7xf32> -> tensor<1x8x?x14xf32>
  func.return %a, %b, %c : tensor<1x8x16x12xf32>, tensor<1x8x10x14xf32>, tensor<1x8x?x14xf32>
}

// Weight and bias are optional (operandSegmentSizes records which are present).
// CHECK-LABEL: func.func @layer_norm(
// CHECK-NEXT:    %a = ge.layer_norm %x, %w, %b {normalized_shape = array<i64: 64>, epsilon = 1.000000e-05 : f64} : tensor<2x8x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<2x8x64xf32>
// CHECK-NEXT:    %c = ge.layer_norm %x {normalized_shape = array<i64: 64>, epsilon = 1.000000e-06 : f64} : tensor<2x8x64xf32> -> tensor<2x8x64xf32>
// CHECK-NEXT:    %d = ge.layer_norm %x, %w2 {normalized_shape = array<i64: 8, 64>, epsilon = 1.000000e-05 : f64} : tensor<2x8x64xf32>, tensor<8x64xf32> -> tensor<2x8x64xf32>
// CHECK-NEXT:    func.return %a, %c, %d : tensor<2x8x64xf32>, tensor<2x8x64xf32>, tensor<2x8x64xf32>
func.func @layer_norm(%x: tensor<2x8x64xf32>, %w: tensor<64xf32>, %b: tensor<64xf32>, %w2: tensor<8x64xf32>) -> (tensor<2x8x64xf32>, tensor<2x8x64xf32>, tensor<2x8x64xf32>) {
  %a = ge.layer_norm %x, %w, %b {normalized_shape = array<i64: 64>, epsilon = 1.0e-05 : f64} : tensor<2x8x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<2x8x64xf32>
  %c = ge.layer_norm %x {normalized_shape = array<i64: 64>, epsilon = 1.0e-06 : f64} : tensor<2x8x64xf32> -> tensor<2x8x64xf32>
  %d = ge.layer_norm %x, %w2 {normalized_shape = array<i64: 8, 64>, epsilon = 1.0e-05 : f64} : tensor<2x8x64xf32>, tensor<8x64xf32> -> tensor<2x8x64xf32>
  func.return %a, %c, %d : tensor<2x8x64xf32>, tensor<2x8x64xf32>, tensor<2x8x64xf32>
}

// `safe`: an all -inf slice gives 0 (SDPA's softmax), not NaN.
// CHECK-LABEL: func.func @softmax(
// CHECK-NEXT:    %y = ge.softmax %x {dim = -1 : i64} : tensor<2x4x?x8xf32>
// CHECK-NEXT:    %z = ge.softmax %x {dim = -1 : i64, safe} : tensor<2x4x?x8xf32>
// CHECK-NEXT:    func.return %y, %z : tensor<2x4x?x8xf32>, tensor<2x4x?x8xf32>
func.func @softmax(%x: tensor<2x4x?x8xf32>) -> (tensor<2x4x?x8xf32>, tensor<2x4x?x8xf32>) {
  %y = ge.softmax %x {dim = -1 : i64} : tensor<2x4x?x8xf32>
  %z = ge.softmax %x {dim = -1 : i64, safe} : tensor<2x4x?x8xf32>
  func.return %y, %z : tensor<2x4x?x8xf32>, tensor<2x4x?x8xf32>
}

// Embedding rows by i64 (or i32) indices: indices shape + [dim].
// CHECK-LABEL: func.func @embedding(
// CHECK-NEXT:    %y = ge.embedding %table, %ids : tensor<100x64xf32>, tensor<?x8xi64> -> tensor<?x8x64xf32>
// CHECK-NEXT:    %z = ge.embedding %table, %one : tensor<100x64xf32>, tensor<i32> -> tensor<64xf32>
// CHECK-NEXT:    func.return %y, %z : tensor<?x8x64xf32>, tensor<64xf32>
func.func @embedding(%table: tensor<100x64xf32>, %ids: tensor<?x8xi64>, %one: tensor<i32>) -> (tensor<?x8x64xf32>, tensor<64xf32>) {
  %y = ge.embedding %table, %ids : tensor<100x64xf32>, tensor<?x8xi64> -> tensor<?x8x64xf32>
  %z = ge.embedding %table, %one : tensor<100x64xf32>, tensor<i32> -> tensor<64xf32>
  func.return %y, %z : tensor<?x8x64xf32>, tensor<64xf32>
}
