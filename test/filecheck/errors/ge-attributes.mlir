// Invalid attributes: wrong attribute kind or element type, values out of
// range, a constant that is not a tensor. (ge-conv2d.mlir, ge-pooling.mlir and
// ge-window-params.mlir have more of the same family.)

// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK: {{^}}Expected attribute i64 but got i32{{$}}
func.func @stride_i32(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = ge.conv2d %x, %w {stride = array<i32: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

// CHECK: {{^}}dense<1> : tensor<2xi64> should be of base attribute array{{$}}
func.func @stride_dense(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = ge.conv2d %x, %w {stride = dense<1> : tensor<2xi64>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

// CHECK: {{^}}Expected attribute i64 but got i32{{$}}
func.func @groups_i32(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i32} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

// CHECK: {{^}}ge.conv2d: dilation must be >= 1, got 0{{$}}
func.func @conv_dilation_zero(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 0, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

// CHECK: {{^}}"small" should be of base attribute float{{$}}
func.func @epsilon_string(%x: tensor<1x4x8x8xf32>, %p: tensor<4xf32>) -> tensor<1x4x8x8xf32> {
  %y = ge.batch_norm %x, %p, %p, %p, %p {epsilon = "small"} : tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32> -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}

// -----

// CHECK: {{^}}Expected attribute i1 but got i64{{$}}
func.func @ceil_mode_integer(%x: tensor<1x8x8x8xf32>) -> tensor<1x8x4x4xf32> {
  %y = ge.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = 1 : i64} : tensor<1x8x8x8xf32> -> tensor<1x8x4x4xf32>
  func.return %y : tensor<1x8x4x4xf32>
}

// -----

// CHECK: {{^}}ge.max_pool2d: kernel size must be >= 1, got 0{{$}}
func.func @pool_kernel_zero(%x: tensor<1x8x8x8xf32>) -> tensor<1x8x4x4xf32> {
  %y = ge.max_pool2d %x {kernel_size = array<i64: 0, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = false} : tensor<1x8x8x8xf32> -> tensor<1x8x4x4xf32>
  func.return %y : tensor<1x8x4x4xf32>
}

// -----

// CHECK: {{^}}ge.max_pool2d: dilation must be >= 1, got 0{{$}}
func.func @pool_dilation_zero(%x: tensor<1x8x8x8xf32>) -> tensor<1x8x4x4xf32> {
  %y = ge.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 0>, ceil_mode = false} : tensor<1x8x8x8xf32> -> tensor<1x8x4x4xf32>
  func.return %y : tensor<1x8x4x4xf32>
}

// -----

// CHECK: {{^}}1.000000e+00 : f32 should be of base attribute integer{{$}}
func.func @flatten_float_dim(%x: tensor<2x3x4xf32>) -> tensor<2x12xf32> {
  %y = ge.flatten %x {start_dim = 1.0 : f32, end_dim = -1 : i64} : tensor<2x3x4xf32> -> tensor<2x12xf32>
  func.return %y : tensor<2x12xf32>
}

// -----

// CHECK: {{^}}ge.adaptive_avg_pool2d: output_size must be >= 1, got -1x1{{$}}
func.func @adaptive_negative(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x1x1xf32> {
  %y = ge.adaptive_avg_pool2d %x {output_size = array<i64: -1, 1>} : tensor<1x3x8x8xf32> -> tensor<1x3x1x1xf32>
  func.return %y : tensor<1x3x1x1xf32>
}

// -----

// CHECK: {{^}}3 : i64 should be of base attribute string{{$}}
func.func @fused_kind_integer(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = "ge.fused"(%x) <{kind = 3 : i64}> ({
  ^bb0(%a: tensor<4xf32>):
    ge.yield %a : tensor<4xf32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: {{^}}1 : i64 should be of base attribute string{{$}}
func.func @task_unit_integer(%x: memref<8xf32>, %o: memref<8xf32>) {
  ascend.task "relu_0" {unit = 1 : i64, stream = 0 : i64} ins(%x : memref<8xf32>) outs(%o : memref<8xf32>) {
  ^bb0(%a: tensor<8xf32>):
    ge.yield %a : tensor<8xf32>
  }
  func.return
}

// -----

// CHECK: {{^}}"start" should be of base attribute integer{{$}}
func.func @buffer_offset_string() {
  %b = ascend.buffer {offset = "start"} : memref<4xf32>
  func.return
}

// -----

// CHECK: {{^}}attribute tensor<2xf32> expected from variable 'T', but got vector<2xf32>{{$}}
func.func @const_not_a_tensor() -> tensor<2xf32> {
  %c = "ge.const"() <{value = dense<1.0> : vector<2xf32>}> : () -> tensor<2xf32>
  func.return %c : tensor<2xf32>
}
