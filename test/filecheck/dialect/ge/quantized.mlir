// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP

// An int8 conv with bias and ReLU, requantized to int8.
// CHECK-LABEL: func.func @conv_int8_out(
// CHECK-NEXT:    %y = ge.quantized_conv2d %x, %w, %s bias %b : tensor<4xf32> {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, input_scale = 2.000000e-02 : f32, output_scale = 5.000000e-02 : f32, relu} : tensor<1x3x8x8xi8>, tensor<4x3x3x3xi8>, tensor<4xf32> -> tensor<1x4x8x8xi8>
func.func @conv_int8_out(%x: tensor<1x3x8x8xi8>, %w: tensor<4x3x3x3xi8>, %s: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<1x4x8x8xi8> {
  %y = ge.quantized_conv2d %x, %w, %s bias %b : tensor<4xf32> {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, input_scale = 0.02 : f32, output_scale = 0.05 : f32, relu} : tensor<1x3x8x8xi8>, tensor<4x3x3x3xi8>, tensor<4xf32> -> tensor<1x4x8x8xi8>
  func.return %y : tensor<1x4x8x8xi8>
}

// A float residual and an fp32 result; a uint8 input.
// CHECK-LABEL: func.func @conv_residual(
// CHECK-NEXT:    %y = ge.quantized_conv2d %x, %w, %s residual %r : tensor<1x4x8x8xf32> {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, input_scale = 2.000000e-02 : f32} : tensor<1x3x8x8xui8>, tensor<4x3x3x3xi8>, tensor<4xf32> -> tensor<1x4x8x8xf32>
func.func @conv_residual(%x: tensor<1x3x8x8xui8>, %w: tensor<4x3x3x3xi8>, %s: tensor<4xf32>, %r: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %y = ge.quantized_conv2d %x, %w, %s residual %r : tensor<1x4x8x8xf32> {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, input_scale = 0.02 : f32} : tensor<1x3x8x8xui8>, tensor<4x3x3x3xi8>, tensor<4xf32> -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}

// CHECK-LABEL: func.func @linear(
// CHECK-NEXT:    %y = ge.quantized_linear %x, %w, %s bias %b : tensor<10xf32> residual %r : tensor<2x10xf32> {input_scale = 2.000000e-02 : f32, relu} : tensor<2x64xi8>, tensor<10x64xi8>, tensor<10xf32> -> tensor<2x10xf32>
func.func @linear(%x: tensor<2x64xi8>, %w: tensor<10x64xi8>, %s: tensor<10xf32>, %b: tensor<10xf32>, %r: tensor<2x10xf32>) -> tensor<2x10xf32> {
  %y = ge.quantized_linear %x, %w, %s bias %b : tensor<10xf32> residual %r : tensor<2x10xf32> {input_scale = 0.02 : f32, relu} : tensor<2x64xi8>, tensor<10x64xi8>, tensor<10xf32> -> tensor<2x10xf32>
  func.return %y : tensor<2x10xf32>
}

// An activation op's name and properties: ReLU6, GELU.
// CHECK-LABEL: func.func @conv_relu6(
// CHECK-NEXT:    %y = ge.quantized_conv2d %x, %w, %s {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, input_scale = 2.000000e-02 : f32, output_scale = 5.000000e-02 : f32, activation = "ge.clamp", activation_attrs = {min = 0.000000e+00 : f64, max = 6.000000e+00 : f64}} : tensor<1x3x8x8xi8>, tensor<4x3x3x3xi8>, tensor<4xf32> -> tensor<1x4x8x8xi8>
func.func @conv_relu6(%x: tensor<1x3x8x8xi8>, %w: tensor<4x3x3x3xi8>, %s: tensor<4xf32>) -> tensor<1x4x8x8xi8> {
  %y = ge.quantized_conv2d %x, %w, %s {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, input_scale = 0.02 : f32, output_scale = 0.05 : f32, activation = "ge.clamp", activation_attrs = {min = 0.0 : f64, max = 6.0 : f64}} : tensor<1x3x8x8xi8>, tensor<4x3x3x3xi8>, tensor<4xf32> -> tensor<1x4x8x8xi8>
  func.return %y : tensor<1x4x8x8xi8>
}

// CHECK-LABEL: func.func @linear_gelu(
// CHECK-NEXT:    %y = ge.quantized_linear %x, %w, %s {input_scale = 2.000000e-02 : f32, output_scale = 5.000000e-02 : f32, activation = "ge.gelu", activation_attrs = {approximate = "none"}} : tensor<2x64xi8>, tensor<10x64xi8>, tensor<10xf32> -> tensor<2x10xi8>
func.func @linear_gelu(%x: tensor<2x64xi8>, %w: tensor<10x64xi8>, %s: tensor<10xf32>) -> tensor<2x10xi8> {
  %y = ge.quantized_linear %x, %w, %s {input_scale = 0.02 : f32, output_scale = 0.05 : f32, activation = "ge.gelu", activation_attrs = {approximate = "none"}} : tensor<2x64xi8>, tensor<10x64xi8>, tensor<10xf32> -> tensor<2x10xi8>
  func.return %y : tensor<2x10xi8>
}
