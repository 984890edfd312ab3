// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP

// ResNet: 3x3, stride 2, padding 1 halves 112 to 56.
// CHECK-LABEL: func.func @max_pool2d(
// CHECK-NEXT:    %y = ge.max_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, ceil_mode = false} : tensor<1x64x112x112xf32> -> tensor<1x64x56x56xf32>
func.func @max_pool2d(%x: tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32> {
  %y = ge.max_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, ceil_mode = false} : tensor<1x64x112x112xf32> -> tensor<1x64x56x56xf32>
  func.return %y : tensor<1x64x56x56xf32>
}

// ceil_mode keeps the partial last window: 7 -> 4 instead of 3.
// CHECK-LABEL: func.func @max_pool2d_ceil(
// CHECK-NEXT:    %y = ge.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = true} : tensor<1x8x7x7xf32> -> tensor<1x8x4x4xf32>
// CHECK-NEXT:    %z = ge.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = false} : tensor<1x8x7x7xf32> -> tensor<1x8x3x3xf32>
func.func @max_pool2d_ceil(%x: tensor<1x8x7x7xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x3x3xf32>) {
  %y = ge.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = true} : tensor<1x8x7x7xf32> -> tensor<1x8x4x4xf32>
  %z = ge.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = false} : tensor<1x8x7x7xf32> -> tensor<1x8x3x3xf32>
  func.return %y, %z : tensor<1x8x4x4xf32>, tensor<1x8x3x3xf32>
}

// PyTorch drops a ceil_mode window that would start in the padding: 5 -> 3, not 4.
// CHECK-LABEL: func.func @max_pool2d_ceil_drops_padding_window(
// CHECK-NEXT:    %y = ge.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, ceil_mode = true} : tensor<1x1x5x5xf32> -> tensor<1x1x3x3xf32>
func.func @max_pool2d_ceil_drops_padding_window(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32> {
  %y = ge.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, ceil_mode = true} : tensor<1x1x5x5xf32> -> tensor<1x1x3x3xf32>
  func.return %y : tensor<1x1x3x3xf32>
}

// CHECK-LABEL: func.func @max_pool2d_dilated_dynamic(
// CHECK-NEXT:    %y = ge.max_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 2, 2>, ceil_mode = false} : tensor<?x4x8x8xf32> -> tensor<?x4x6x6xf32>
func.func @max_pool2d_dilated_dynamic(%x: tensor<?x4x8x8xf32>) -> tensor<?x4x6x6xf32> {
  %y = ge.max_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 2, 2>, ceil_mode = false} : tensor<?x4x8x8xf32> -> tensor<?x4x6x6xf32>
  func.return %y : tensor<?x4x6x6xf32>
}
