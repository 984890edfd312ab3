// RUN: ge-opt %s --split-input-file -p fold-batch-norm | filecheck %s

// scale = gamma / sqrt(var + eps) = [4, 6] / [2, 3] = [2, 2]
// W' = W * scale = [2, 4];  b' = (b - mean) * scale + beta = [4.5, 3.0]
// CHECK-LABEL: func.func @conv_bias_bn
// CHECK-DAG:     %[[W:.*]] = ge.const dense<{{\[+}}2.000000e+00{{\]+}}, {{\[+}}4.000000e+00{{\]+}}> : tensor<2x1x1x1xf32>
// CHECK-DAG:     %[[B:.*]] = ge.const dense<[4.500000e+00, 3.000000e+00]> : tensor<2xf32>
// CHECK:         %[[Y:.*]] = ge.conv2d %x, %[[W]], %[[B]]
// CHECK-NOT:     ge.batch_norm
// CHECK:         func.return %[[Y]] :
func.func @conv_bias_bn(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = ge.const dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %b = ge.const dense<[3.0, 4.0]> : tensor<2xf32>
  %gamma = ge.const dense<[4.0, 6.0]> : tensor<2xf32>
  %beta = ge.const dense<[0.5, -1.0]> : tensor<2xf32>
  %mean = ge.const dense<[1.0, 2.0]> : tensor<2xf32>
  %var = ge.const dense<[3.0, 8.0]> : tensor<2xf32>
  %c = ge.conv2d %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32> -> tensor<1x2x4x4xf32>
  %y = ge.batch_norm %c, %gamma, %beta, %mean, %var {epsilon = 1.0 : f64} : tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32> -> tensor<1x2x4x4xf32>
  func.return %y : tensor<1x2x4x4xf32>
}

// -----

// A conv without bias gets one: b' = -mean * scale + beta = [-1.5, -5.0]
// CHECK-LABEL: func.func @conv_no_bias_bn
// CHECK-DAG:     %[[B:.*]] = ge.const dense<[-1.500000e+00, -5.000000e+00]> : tensor<2xf32>
// CHECK:         ge.conv2d %x, %{{.*}}, %[[B]] {stride = array<i64: 2, 2>
// CHECK-NOT:     ge.batch_norm
func.func @conv_no_bias_bn(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %gamma = ge.const dense<[4.0, 6.0]> : tensor<2xf32>
  %beta = ge.const dense<[0.5, -1.0]> : tensor<2xf32>
  %mean = ge.const dense<[1.0, 2.0]> : tensor<2xf32>
  %var = ge.const dense<[3.0, 8.0]> : tensor<2xf32>
  %c = ge.conv2d %x, %w {stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x2x2xf32>
  %y = ge.batch_norm %c, %gamma, %beta, %mean, %var {epsilon = 1.0 : f64} : tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// Negative: the conv result has a second user, so folding would duplicate the conv.
// CHECK-LABEL: func.func @conv_two_users
// CHECK:         %c = ge.conv2d
// CHECK:         ge.batch_norm %c
// CHECK:         ge.relu %c
func.func @conv_two_users(%x: tensor<1x1x4x4xf32>, %s: tensor<2xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = ge.const dense<1.0> : tensor<2x1x1x1xf32>
  %c = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x4x4xf32>
  %y = ge.batch_norm %c, %s, %s, %s, %s {epsilon = 1.0e-05 : f64} : tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32> -> tensor<1x2x4x4xf32>
  %r = ge.relu %c : tensor<1x2x4x4xf32>
  func.return %y, %r : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// Negative: statistics that are not constants cannot be folded at compile time.
// CHECK-LABEL: func.func @runtime_stats
// CHECK:         ge.batch_norm
func.func @runtime_stats(%x: tensor<1x1x4x4xf32>, %s: tensor<2xf32>) -> tensor<1x2x4x4xf32> {
  %w = ge.const dense<1.0> : tensor<2x1x1x1xf32>
  %c = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x4x4xf32>
  %y = ge.batch_norm %c, %s, %s, %s, %s {epsilon = 1.0e-05 : f64} : tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32> -> tensor<1x2x4x4xf32>
  func.return %y : tensor<1x2x4x4xf32>
}

// -----

// Negative: a batch norm that does not follow a conv stays.
// CHECK-LABEL: func.func @bn_after_relu
// CHECK:         ge.relu
// CHECK-NEXT:    ge.batch_norm
func.func @bn_after_relu(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %s = ge.const dense<1.0> : tensor<2xf32>
  %r = ge.relu %x : tensor<1x2x4x4xf32>
  %y = ge.batch_norm %r, %s, %s, %s, %s {epsilon = 1.0e-05 : f64} : tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32> -> tensor<1x2x4x4xf32>
  func.return %y : tensor<1x2x4x4xf32>
}

// -----

// BatchNorm1d after a linear layer: W' = W * s[:, None], b' = (b - mean) * s + beta.
// CHECK-LABEL: func.func @linear_bn
// CHECK-DAG:     %[[W:.*]] = ge.const dense<{{\[\[}}2.000000e+00, 4.000000e+00, 6.000000e+00], [8.000000e+00, 1.000000e+01, 1.200000e+01]]> : tensor<2x3xf32>
// CHECK-DAG:     %[[B:.*]] = ge.const dense<[5.000000e-01, -3.000000e+00]> : tensor<2xf32>
// CHECK:         %[[Y:.*]] = ge.linear %x, %[[W]], %[[B]]
// CHECK-NOT:     ge.batch_norm
func.func @linear_bn(%x: tensor<4x3xf32>) -> tensor<4x2xf32> {
  %w = ge.const dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = ge.const dense<[1.0, 1.0]> : tensor<2xf32>
  %gamma = ge.const dense<[4.0, 6.0]> : tensor<2xf32>
  %beta = ge.const dense<[0.5, -1.0]> : tensor<2xf32>
  %mean = ge.const dense<[1.0, 2.0]> : tensor<2xf32>
  %var = ge.const dense<[3.0, 8.0]> : tensor<2xf32>
  %l = ge.linear %x, %w, %b : tensor<4x3xf32>, tensor<2x3xf32>, tensor<2xf32> -> tensor<4x2xf32>
  %y = ge.batch_norm %l, %gamma, %beta, %mean, %var {epsilon = 1.0 : f64} : tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32> -> tensor<4x2xf32>
  func.return %y : tensor<4x2xf32>
}

// -----

// After a matmul with a constant right operand the result is a linear layer:
// W' = K^T * s[:, None], b' = beta - mean * s.
// CHECK-LABEL: func.func @matmul_bn
// CHECK-DAG:     %[[W:.*]] = ge.const dense<{{\[\[}}2.000000e+00, 4.000000e+00, 6.000000e+00], [8.000000e+00, 1.000000e+01, 1.200000e+01]]> : tensor<2x3xf32>
// CHECK-DAG:     %[[B:.*]] = ge.const dense<[-1.500000e+00, -5.000000e+00]> : tensor<2xf32>
// CHECK:         ge.linear %x, %[[W]], %[[B]] : tensor<4x3xf32>, tensor<2x3xf32>, tensor<2xf32> -> tensor<4x2xf32>
// CHECK-NOT:     ge.matmul
// CHECK-NOT:     ge.batch_norm
func.func @matmul_bn(%x: tensor<4x3xf32>) -> tensor<4x2xf32> {
  %k = ge.const dense<[[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]> : tensor<3x2xf32>
  %gamma = ge.const dense<[4.0, 6.0]> : tensor<2xf32>
  %beta = ge.const dense<[0.5, -1.0]> : tensor<2xf32>
  %mean = ge.const dense<[1.0, 2.0]> : tensor<2xf32>
  %var = ge.const dense<[3.0, 8.0]> : tensor<2xf32>
  %m = ge.matmul %x, %k : tensor<4x3xf32>, tensor<3x2xf32> -> tensor<4x2xf32>
  %y = ge.batch_norm %m, %gamma, %beta, %mean, %var {epsilon = 1.0 : f64} : tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32> -> tensor<4x2xf32>
  func.return %y : tensor<4x2xf32>
}

// -----

// Negative: on a 3-D linear output BN normalizes dim 1, not the feature dim.
// CHECK-LABEL: func.func @linear_3d
// CHECK:         ge.linear
// CHECK-NEXT:    ge.batch_norm
func.func @linear_3d(%x: tensor<4x2x3xf32>) -> tensor<4x2x2xf32> {
  %w = ge.const dense<1.0> : tensor<2x3xf32>
  %s = ge.const dense<1.0> : tensor<2xf32>
  %l = ge.linear %x, %w : tensor<4x2x3xf32>, tensor<2x3xf32> -> tensor<4x2x2xf32>
  %y = ge.batch_norm %l, %s, %s, %s, %s {epsilon = 1.0e-05 : f64} : tensor<4x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32> -> tensor<4x2x2xf32>
  func.return %y : tensor<4x2x2xf32>
}
