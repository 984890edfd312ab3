// RUN: ge-opt %s --split-input-file -p fold-quantized,dce | filecheck %s

// conv + bias + relu whose only reader quantizes: one int8 conv, int8 out.
// CHECK-LABEL: func.func @conv_bias_relu
// CHECK-DAG:     %[[W:.*]] = ge.const dense<{{.*}}> : tensor<2x1x1x1xi8>
// CHECK-DAG:     %[[S:.*]] = ge.const dense<[1.000000e-02, 2.000000e-02]> : tensor<2xf32>
// CHECK:         %y = ge.quantized_conv2d %xq, %[[W]], %[[S]] bias %b : tensor<2xf32> {{{.*}}input_scale = 5.000000e-02 : f32, output_scale = 1.000000e-01 : f32, relu} : tensor<1x1x4x4xi8>, tensor<2x1x1x1xi8>, tensor<2xf32> -> tensor<1x2x4x4xi8>
// CHECK-NEXT:    func.return %y : tensor<1x2x4x4xi8>
// CHECK-NOT:     ge.dequantize
// CHECK-NOT:     ge.quantize
func.func @conv_bias_relu(%xq: tensor<1x1x4x4xi8>) -> tensor<1x2x4x4xi8> {
  %sx = ge.const dense<0.05> : tensor<f32>
  %sy = ge.const dense<0.1> : tensor<f32>
  %wq = ge.const dense<[[[[10]]], [[[-20]]]]> : tensor<2x1x1x1xi8>
  %sw = ge.const dense<[0.01, 0.02]> : tensor<2xf32>
  %b = ge.const dense<[0.5, -0.5]> : tensor<2xf32>
  %x = ge.dequantize %xq, %sx {axis = 1 : i64} : tensor<1x1x4x4xi8>, tensor<f32> -> tensor<1x1x4x4xf32>
  %w = ge.dequantize %wq, %sw {axis = 0 : i64} : tensor<2x1x1x1xi8>, tensor<2xf32> -> tensor<2x1x1x1xf32>
  %c = ge.conv2d %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32> -> tensor<1x2x4x4xf32>
  %r = ge.relu %c : tensor<1x2x4x4xf32>
  %y = ge.quantize %r, %sy {axis = 1 : i64} : tensor<1x2x4x4xf32>, tensor<f32> -> tensor<1x2x4x4xi8>
  func.return %y : tensor<1x2x4x4xi8>
}

// -----

// A linear with no quantize after it: fp32 out. A matmul's [in, out] weight
// becomes linear's [out, in] (transposed int8 constant, scales along out).
// CHECK-LABEL: func.func @linear_and_matmul
// CHECK:         %y = ge.quantized_linear %xq, %wq, %{{.*}} bias %b : tensor<2xf32> {input_scale = 5.000000e-02 : f32} : tensor<3x4xi8>, tensor<2x4xi8>, tensor<2xf32> -> tensor<3x2xf32>
// CHECK:         %[[KT:.*]] = ge.const dense<{{\[\[}}1, 3], [2, 4]]> : tensor<2x2xi8>
// CHECK:         %m = ge.quantized_linear %mq, %[[KT]], %{{.*}} {input_scale = 5.000000e-02 : f32} : tensor<3x2xi8>, tensor<2x2xi8>, tensor<2xf32> -> tensor<3x2xf32>
// CHECK-NOT:     ge.linear
// CHECK-NOT:     ge.matmul
func.func @linear_and_matmul(%xq: tensor<3x4xi8>, %mq: tensor<3x2xi8>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %sx = ge.const dense<0.05> : tensor<f32>
  %wq = ge.const dense<1> : tensor<2x4xi8>
  %sw = ge.const dense<[0.01, 0.02]> : tensor<2xf32>
  %b = ge.const dense<[0.5, -0.5]> : tensor<2xf32>
  %x = ge.dequantize %xq, %sx {axis = 1 : i64} : tensor<3x4xi8>, tensor<f32> -> tensor<3x4xf32>
  %w = ge.dequantize %wq, %sw {axis = 0 : i64} : tensor<2x4xi8>, tensor<2xf32> -> tensor<2x4xf32>
  %y = ge.linear %x, %w, %b : tensor<3x4xf32>, tensor<2x4xf32>, tensor<2xf32> -> tensor<3x2xf32>
  %kq = ge.const dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>
  %m0 = ge.dequantize %mq, %sx {axis = 1 : i64} : tensor<3x2xi8>, tensor<f32> -> tensor<3x2xf32>
  %k = ge.dequantize %kq, %sw {axis = 1 : i64} : tensor<2x2xi8>, tensor<2xf32> -> tensor<2x2xf32>
  %m = ge.matmul %m0, %k : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
  func.return %y, %m : tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

// Two convs in a row pass int8: the first requantizes to the scale the
// second reads, so no quantize / dequantize (no float tensor) is left
// between them. The second adds a float residual and is a graph result: fp32 out.
// CHECK-LABEL: func.func @int8_chain
// CHECK:         %q1 = ge.quantized_conv2d %xq, %{{.*}}, %{{.*}} {{{.*}}output_scale = 1.000000e-01 : f32, relu} : tensor<1x2x4x4xi8>, tensor<2x2x1x1xi8>, tensor<2xf32> -> tensor<1x2x4x4xi8>
// CHECK-NEXT:    %{{.*}} = ge.const
// CHECK-NEXT:    %a = ge.quantized_conv2d %q1, %{{.*}}, %{{.*}} residual %res : tensor<1x2x4x4xf32> {{{.*}}input_scale = 1.000000e-01 : f32} : tensor<1x2x4x4xi8>, tensor<2x2x1x1xi8>, tensor<2xf32> -> tensor<1x2x4x4xf32>
// CHECK-NEXT:    func.return %a
func.func @int8_chain(%xq: tensor<1x2x4x4xi8>, %res: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %sx = ge.const dense<0.05> : tensor<f32>
  %s1 = ge.const dense<0.1> : tensor<f32>
  %wq = ge.const dense<3> : tensor<2x2x1x1xi8>
  %sw = ge.const dense<0.01> : tensor<f32>
  %x = ge.dequantize %xq, %sx {axis = 1 : i64} : tensor<1x2x4x4xi8>, tensor<f32> -> tensor<1x2x4x4xf32>
  %w = ge.dequantize %wq, %sw {axis = 0 : i64} : tensor<2x2x1x1xi8>, tensor<f32> -> tensor<2x2x1x1xf32>
  %c1 = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %r1 = ge.relu %c1 : tensor<1x2x4x4xf32>
  %q1 = ge.quantize %r1, %s1 {axis = 1 : i64} : tensor<1x2x4x4xf32>, tensor<f32> -> tensor<1x2x4x4xi8>
  %d1 = ge.dequantize %q1, %s1 {axis = 1 : i64} : tensor<1x2x4x4xi8>, tensor<f32> -> tensor<1x2x4x4xf32>
  %w2 = ge.dequantize %wq, %sw {axis = 0 : i64} : tensor<2x2x1x1xi8>, tensor<f32> -> tensor<2x2x1x1xf32>
  %c2 = ge.conv2d %d1, %w2 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %a = ge.add %c2, %res : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  func.return %a : tensor<1x2x4x4xf32>
}

// -----

// A residual that is a dequantized int8 tensor is read as int8, with its scale.
// CHECK-LABEL: func.func @int8_residual
// CHECK:         %a = ge.quantized_conv2d %xq, %{{.*}}, %{{.*}} residual %rq : tensor<1x2x4x4xi8> {{{.*}}input_scale = 5.000000e-02 : f32, residual_scale = 2.000000e-01 : f32, relu} : tensor<1x2x4x4xi8>, tensor<2x2x1x1xi8>, tensor<2xf32> -> tensor<1x2x4x4xf32>
func.func @int8_residual(%xq: tensor<1x2x4x4xi8>, %rq: tensor<1x2x4x4xi8>) -> tensor<1x2x4x4xf32> {
  %sx = ge.const dense<0.05> : tensor<f32>
  %sr = ge.const dense<0.2> : tensor<f32>
  %wq = ge.const dense<3> : tensor<2x2x1x1xi8>
  %sw = ge.const dense<0.01> : tensor<f32>
  %x = ge.dequantize %xq, %sx {axis = 1 : i64} : tensor<1x2x4x4xi8>, tensor<f32> -> tensor<1x2x4x4xf32>
  %w = ge.dequantize %wq, %sw {axis = 0 : i64} : tensor<2x2x1x1xi8>, tensor<f32> -> tensor<2x2x1x1xf32>
  %r = ge.dequantize %rq, %sr {axis = 1 : i64} : tensor<1x2x4x4xi8>, tensor<f32> -> tensor<1x2x4x4xf32>
  %c = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %s = ge.add %r, %c : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  %a = ge.relu %s : tensor<1x2x4x4xf32>
  func.return %a : tensor<1x2x4x4xf32>
}

// -----

// The result is quantized with two different scales: the conv folds with an
// fp32 output and both quantizes stay.
// CHECK-LABEL: func.func @scale_mismatch
// CHECK:         %c = ge.quantized_conv2d {{.*}} -> tensor<1x1x2x2xf32>
// CHECK:         ge.quantize %c
// CHECK:         ge.quantize %c
func.func @scale_mismatch(%xq: tensor<1x1x2x2xi8>) -> (tensor<1x1x2x2xi8>, tensor<1x1x2x2xi8>) {
  %sx = ge.const dense<0.05> : tensor<f32>
  %s1 = ge.const dense<0.1> : tensor<f32>
  %s2 = ge.const dense<0.2> : tensor<f32>
  %wq = ge.const dense<3> : tensor<1x1x1x1xi8>
  %x = ge.dequantize %xq, %sx {axis = 1 : i64} : tensor<1x1x2x2xi8>, tensor<f32> -> tensor<1x1x2x2xf32>
  %w = ge.dequantize %wq, %sx {axis = 0 : i64} : tensor<1x1x1x1xi8>, tensor<f32> -> tensor<1x1x1x1xf32>
  %c = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1x2x2xf32>, tensor<1x1x1x1xf32> -> tensor<1x1x2x2xf32>
  %q1 = ge.quantize %c, %s1 {axis = 1 : i64} : tensor<1x1x2x2xf32>, tensor<f32> -> tensor<1x1x2x2xi8>
  %q2 = ge.quantize %c, %s2 {axis = 1 : i64} : tensor<1x1x2x2xf32>, tensor<f32> -> tensor<1x1x2x2xi8>
  func.return %q1, %q2 : tensor<1x1x2x2xi8>, tensor<1x1x2x2xi8>
}

// -----

// Not folded: a weight that is not a constant, a weight with a zero point,
// and an input whose scale is per channel.
// CHECK-LABEL: func.func @not_folded
// CHECK-NOT:     ge.quantized_
// CHECK-COUNT-3: ge.linear
func.func @not_folded(%xq: tensor<3x2xi8>, %vq: tensor<2x2xi8>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>) {
  %sx = ge.const dense<0.05> : tensor<f32>
  %zp = ge.const dense<1> : tensor<i8>
  %sc = ge.const dense<[0.05, 0.1]> : tensor<2xf32>
  %wq = ge.const dense<1> : tensor<2x2xi8>
  %x = ge.dequantize %xq, %sx {axis = 1 : i64} : tensor<3x2xi8>, tensor<f32> -> tensor<3x2xf32>
  %v = ge.dequantize %vq, %sx {axis = 0 : i64} : tensor<2x2xi8>, tensor<f32> -> tensor<2x2xf32>
  %y = ge.linear %x, %v : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
  %wz = ge.dequantize %wq, %sx, %zp {axis = 0 : i64} : tensor<2x2xi8>, tensor<f32>, tensor<i8> -> tensor<2x2xf32>
  %z = ge.linear %x, %wz : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
  %xc = ge.dequantize %xq, %sc {axis = 1 : i64} : tensor<3x2xi8>, tensor<2xf32> -> tensor<3x2xf32>
  %u = ge.linear %xc, %v : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
  func.return %y, %z, %u : tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

// A quantize after a max-pool moves before it (exact: quantizing is
// monotonic), so the conv before the pool writes int8 and the pool runs on int8.
// CHECK-LABEL: func.func @max_pool
// CHECK:         %r_q = ge.quantized_conv2d %xq, {{.*}}output_scale = 1.000000e-01 : f32, relu} : tensor<1x1x4x4xi8>, tensor<1x1x1x1xi8>, tensor<1xf32> -> tensor<1x1x4x4xi8>
// CHECK-NEXT:    %q = ge.max_pool2d %r_q {{.*}} : tensor<1x1x4x4xi8> -> tensor<1x1x2x2xi8>
// A pool whose input has another reader keeps its quantize after it.
// CHECK-NEXT:    %p2 = ge.max_pool2d %f {{.*}} : tensor<1x1x4x4xf32> -> tensor<1x1x2x2xf32>
// CHECK-NEXT:    %p2q = ge.quantize %p2
func.func @max_pool(%xq: tensor<1x1x4x4xi8>, %f: tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xi8>, tensor<1x1x2x2xi8>, tensor<1x1x4x4xf32>) {
  %sx = ge.const dense<0.05> : tensor<f32>
  %s1 = ge.const dense<0.1> : tensor<f32>
  %wq = ge.const dense<3> : tensor<1x1x1x1xi8>
  %x = ge.dequantize %xq, %sx {axis = 1 : i64} : tensor<1x1x4x4xi8>, tensor<f32> -> tensor<1x1x4x4xf32>
  %w = ge.dequantize %wq, %sx {axis = 0 : i64} : tensor<1x1x1x1xi8>, tensor<f32> -> tensor<1x1x1x1xf32>
  %c = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1x4x4xf32>, tensor<1x1x1x1xf32> -> tensor<1x1x4x4xf32>
  %r = ge.relu %c : tensor<1x1x4x4xf32>
  %p = ge.max_pool2d %r {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = false} : tensor<1x1x4x4xf32> -> tensor<1x1x2x2xf32>
  %q = ge.quantize %p, %s1 {axis = 1 : i64} : tensor<1x1x2x2xf32>, tensor<f32> -> tensor<1x1x2x2xi8>
  %p2 = ge.max_pool2d %f {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = false} : tensor<1x1x4x4xf32> -> tensor<1x1x2x2xf32>
  %p2q = ge.quantize %p2, %s1 {axis = 1 : i64} : tensor<1x1x2x2xf32>, tensor<f32> -> tensor<1x1x2x2xi8>
  func.return %q, %p2q, %f : tensor<1x1x2x2xi8>, tensor<1x1x2x2xi8>, tensor<1x1x4x4xf32>
}

// -----

// A ReLU6 (clamp 0..6) after a conv folds as its activation (the op's name
// and properties: oneDNN runs it as a clip post-op); a clamp with an upper
// bound only has no post-op form and stays float, with the conv before it
// writing fp32 and the quantize after it kept.
// CHECK-LABEL: func.func @relu6_and_clamp
// CHECK:         %y = ge.quantized_conv2d %xq, %{{.*}}, %{{.*}} {{{.*}}output_scale = 1.000000e-01 : f32, activation = "ge.clamp", activation_attrs = {min = 0.000000e+00 : f64, max = 6.000000e+00 : f64}} : tensor<1x1x4x4xi8>, tensor<1x1x1x1xi8>, tensor<1xf32> -> tensor<1x1x4x4xi8>
// CHECK:         %[[C:.*]] = ge.quantized_conv2d %xq, %{{.*}}, %{{.*}} {{{.*}}input_scale = 5.000000e-02 : f32} : tensor<1x1x4x4xi8>, tensor<1x1x1x1xi8>, tensor<1xf32> -> tensor<1x1x4x4xf32>
// CHECK-NEXT:    %[[K:.*]] = ge.clamp %[[C]] {max = 1.000000e+00 : f64}
// CHECK-NEXT:    %z = ge.quantize %[[K]]
func.func @relu6_and_clamp(%xq: tensor<1x1x4x4xi8>) -> (tensor<1x1x4x4xi8>, tensor<1x1x4x4xi8>) {
  %sx = ge.const dense<0.05> : tensor<f32>
  %sy = ge.const dense<0.1> : tensor<f32>
  %wq = ge.const dense<10> : tensor<1x1x1x1xi8>
  %sw = ge.const dense<0.01> : tensor<f32>
  %x = ge.dequantize %xq, %sx {axis = 1 : i64} : tensor<1x1x4x4xi8>, tensor<f32> -> tensor<1x1x4x4xf32>
  %w = ge.dequantize %wq, %sw {axis = 0 : i64} : tensor<1x1x1x1xi8>, tensor<f32> -> tensor<1x1x1x1xf32>
  %c = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1x4x4xf32>, tensor<1x1x1x1xf32> -> tensor<1x1x4x4xf32>
  %r = ge.clamp %c {min = 0.0 : f64, max = 6.0 : f64} : tensor<1x1x4x4xf32>
  %y = ge.quantize %r, %sy {axis = 1 : i64} : tensor<1x1x4x4xf32>, tensor<f32> -> tensor<1x1x4x4xi8>
  %w2 = ge.dequantize %wq, %sw {axis = 0 : i64} : tensor<1x1x1x1xi8>, tensor<f32> -> tensor<1x1x1x1xf32>
  %c2 = ge.conv2d %x, %w2 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1x4x4xf32>, tensor<1x1x1x1xf32> -> tensor<1x1x4x4xf32>
  %k = ge.clamp %c2 {max = 1.0 : f64} : tensor<1x1x4x4xf32>
  %z = ge.quantize %k, %sy {axis = 1 : i64} : tensor<1x1x4x4xf32>, tensor<f32> -> tensor<1x1x4x4xi8>
  func.return %y, %z : tensor<1x1x4x4xi8>, tensor<1x1x4x4xi8>
}

// -----

// A transformer FFN: linear -> gelu -> quantize folds into one int8 linear
// with the GELU (with its approximation) and an int8 result; an exp is no
// activation and stays float, the linear before it fp32.
// CHECK-LABEL: func.func @gelu_and_exp
// CHECK:         %g = ge.quantized_linear %xq, %wq, %{{.*}} {input_scale = 5.000000e-02 : f32, output_scale = 1.000000e-01 : f32, activation = "ge.gelu", activation_attrs = {approximate = "tanh"}} : tensor<3x4xi8>, tensor<2x4xi8>, tensor<2xf32> -> tensor<3x2xi8>
// CHECK:         %[[L:.*]] = ge.quantized_linear %xq, %wq, %{{.*}} {input_scale = 5.000000e-02 : f32} : tensor<3x4xi8>, tensor<2x4xi8>, tensor<2xf32> -> tensor<3x2xf32>
// CHECK-NEXT:    %t = ge.exp %[[L]]
func.func @gelu_and_exp(%xq: tensor<3x4xi8>) -> (tensor<3x2xi8>, tensor<3x2xi8>) {
  %sx = ge.const dense<0.05> : tensor<f32>
  %sy = ge.const dense<0.1> : tensor<f32>
  %wq = ge.const dense<1> : tensor<2x4xi8>
  %sw = ge.const dense<[0.01, 0.02]> : tensor<2xf32>
  %x = ge.dequantize %xq, %sx {axis = 1 : i64} : tensor<3x4xi8>, tensor<f32> -> tensor<3x4xf32>
  %w = ge.dequantize %wq, %sw {axis = 0 : i64} : tensor<2x4xi8>, tensor<2xf32> -> tensor<2x4xf32>
  %y = ge.linear %x, %w : tensor<3x4xf32>, tensor<2x4xf32> -> tensor<3x2xf32>
  %a = ge.gelu %y {approximate = "tanh"} : tensor<3x2xf32>
  %g = ge.quantize %a, %sy {axis = 1 : i64} : tensor<3x2xf32>, tensor<f32> -> tensor<3x2xi8>
  %w2 = ge.dequantize %wq, %sw {axis = 0 : i64} : tensor<2x4xi8>, tensor<2xf32> -> tensor<2x4xf32>
  %y2 = ge.linear %x, %w2 : tensor<3x4xf32>, tensor<2x4xf32> -> tensor<3x2xf32>
  %t = ge.exp %y2 : tensor<3x2xf32>
  %tq = ge.quantize %t, %sy {axis = 1 : i64} : tensor<3x2xf32>, tensor<f32> -> tensor<3x2xi8>
  func.return %g, %tq : tensor<3x2xi8>, tensor<3x2xi8>
}

// -----

// ui8 flows as i8 does: a ui8 input, a ui8 residual with its scale, a ui8
// output (the quantize after the ReLU is to ui8), and a ui8 quantize moved
// before a max-pool.
// CHECK-LABEL: func.func @unsigned
// CHECK:         %a_q = ge.quantized_conv2d %xq, %{{.*}}, %{{.*}} residual %rq : tensor<1x2x4x4xui8> {{{.*}}input_scale = 5.000000e-02 : f32, output_scale = 1.000000e-01 : f32, residual_scale = 2.000000e-01 : f32, relu} : tensor<1x2x4x4xui8>, tensor<2x2x1x1xi8>, tensor<2xf32> -> tensor<1x2x4x4xui8>
// CHECK-NEXT:    %q = ge.max_pool2d %a_q {{.*}} : tensor<1x2x4x4xui8> -> tensor<1x2x2x2xui8>
// CHECK-NEXT:    func.return %q
func.func @unsigned(%xq: tensor<1x2x4x4xui8>, %rq: tensor<1x2x4x4xui8>) -> tensor<1x2x2x2xui8> {
  %sx = ge.const dense<0.05> : tensor<f32>
  %sr = ge.const dense<0.2> : tensor<f32>
  %sy = ge.const dense<0.1> : tensor<f32>
  %wq = ge.const dense<3> : tensor<2x2x1x1xi8>
  %sw = ge.const dense<0.01> : tensor<f32>
  %x = ge.dequantize %xq, %sx {axis = 1 : i64} : tensor<1x2x4x4xui8>, tensor<f32> -> tensor<1x2x4x4xf32>
  %w = ge.dequantize %wq, %sw {axis = 0 : i64} : tensor<2x2x1x1xi8>, tensor<f32> -> tensor<2x2x1x1xf32>
  %r = ge.dequantize %rq, %sr {axis = 1 : i64} : tensor<1x2x4x4xui8>, tensor<f32> -> tensor<1x2x4x4xf32>
  %c = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %s = ge.add %r, %c : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  %a = ge.relu %s : tensor<1x2x4x4xf32>
  %p = ge.max_pool2d %a {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = false} : tensor<1x2x4x4xf32> -> tensor<1x2x2x2xf32>
  %q = ge.quantize %p, %sy {axis = 1 : i64} : tensor<1x2x2x2xf32>, tensor<f32> -> tensor<1x2x2x2xui8>
  func.return %q : tensor<1x2x2x2xui8>
}

// -----

// One scale but two types (an i8 and a ui8 quantize of the result): no one
// output type serves both readers, so the conv writes fp32 and both stay.
// CHECK-LABEL: func.func @type_mismatch
// CHECK:         %c = ge.quantized_conv2d {{.*}} -> tensor<1x1x2x2xf32>
// CHECK:         ge.quantize %c, {{.*}} -> tensor<1x1x2x2xi8>
// CHECK:         ge.quantize %c, {{.*}} -> tensor<1x1x2x2xui8>
func.func @type_mismatch(%xq: tensor<1x1x2x2xi8>) -> (tensor<1x1x2x2xi8>, tensor<1x1x2x2xui8>) {
  %sx = ge.const dense<0.05> : tensor<f32>
  %s1 = ge.const dense<0.1> : tensor<f32>
  %wq = ge.const dense<3> : tensor<1x1x1x1xi8>
  %x = ge.dequantize %xq, %sx {axis = 1 : i64} : tensor<1x1x2x2xi8>, tensor<f32> -> tensor<1x1x2x2xf32>
  %w = ge.dequantize %wq, %sx {axis = 0 : i64} : tensor<1x1x1x1xi8>, tensor<f32> -> tensor<1x1x1x1xf32>
  %c = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1x2x2xf32>, tensor<1x1x1x1xf32> -> tensor<1x1x2x2xf32>
  %q1 = ge.quantize %c, %s1 {axis = 1 : i64} : tensor<1x1x2x2xf32>, tensor<f32> -> tensor<1x1x2x2xi8>
  %q2 = ge.quantize %c, %s1 {axis = 1 : i64} : tensor<1x1x2x2xf32>, tensor<f32> -> tensor<1x1x2x2xui8>
  func.return %q1, %q2 : tensor<1x1x2x2xi8>, tensor<1x1x2x2xui8>
}

// -----

// An asymmetric QDQ model (ONNX Runtime's quantize_static by default): the
// input's zero point and the requantization's become the op's; a max-pool's
// quantize moves before it with its zero point; a Gemm's bias, an add of a
// per-channel constant after the product, becomes the op's bias.
// CHECK-LABEL: func.func @asymmetric
// CHECK:         %[[C:.*]] = ge.quantized_conv2d %xq, {{.*}} input_zero_point = -3 : i64{{.*}}output_zero_point = -128 : i64{{.*}} -> tensor<1x2x4x4xi8>
// CHECK-NEXT:    %[[P:.*]] = ge.max_pool2d %[[C]] {{.*}} -> tensor<1x2x2x2xi8>
// CHECK:         ge.quantized_linear %fq, %vq, %{{.*}} bias %b : tensor<2xf32> {{.*}}input_zero_point = -128 : i64, output_zero_point = 7 : i64{{.*}} -> tensor<1x2xi8>
// CHECK-NOT:     ge.quantize
// CHECK-NOT:     ge.add
func.func @asymmetric(%xq: tensor<1x1x4x4xi8>) -> tensor<1x2xi8> {
  %sx = ge.const dense<0.05> : tensor<f32>
  %zx = ge.const dense<-3> : tensor<i8>
  %sw = ge.const dense<0.1> : tensor<f32>
  %wq = ge.const dense<3> : tensor<2x1x3x3xi8>
  %sy = ge.const dense<0.02> : tensor<f32>
  %zy = ge.const dense<-128> : tensor<i8>
  %vq = ge.const dense<2> : tensor<2x8xi8>
  %b = ge.const dense<[0.5, -0.25]> : tensor<2xf32>
  %so = ge.const dense<0.03> : tensor<f32>
  %zo = ge.const dense<7> : tensor<i8>
  %x = ge.dequantize %xq, %sx, %zx {axis = 1 : i64} : tensor<1x1x4x4xi8>, tensor<f32>, tensor<i8> -> tensor<1x1x4x4xf32>
  %w = ge.dequantize %wq, %sw {axis = 0 : i64} : tensor<2x1x3x3xi8>, tensor<f32> -> tensor<2x1x3x3xf32>
  %c = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1x4x4xf32>, tensor<2x1x3x3xf32> -> tensor<1x2x4x4xf32>
  %p = ge.max_pool2d %c {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = false} : tensor<1x2x4x4xf32> -> tensor<1x2x2x2xf32>
  %pq = ge.quantize %p, %sy, %zy {axis = 1 : i64} : tensor<1x2x2x2xf32>, tensor<f32>, tensor<i8> -> tensor<1x2x2x2xi8>
  %pd = ge.dequantize %pq, %sy, %zy {axis = 1 : i64} : tensor<1x2x2x2xi8>, tensor<f32>, tensor<i8> -> tensor<1x2x2x2xf32>
  %f = ge.reshape %pd : tensor<1x2x2x2xf32> -> tensor<1x8xf32>
  %fq = ge.quantize %f, %sy, %zy {axis = 1 : i64} : tensor<1x8xf32>, tensor<f32>, tensor<i8> -> tensor<1x8xi8>
  %fd = ge.dequantize %fq, %sy, %zy {axis = 1 : i64} : tensor<1x8xi8>, tensor<f32>, tensor<i8> -> tensor<1x8xf32>
  %v = ge.dequantize %vq, %sw {axis = 0 : i64} : tensor<2x8xi8>, tensor<f32> -> tensor<2x8xf32>
  %l = ge.linear %fd, %v : tensor<1x8xf32>, tensor<2x8xf32> -> tensor<1x2xf32>
  %lb = ge.add %l, %b : tensor<1x2xf32>, tensor<2xf32> -> tensor<1x2xf32>
  %o = ge.quantize %lb, %so, %zo {axis = 1 : i64} : tensor<1x2xf32>, tensor<f32>, tensor<i8> -> tensor<1x2xi8>
  func.return %o : tensor<1x2xi8>
}
