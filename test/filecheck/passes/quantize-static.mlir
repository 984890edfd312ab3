// RUN: ge-opt %s --split-input-file -p quantize-static | filecheck %s

// The activation's range [-2.54, 1.27] gives sx = 2.54 / 127 = 0.02; the
// weight [[1, -2], [0.5, 0.25]] gets per-channel scales [2/127, 0.5/127].
// CHECK-LABEL: func.func @linear
// CHECK-DAG:     %[[SX:.*]] = ge.const dense<2.000000e-02> : tensor<f32>
// CHECK-DAG:     %[[WQ:.*]] = ge.const dense<{{\[\[}}64, -127], [127, 64]]> : tensor<2x2xi8>
// CHECK-DAG:     %[[SW:.*]] = ge.const dense<[0.0157480314, 0.00393700786]> : tensor<2xf32>
// CHECK:         %[[Q:.*]] = ge.quantize %x, %[[SX]] {axis = 1 : i64} : tensor<3x2xf32>, tensor<f32> -> tensor<3x2xi8>
// CHECK-NEXT:    %[[DQ:.*]] = ge.dequantize %[[Q]], %[[SX]] {axis = 1 : i64} : tensor<3x2xi8>, tensor<f32> -> tensor<3x2xf32>
// CHECK-NEXT:    %[[W:.*]] = ge.dequantize %[[WQ]], %[[SW]] {axis = 0 : i64} : tensor<2x2xi8>, tensor<2xf32> -> tensor<2x2xf32>
// CHECK-NEXT:    %y = ge.linear %[[DQ]], %[[W]], %b
// CHECK-NOT:     ge.calibration_range
func.func @linear(%x: tensor<3x2xf32>, %b: tensor<2xf32>) -> tensor<3x2xf32> {
  %w = ge.const dense<[[1.0, -2.0], [0.5, 0.25]]> : tensor<2x2xf32>
  %y = ge.linear %x, %w, %b {ge.calibration_range = array<f64: -2.54, 1.27>} : tensor<3x2xf32>, tensor<2x2xf32>, tensor<2xf32> -> tensor<3x2xf32>
  func.return %y : tensor<3x2xf32>
}

// -----

// A conv's weight is per channel along dim 0; a matmul's [in, out] along dim 1.
// CHECK-LABEL: func.func @conv_and_matmul
// CHECK:         ge.dequantize %{{.*}}, %{{.*}} {axis = 0 : i64} : tensor<2x1x1x1xi8>, tensor<2xf32> -> tensor<2x1x1x1xf32>
// CHECK:         ge.conv2d
// CHECK:         ge.dequantize %{{.*}}, %{{.*}} {axis = 1 : i64} : tensor<2x3xi8>, tensor<3xf32> -> tensor<2x3xf32>
// CHECK:         ge.matmul
func.func @conv_and_matmul(%x: tensor<1x1x2x2xf32>, %m: tensor<4x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<4x3xf32>) {
  %w = ge.const dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %c = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, ge.calibration_range = array<f64: 0.0, 1.0>} : tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x2x2xf32>
  %k = ge.const dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %y = ge.matmul %m, %k {ge.calibration_range = array<f64: -1.0, 1.0>} : tensor<4x2xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  func.return %c, %y : tensor<1x2x2x2xf32>, tensor<4x3xf32>
}

// -----

// Stays float: an op without a range, a weight that is not a constant, and
// ops that are not matrix products.
// CHECK-LABEL: func.func @stays_float
// CHECK-NOT:     ge.quantize
// CHECK-NOT:     ge.dequantize
func.func @stays_float(%x: tensor<3x2xf32>, %v: tensor<2x2xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>) {
  %w = ge.const dense<[[1.0, -2.0], [0.5, 0.25]]> : tensor<2x2xf32>
  %y = ge.linear %x, %w : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
  %z = ge.linear %x, %v {ge.calibration_range = array<f64: -1.0, 1.0>} : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
  %s = ge.softmax %x {dim = 1 : i64, ge.calibration_range = array<f64: -1.0, 1.0>} : tensor<3x2xf32>
  func.return %y, %z, %s : tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

// An output range (calibration writes it on a residual add's shortcut conv)
// quantizes the result too: the add reads dq(q(%s)) with sy = 5.08 / 127 = 0.04.
// The conv without one (%c) is read as it is.
// CHECK-LABEL: func.func @output_range
// CHECK:         %c = ge.conv2d
// CHECK:         %s = ge.conv2d
// CHECK-NEXT:    %[[SY:.*]] = ge.const dense<4.000000e-02> : tensor<f32>
// CHECK-NEXT:    %[[Q:.*]] = ge.quantize %s, %[[SY]] {axis = 1 : i64}
// CHECK-NEXT:    %[[DQ:.*]] = ge.dequantize %[[Q]], %[[SY]] {axis = 1 : i64}
// CHECK-NEXT:    %y = ge.add %c, %[[DQ]]
// CHECK-NOT:     ge.calibration_output_range
func.func @output_range(%x: tensor<1x1x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %c = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, ge.calibration_range = array<f64: 0.0, 1.0>} : tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x2x2xf32>
  %s = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, ge.calibration_range = array<f64: 0.0, 1.0>, ge.calibration_output_range = array<f64: -5.08, 2.0>} : tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x2x2xf32>
  %y = ge.add %c, %s : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// A range with no negative value (after a ReLU) quantizes to ui8 at twice
// the resolution: sx = 2.55 / 255 = 0.01. The other input's range [-0.01,
// 2.54] reaches below 0: i8, sx = 2.54 / 127 = 0.02.
// CHECK-LABEL: func.func @unsigned_after_relu
// CHECK:         %[[SU:.*]] = ge.const dense<1.000000e-02> : tensor<f32>
// CHECK:         %[[QU:.*]] = ge.quantize %r, %[[SU]] {axis = 1 : i64} : tensor<3x2xf32>, tensor<f32> -> tensor<3x2xui8>
// CHECK-NEXT:    ge.dequantize %[[QU]], %[[SU]] {axis = 1 : i64} : tensor<3x2xui8>, tensor<f32> -> tensor<3x2xf32>
// CHECK:         %[[SS:.*]] = ge.const dense<2.000000e-02> : tensor<f32>
// CHECK:         %[[QS:.*]] = ge.quantize %x, %[[SS]] {axis = 1 : i64} : tensor<3x2xf32>, tensor<f32> -> tensor<3x2xi8>
// CHECK-NEXT:    ge.dequantize %[[QS]], %[[SS]] {axis = 1 : i64} : tensor<3x2xi8>, tensor<f32> -> tensor<3x2xf32>
func.func @unsigned_after_relu(%x: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %w = ge.const dense<[[1.0, -2.0], [0.5, 0.25]]> : tensor<2x2xf32>
  %r = ge.relu %x : tensor<3x2xf32>
  %y = ge.linear %r, %w {ge.calibration_range = array<f64: 0.0, 2.55>} : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
  %z = ge.linear %x, %w {ge.calibration_range = array<f64: -0.01, 2.54>} : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
  func.return %y, %z : tensor<3x2xf32>, tensor<3x2xf32>
}
