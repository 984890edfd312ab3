// RUN: ge-opt %s --split-input-file -p quantize-residuals | filecheck %s

// A ResNet block's end: the block input %x is quantized for the first conv
// (%xq), so the residual add reads it as dq(%xq) too.
// CHECK-LABEL: func.func @block
// CHECK:         %x_residual = ge.dequantize %xq, %sx {axis = 1 : i64} : tensor<1x2x4x4xi8>, tensor<f32> -> tensor<1x2x4x4xf32>
// CHECK-NEXT:    %a = ge.add %c, %x_residual
func.func @block(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %sx = ge.const dense<0.05> : tensor<f32>
  %wq = ge.const dense<3> : tensor<2x2x1x1xi8>
  %sw = ge.const dense<0.01> : tensor<f32>
  %xq = ge.quantize %x, %sx {axis = 1 : i64} : tensor<1x2x4x4xf32>, tensor<f32> -> tensor<1x2x4x4xi8>
  %d = ge.dequantize %xq, %sx {axis = 1 : i64} : tensor<1x2x4x4xi8>, tensor<f32> -> tensor<1x2x4x4xf32>
  %w = ge.dequantize %wq, %sw {axis = 0 : i64} : tensor<2x2x1x1xi8>, tensor<f32> -> tensor<2x2x1x1xf32>
  %c = ge.conv2d %d, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %a = ge.add %c, %x : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  func.return %a : tensor<1x2x4x4xf32>
}

// -----

// Unchanged: a residual nobody quantizes, an add whose other side is not a
// quantized matrix op, and a broadcasting add.
// CHECK-LABEL: func.func @unchanged
// CHECK-NOT:     residual
// CHECK:         ge.add %c, %r
// CHECK-NEXT:    ge.add %x, %x
// CHECK:         ge.add %c2, %v
func.func @unchanged(%x: tensor<1x2x4x4xf32>, %r: tensor<1x2x4x4xf32>, %v: tensor<1x2x1x1xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xi8>) {
  %sx = ge.const dense<0.05> : tensor<f32>
  %wq = ge.const dense<3> : tensor<2x2x1x1xi8>
  %sw = ge.const dense<0.01> : tensor<f32>
  %xq = ge.quantize %x, %sx {axis = 1 : i64} : tensor<1x2x4x4xf32>, tensor<f32> -> tensor<1x2x4x4xi8>
  %d = ge.dequantize %xq, %sx {axis = 1 : i64} : tensor<1x2x4x4xi8>, tensor<f32> -> tensor<1x2x4x4xf32>
  %w = ge.dequantize %wq, %sw {axis = 0 : i64} : tensor<2x2x1x1xi8>, tensor<f32> -> tensor<2x2x1x1xf32>
  %c = ge.conv2d %d, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %a = ge.add %c, %r : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  %b = ge.add %x, %x : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  %c2 = ge.conv2d %d, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %e = ge.add %c2, %v : tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32> -> tensor<1x2x4x4xf32>
  func.return %a, %b, %e, %xq : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xi8>
}

// -----

// After a linear, only a stream that goes on in int8: the add read by a
// quantize gets the int8 residual, the one feeding a float op (a
// transformer's LayerNorm) keeps its float residual.
// CHECK-LABEL: func.func @linear_stream
// CHECK:         %h_residual = ge.dequantize %hq, %sh
// CHECK-NEXT:    %a = ge.add %y, %h_residual
// CHECK:         %b = ge.add %y2, %h :
func.func @linear_stream(%h: tensor<2x4xf32>) -> (tensor<2x4xi8>, tensor<2x4xf32>) {
  %sh = ge.const dense<0.05> : tensor<f32>
  %wq = ge.const dense<3> : tensor<4x4xi8>
  %sw = ge.const dense<0.01> : tensor<f32>
  %hq = ge.quantize %h, %sh {axis = 1 : i64} : tensor<2x4xf32>, tensor<f32> -> tensor<2x4xi8>
  %d = ge.dequantize %hq, %sh {axis = 1 : i64} : tensor<2x4xi8>, tensor<f32> -> tensor<2x4xf32>
  %w = ge.dequantize %wq, %sw {axis = 0 : i64} : tensor<4x4xi8>, tensor<f32> -> tensor<4x4xf32>
  %y = ge.linear %d, %w : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %a = ge.add %y, %h : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<2x4xf32>
  %aq = ge.quantize %a, %sh {axis = 1 : i64} : tensor<2x4xf32>, tensor<f32> -> tensor<2x4xi8>
  %y2 = ge.linear %d, %w : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %b = ge.add %y2, %h : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<2x4xf32>
  %n = ge.relu %b : tensor<2x4xf32>
  func.return %aq, %n : tensor<2x4xi8>, tensor<2x4xf32>
}
