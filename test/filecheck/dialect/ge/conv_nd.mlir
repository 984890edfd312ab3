// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP

// 1-D and 3-D convolutions keep the rank the user wrote.
// CHECK-LABEL: func.func @conv(
// CHECK-NEXT:    %y = ge.conv1d %x, %w {stride = array<i64: 5>, padding = array<i64: 0>, dilation = array<i64: 1>, groups = 1 : i64} : tensor<1x1x800xf32>, tensor<16x1x10xf32> -> tensor<1x16x159xf32>
// CHECK-NEXT:    %z = ge.conv3d %v, %k, %b {stride = array<i64: 1, 1, 1>, padding = array<i64: 1, 1, 1>, dilation = array<i64: 1, 1, 1>, groups = 2 : i64} : tensor<1x4x5x5x5xf32>, tensor<6x2x3x3x3xf32>, tensor<6xf32> -> tensor<1x6x5x5x5xf32>
// CHECK-NEXT:    func.return %y, %z : tensor<1x16x159xf32>, tensor<1x6x5x5x5xf32>
func.func @conv(%x: tensor<1x1x800xf32>, %w: tensor<16x1x10xf32>, %v: tensor<1x4x5x5x5xf32>, %k: tensor<6x2x3x3x3xf32>, %b: tensor<6xf32>) -> (tensor<1x16x159xf32>, tensor<1x6x5x5x5xf32>) {
  %y = ge.conv1d %x, %w {stride = array<i64: 5>, padding = array<i64: 0>, dilation = array<i64: 1>, groups = 1 : i64} : tensor<1x1x800xf32>, tensor<16x1x10xf32> -> tensor<1x16x159xf32>
  %z = ge.conv3d %v, %k, %b {stride = array<i64: 1, 1, 1>, padding = array<i64: 1, 1, 1>, dilation = array<i64: 1, 1, 1>, groups = 2 : i64} : tensor<1x4x5x5x5xf32>, tensor<6x2x3x3x3xf32>, tensor<6xf32> -> tensor<1x6x5x5x5xf32>
  func.return %y, %z : tensor<1x16x159xf32>, tensor<1x6x5x5x5xf32>
}

// 3-D pooling, PyTorch's window rules.
// CHECK-LABEL: func.func @pool3d(
// CHECK-NEXT:    %m = ge.max_pool3d %x {kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>, ceil_mode = false} : tensor<1x4x4x4x4xf32> -> tensor<1x4x2x2x2xf32>
// CHECK-NEXT:    %a = ge.avg_pool3d %x {kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>, padding = array<i64: 1, 1, 1>, ceil_mode = false, count_include_pad = true} : tensor<1x4x4x4x4xf32> -> tensor<1x4x3x3x3xf32>
// CHECK-NEXT:    func.return %m, %a : tensor<1x4x2x2x2xf32>, tensor<1x4x3x3x3xf32>
func.func @pool3d(%x: tensor<1x4x4x4x4xf32>) -> (tensor<1x4x2x2x2xf32>, tensor<1x4x3x3x3xf32>) {
  %m = ge.max_pool3d %x {kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>, ceil_mode = false} : tensor<1x4x4x4x4xf32> -> tensor<1x4x2x2x2xf32>
  %a = ge.avg_pool3d %x {kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>, padding = array<i64: 1, 1, 1>, ceil_mode = false, count_include_pad = true} : tensor<1x4x4x4x4xf32> -> tensor<1x4x3x3x3xf32>
  func.return %m, %a : tensor<1x4x2x2x2xf32>, tensor<1x4x3x3x3xf32>
}

// Group, instance and RMS norms.
// CHECK-LABEL: func.func @norms(
// CHECK-NEXT:    %gn = ge.group_norm %x, %w, %b {num_groups = 2 : i64, epsilon = 1.000000e-05 : f64} : tensor<2x4x5x5xf32>, tensor<4xf32>, tensor<4xf32> -> tensor<2x4x5x5xf32>
// CHECK-NEXT:    %in = ge.instance_norm %x {epsilon = 1.000000e-05 : f64} : tensor<2x4x5x5xf32> -> tensor<2x4x5x5xf32>
// CHECK-NEXT:    %rn = ge.rms_norm %h, %g {normalized_shape = array<i64: 64>, epsilon = 1.000000e-06 : f64} : tensor<2x8x64xf32>, tensor<64xf32> -> tensor<2x8x64xf32>
// CHECK-NEXT:    func.return %gn, %in, %rn : tensor<2x4x5x5xf32>, tensor<2x4x5x5xf32>, tensor<2x8x64xf32>
func.func @norms(%x: tensor<2x4x5x5xf32>, %w: tensor<4xf32>, %b: tensor<4xf32>, %h: tensor<2x8x64xf32>, %g: tensor<64xf32>) -> (tensor<2x4x5x5xf32>, tensor<2x4x5x5xf32>, tensor<2x8x64xf32>) {
  %gn = ge.group_norm %x, %w, %b {num_groups = 2 : i64, epsilon = 1.0e-05 : f64} : tensor<2x4x5x5xf32>, tensor<4xf32>, tensor<4xf32> -> tensor<2x4x5x5xf32>
  %in = ge.instance_norm %x {epsilon = 1.0e-05 : f64} : tensor<2x4x5x5xf32> -> tensor<2x4x5x5xf32>
  %rn = ge.rms_norm %h, %g {normalized_shape = array<i64: 64>, epsilon = 1.0e-06 : f64} : tensor<2x8x64xf32>, tensor<64xf32> -> tensor<2x8x64xf32>
  func.return %gn, %in, %rn : tensor<2x4x5x5xf32>, tensor<2x4x5x5xf32>, tensor<2x8x64xf32>
}

// Max pooling that returns indices too, as torch's return_indices does.
// CHECK-LABEL: func.func @pool_indices(
// CHECK-NEXT:    %y, %i = ge.max_pool2d_with_indices %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = false} : tensor<1x4x8x8xf32> -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>)
// CHECK-NEXT:    func.return %y, %i : tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>
func.func @pool_indices(%x: tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>) {
  %y, %i = ge.max_pool2d_with_indices %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = false} : tensor<1x4x8x8xf32> -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>)
  func.return %y, %i : tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>
}

// Grid sampling: the output takes the grid's spatial shape.
// CHECK-LABEL: func.func @grid(
// CHECK-NEXT:    %y = ge.grid_sample %x, %g {mode = "bilinear", padding_mode = "zeros", align_corners = false} : tensor<1x3x8x8xf32>, tensor<1x4x5x2xf32> -> tensor<1x3x4x5xf32>
// CHECK-NEXT:    func.return %y : tensor<1x3x4x5xf32>
func.func @grid(%x: tensor<1x3x8x8xf32>, %g: tensor<1x4x5x2xf32>) -> tensor<1x3x4x5xf32> {
  %y = ge.grid_sample %x, %g {mode = "bilinear", padding_mode = "zeros", align_corners = false} : tensor<1x3x8x8xf32>, tensor<1x4x5x2xf32> -> tensor<1x3x4x5xf32>
  func.return %y : tensor<1x3x4x5xf32>
}
