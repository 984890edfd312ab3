// Window parameters PyTorch would reject (zero stride, negative padding,
// dilation < 1) are diagnostics, not crashes in the shape rule.

// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK: {{^}}ge.conv2d: {{.*}}stride
func.func @conv2d_zero_stride(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = ge.conv2d %x, %w {stride = array<i64: 0, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

// CHECK: {{^}}ge.max_pool2d: {{.*}}stride
func.func @max_pool2d_zero_stride(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x6x6xf32> {
  %y = ge.max_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 0, 0>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = false} : tensor<1x3x8x8xf32> -> tensor<1x3x6x6xf32>
  func.return %y : tensor<1x3x6x6xf32>
}

// -----

// CHECK: {{^}}ge.conv2d: padding must be >= 0, got -1
func.func @conv2d_negative_padding(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x4x6xf32> {
  %y = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: -1, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x4x6xf32>
  func.return %y : tensor<1x4x4x6xf32>
}

// -----

// CHECK: {{^}}ge.adaptive_avg_pool2d: output_size must be >= 1, got 0x1
func.func @adaptive_zero(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x0x1xf32> {
  %y = ge.adaptive_avg_pool2d %x {output_size = array<i64: 0, 1>} : tensor<1x3x8x8xf32> -> tensor<1x3x0x1xf32>
  func.return %y : tensor<1x3x0x1xf32>
}

// -----

// CHECK: {{^}}ge.yield must be the terminator of ge.fused or ge.if or ge.while or ascend.task, not of func.func
func.func @stray_yield(%x: tensor<4xf32>) -> tensor<4xf32> {
  ge.yield %x : tensor<4xf32>
}

// -----

// CHECK: {{^}}ascend.record_event: event must be >= 0
func.func @negative_event() {
  ascend.record_event {event = -1 : i64, stream = 0 : i64}
  func.return
}

// -----

// i1 takes a byte per element, so 1024 of them do not fit in 16 bytes.
// CHECK: {{^}}ascend.buffer: bytes [0, 1024) exceed the arena of 16 bytes
func.func @bool_buffer() attributes {ascend.arena_size = 16 : i64} {
  %b = ascend.buffer {offset = 0 : i64} : memref<1024xi1>
  func.return
}
