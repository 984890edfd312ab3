// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP

// Per tensor (a 0-d scale), symmetric: no zero point.
// CHECK-LABEL: func.func @qdq_per_tensor(
// CHECK-NEXT:    %q = ge.quantize %x, %s {axis = 1 : i64} : tensor<1x8xf32>, tensor<f32> -> tensor<1x8xi8>
// CHECK-NEXT:    %y = ge.dequantize %q, %s {axis = 1 : i64} : tensor<1x8xi8>, tensor<f32> -> tensor<1x8xf32>
func.func @qdq_per_tensor(%x: tensor<1x8xf32>, %s: tensor<f32>) -> tensor<1x8xf32> {
  %q = ge.quantize %x, %s {axis = 1 : i64} : tensor<1x8xf32>, tensor<f32> -> tensor<1x8xi8>
  %y = ge.dequantize %q, %s {axis = 1 : i64} : tensor<1x8xi8>, tensor<f32> -> tensor<1x8xf32>
  func.return %y : tensor<1x8xf32>
}

// Per channel along axis 0, and an asymmetric ui8 with its zero point.
// CHECK-LABEL: func.func @qdq_per_channel(
// CHECK-NEXT:    %w = ge.dequantize %q, %s {axis = 0 : i64} : tensor<4x8xi8>, tensor<4xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %u = ge.quantize %x, %t, %z {axis = 1 : i64} : tensor<1x8xf32>, tensor<1xf32>, tensor<1xui8> -> tensor<1x8xui8>
// CHECK-NEXT:    %v = ge.dequantize %u, %t, %z {axis = 1 : i64} : tensor<1x8xui8>, tensor<1xf32>, tensor<1xui8> -> tensor<1x8xf32>
func.func @qdq_per_channel(%q: tensor<4x8xi8>, %s: tensor<4xf32>, %x: tensor<1x8xf32>, %t: tensor<1xf32>, %z: tensor<1xui8>) -> (tensor<4x8xf32>, tensor<1x8xf32>) {
  %w = ge.dequantize %q, %s {axis = 0 : i64} : tensor<4x8xi8>, tensor<4xf32> -> tensor<4x8xf32>
  %u = ge.quantize %x, %t, %z {axis = 1 : i64} : tensor<1x8xf32>, tensor<1xf32>, tensor<1xui8> -> tensor<1x8xui8>
  %v = ge.dequantize %u, %t, %z {axis = 1 : i64} : tensor<1x8xui8>, tensor<1xf32>, tensor<1xui8> -> tensor<1x8xf32>
  func.return %w, %v : tensor<4x8xf32>, tensor<1x8xf32>
}

// The weight-only linear: an int8 [out, in] weight with a scale per output channel.
// CHECK-LABEL: func.func @weight_quant_linear(
// CHECK-NEXT:    %y = ge.weight_quant_linear %x, %w, %s : tensor<1x64xf32>, tensor<32x64xi8>, tensor<32xf32> -> tensor<1x32xf32>
// CHECK-NEXT:    %z = ge.weight_quant_linear %v, %w, %s, %b : tensor<?x7x64xf32>, tensor<32x64xi8>, tensor<32xf32>, tensor<32xf32> -> tensor<?x7x32xf32>
func.func @weight_quant_linear(%x: tensor<1x64xf32>, %v: tensor<?x7x64xf32>, %w: tensor<32x64xi8>, %s: tensor<32xf32>, %b: tensor<32xf32>) -> (tensor<1x32xf32>, tensor<?x7x32xf32>) {
  %y = ge.weight_quant_linear %x, %w, %s : tensor<1x64xf32>, tensor<32x64xi8>, tensor<32xf32> -> tensor<1x32xf32>
  %z = ge.weight_quant_linear %v, %w, %s, %b : tensor<?x7x64xf32>, tensor<32x64xi8>, tensor<32xf32>, tensor<32xf32> -> tensor<?x7x32xf32>
  func.return %y, %z : tensor<1x32xf32>, tensor<?x7x32xf32>
}
