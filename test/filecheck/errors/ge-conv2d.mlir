// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK: {{^}}ge.conv2d: result shape 1x4x8x8 does not match the inferred shape 1x4x6x6{{$}}
func.func @result_shape(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  %y = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}

// -----

// CHECK: {{^}}ge.conv2d: operand element type f16 differs from result element type f32{{$}}
func.func @element_type(%x: tensor<1x3x8x8xf16>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf16>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

// CHECK: {{^}}ge.conv2d: stride must have 2 entries, got 3{{$}}
func.func @stride_length(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = ge.conv2d %x, %w {stride = array<i64: 1, 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

// CHECK: {{^}}ge.conv2d: padding must have 2 entries, got 1{{$}}
func.func @padding_length(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

// CHECK: {{^}}ge.conv2d: groups must be >= 1, got 0{{$}}
func.func @groups_zero(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 0 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

// 6 input channels = 2 per group x 3 groups, but 4 filters do not split into 3 groups.
// CHECK: {{^}}ge.conv2d: 4 output channels are not divisible by groups = 3{{$}}
func.func @groups_out_channels(%x: tensor<1x6x8x8xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 3 : i64} : tensor<1x6x8x8xf32>, tensor<4x2x3x3xf32> -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

// CHECK: {{^}}ge.conv2d: input has 8 channels but weight expects 2 x 2 groups = 4{{$}}
func.func @groups_in_channels(%x: tensor<1x8x8x8xf32>, %w: tensor<8x2x3x3xf32>) -> tensor<1x8x6x6xf32> {
  %y = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 2 : i64} : tensor<1x8x8x8xf32>, tensor<8x2x3x3xf32> -> tensor<1x8x6x6xf32>
  func.return %y : tensor<1x8x6x6xf32>
}

// -----

// CHECK: {{^}}ge.conv2d: bias must be a 4-element vector, got 5{{$}}
func.func @bias_length(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<5xf32>) -> tensor<1x4x6x6xf32> {
  %y = ge.conv2d %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<5xf32> -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

// Dilation 2 spreads the 3x3 kernel over 5x5, larger than the 4x4 input.
// CHECK: {{^}}ge.conv2d: window of extent 5 does not fit input of size 4 with padding 0{{$}}
func.func @kernel_too_big(%x: tensor<1x3x4x4xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x1x1xf32> {
  %y = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 2, 2>, groups = 1 : i64} : tensor<1x3x4x4xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x1x1xf32>
  func.return %y : tensor<1x4x1x1xf32>
}

// -----

// CHECK: {{^}}ge.conv2d: conv2d expects a 4-D (or NC1HWC0) input and a 4-D weight, got 3x8x8 and 4x3x3x3{{$}}
func.func @rank(%x: tensor<3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<4x6x6xf32> {
  %y = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<4x6x6xf32>
  func.return %y : tensor<4x6x6xf32>
}

// -----

// Every parameter is required; there are no defaults in the IR.
// CHECK: {{^}}property 'groups' expected in operation 'ge.conv2d'{{$}}
func.func @missing_groups(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

// CHECK: {{^}}Expected attribute i64 but got i32{{$}}
func.func @stride_element_type(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = ge.conv2d %x, %w {stride = array<i32: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

// Array parameters are dense arrays: `[1, 1]` is an ArrayAttr and is rejected.
// CHECK: {{^}}[1 : i64, 1 : i64] should be of base attribute array{{$}}
func.func @stride_as_list(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = ge.conv2d %x, %w {stride = [1, 1], padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}
