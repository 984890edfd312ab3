// RUN: ge-opt %s -p 'fold-quantized,dce,hardware-mapping' | filecheck %s --check-prefix=COST
// RUN: ge-opt %s -p 'fold-quantized,dce,hardware-mapping,lower-to-ascend' | filecheck %s

// Two QDQ convs in a row, lowered: each an int8 task on the cube, the first
// writing i8 bytes that the second reads (no float buffer between them).
// The image is quantized by a vector task.
// CHECK-LABEL: func.func @chain(
// CHECK:         ascend.task "quantize_0" {unit = "vector", {{.*}}} ins(%x, %{{.*}} : memref<1x256x14x14xf32>, memref<f32>) outs(%[[XQ:.*]] : memref<1x256x14x14xi8>)
// CHECK:         ascend.task "quantized_conv2d_0" {unit = "cube", {{.*}}} ins(%[[XQ]], %{{.*}}, %{{.*}}, %{{.*}} : memref<1x256x14x14xi8>, memref<256x256x3x3xi8>, memref<256xf32>, memref<256xf32>) outs(%[[H:.*]] : memref<1x256x14x14xi8>)
// CHECK:           ge.quantized_conv2d {{.*}}output_scale = 1.000000e-01 : f32, relu}
// CHECK:         ascend.task "quantized_conv2d_1" {unit = "cube", {{.*}}} ins(%[[H]], %{{.*}}, %{{.*}} : memref<1x256x14x14xi8>, memref<256x256x3x3xi8>, memref<256xf32>) outs(%{{.*}} : memref<1x256x14x14xf32>)
// CHECK-NOT:     ascend.task "quantize
// CHECK-NOT:     ascend.task "dequantize

// The cost model counts an int8 product at twice fp16's cube rate (an fp32
// one at a quarter): the same conv in fp32 and in int8.
// COST:          ge.conv2d %x, %wf {ge.unit = "cube", ge.cost_us = 9.720000e+00 : f64
// COST:          ge.quantized_conv2d {{.*}}{ge.unit = "cube", ge.cost_us = 3.840000e+00 : f64
func.func @chain(%x: tensor<1x256x14x14xf32>) -> (tensor<1x256x14x14xf32>, tensor<1x256x14x14xf32>) {
  %wf = ge.const dense<0.5> : tensor<256x256x3x3xf32>
  %f = ge.conv2d %x, %wf {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x256x14x14xf32>, tensor<256x256x3x3xf32> -> tensor<1x256x14x14xf32>
  %sx = ge.const dense<0.05> : tensor<f32>
  %s1 = ge.const dense<0.1> : tensor<f32>
  %wq = ge.const dense<3> : tensor<256x256x3x3xi8>
  %sw = ge.const dense<0.01> : tensor<256xf32>
  %b = ge.const dense<0.25> : tensor<256xf32>
  %q0 = ge.quantize %x, %sx {axis = 1 : i64} : tensor<1x256x14x14xf32>, tensor<f32> -> tensor<1x256x14x14xi8>
  %d0 = ge.dequantize %q0, %sx {axis = 1 : i64} : tensor<1x256x14x14xi8>, tensor<f32> -> tensor<1x256x14x14xf32>
  %w = ge.dequantize %wq, %sw {axis = 0 : i64} : tensor<256x256x3x3xi8>, tensor<256xf32> -> tensor<256x256x3x3xf32>
  %c1 = ge.conv2d %d0, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x256x14x14xf32>, tensor<256x256x3x3xf32>, tensor<256xf32> -> tensor<1x256x14x14xf32>
  %r1 = ge.relu %c1 : tensor<1x256x14x14xf32>
  %q1 = ge.quantize %r1, %s1 {axis = 1 : i64} : tensor<1x256x14x14xf32>, tensor<f32> -> tensor<1x256x14x14xi8>
  %d1 = ge.dequantize %q1, %s1 {axis = 1 : i64} : tensor<1x256x14x14xi8>, tensor<f32> -> tensor<1x256x14x14xf32>
  %c2 = ge.conv2d %d1, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x256x14x14xf32>, tensor<256x256x3x3xf32> -> tensor<1x256x14x14xf32>
  func.return %f, %c2 : tensor<1x256x14x14xf32>, tensor<1x256x14x14xf32>
}
