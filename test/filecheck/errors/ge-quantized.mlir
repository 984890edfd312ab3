// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK: {{^}}ge.quantized_linear: the output (with output_scale) must have i8 or ui8 elements, got f32{{$}}
func.func @f32_out_with_scale(%x: tensor<2x8xi8>, %w: tensor<4x8xi8>, %s: tensor<4xf32>) -> tensor<2x4xf32> {
  %y = ge.quantized_linear %x, %w, %s {input_scale = 0.02 : f32, output_scale = 0.1 : f32} : tensor<2x8xi8>, tensor<4x8xi8>, tensor<4xf32> -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}

// -----

// CHECK: {{^}}ge.quantized_linear: weight must have i8 elements, got f32{{$}}
func.func @float_weight(%x: tensor<2x8xi8>, %w: tensor<4x8xf32>, %s: tensor<4xf32>) -> tensor<2x4xf32> {
  %y = ge.quantized_linear %x, %w, %s {input_scale = 0.02 : f32} : tensor<2x8xi8>, tensor<4x8xf32>, tensor<4xf32> -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}

// -----

// CHECK: {{^}}ge.quantized_conv2d: weight_scale must have shape [4], got 3{{$}}
func.func @scale_per_channel(%x: tensor<1x3x8x8xi8>, %w: tensor<4x3x3x3xi8>, %s: tensor<3xf32>) -> tensor<1x4x6x6xf32> {
  %y = ge.quantized_conv2d %x, %w, %s {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, input_scale = 0.02 : f32} : tensor<1x3x8x8xi8>, tensor<4x3x3x3xi8>, tensor<3xf32> -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

// CHECK: {{^}}ge.quantized_conv2d: input_scale must be a positive f32, got -2.000000e-02 : f32{{$}}
func.func @negative_scale(%x: tensor<1x3x8x8xi8>, %w: tensor<4x3x3x3xi8>, %s: tensor<4xf32>) -> tensor<1x4x6x6xf32> {
  %y = ge.quantized_conv2d %x, %w, %s {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, input_scale = -0.02 : f32} : tensor<1x3x8x8xi8>, tensor<4x3x3x3xi8>, tensor<4xf32> -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

// CHECK: {{^}}ge.quantized_linear: activation must name an activation op (ge.relu, ge.sigmoid, ge.tanh, ge.silu, ge.hardswish, ge.hardsigmoid, ge.gelu, ge.clamp), without relu; got ge.exp{{$}}
func.func @not_an_activation(%x: tensor<2x8xi8>, %w: tensor<4x8xi8>, %s: tensor<4xf32>) -> tensor<2x4xf32> {
  %y = ge.quantized_linear %x, %w, %s {input_scale = 0.02 : f32, activation = "ge.exp"} : tensor<2x8xi8>, tensor<4x8xi8>, tensor<4xf32> -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}

// -----

// CHECK: {{^}}ge.quantized_linear: activation must name an activation op (ge.relu, ge.sigmoid, ge.tanh, ge.silu, ge.hardswish, ge.hardsigmoid, ge.gelu, ge.clamp), without relu; got ge.tanh{{$}}
func.func @activation_and_relu(%x: tensor<2x8xi8>, %w: tensor<4x8xi8>, %s: tensor<4xf32>) -> tensor<2x4xf32> {
  %y = ge.quantized_linear %x, %w, %s {input_scale = 0.02 : f32, relu, activation = "ge.tanh"} : tensor<2x8xi8>, tensor<4x8xi8>, tensor<4xf32> -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}
