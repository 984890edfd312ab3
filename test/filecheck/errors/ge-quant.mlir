// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK: {{^}}ge.quantize: the quantized tensor must have i8 or ui8 elements, got i32{{$}}
func.func @result_type(%x: tensor<4xf32>, %s: tensor<f32>) -> tensor<4xi32> {
  %q = ge.quantize %x, %s {axis = 0 : i64} : tensor<4xf32>, tensor<f32> -> tensor<4xi32>
  func.return %q : tensor<4xi32>
}

// -----

// CHECK: {{^}}ge.dequantize: scale has 3 elements but axis 0 has 4{{$}}
func.func @per_channel(%q: tensor<4x2xi8>, %s: tensor<3xf32>) -> tensor<4x2xf32> {
  %x = ge.dequantize %q, %s {axis = 0 : i64} : tensor<4x2xi8>, tensor<3xf32> -> tensor<4x2xf32>
  func.return %x : tensor<4x2xf32>
}

// -----

// CHECK: {{^}}ge.dequantize: zero_point must have the quantized type i8, got ui8{{$}}
func.func @zero_point_type(%q: tensor<4xi8>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<4xf32> {
  %x = ge.dequantize %q, %s, %z {axis = 0 : i64} : tensor<4xi8>, tensor<f32>, tensor<ui8> -> tensor<4xf32>
  func.return %x : tensor<4xf32>
}

// -----

// CHECK: {{^}}ge.weight_quant_linear: weight must have i8 elements, got f32{{$}}
func.func @float_weight(%x: tensor<1x8xf32>, %w: tensor<4x8xf32>, %s: tensor<4xf32>) -> tensor<1x4xf32> {
  %y = ge.weight_quant_linear %x, %w, %s : tensor<1x8xf32>, tensor<4x8xf32>, tensor<4xf32> -> tensor<1x4xf32>
  func.return %y : tensor<1x4xf32>
}

// -----

// CHECK: {{^}}ge.weight_quant_linear: antiquant_scale must have shape 4, got 8{{$}}
func.func @scale_shape(%x: tensor<1x8xf32>, %w: tensor<4x8xi8>, %s: tensor<8xf32>) -> tensor<1x4xf32> {
  %y = ge.weight_quant_linear %x, %w, %s : tensor<1x8xf32>, tensor<4x8xi8>, tensor<8xf32> -> tensor<1x4xf32>
  func.return %y : tensor<1x4xf32>
}
