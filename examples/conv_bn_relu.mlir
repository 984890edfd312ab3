// The GE article's Conv2D -> BatchNorm -> ReLU at toy size, as the importer
// writes it (real random weights). Try:
//   ge-opt examples/conv_bn_relu.mlir -p fold-batch-norm,op-fusion,dce,lower-to-ascend
builtin.module {
  func.func @main(%input: tensor<1x3x8x8xf32>) -> tensor<1x2x8x8xf32> {
    %conv_weight = ge.const dense<[[[[-0.00144083926, 0.10323862, -0.158395112], [-0.141631529, -0.0741229951, 0.0516069084], [-0.00381304836, 0.152591646, -1.707880e-02]], [[0.0509247109, -0.0581609346, -0.0378290266], [-0.183856905, -0.127456248, -0.079332374], [0.00712903868, 7.608230e-02, 0.11547444]], [[-0.130469829, -0.0838048607, 0.0699011683], [0.159808233, -0.039606262, 0.14401266], [-0.031019751, 0.0203639325, 0.174258977]]], [[[-0.178530246, -0.121154636, -0.0487216748], [-0.075017035, 0.166277036, -0.124742232], [-0.0885911062, -0.134453416, -0.180241242]], [[-0.112340905, 0.165429726, 0.0858747661], [0.0932752788, 0.0101212505, -0.0986659899], [0.0325596072, -0.179689631, -0.139057934]], [[-0.0992137939, 0.121424064, 0.112837575], [-0.0853506625, -0.00694405846, 0.123083517], [0.191321015, 0.0763800144, 0.0259986315]]]]> : tensor<2x3x3x3xf32>
    %conv_bias = ge.const dense<[0.12903516, -0.113315061]> : tensor<2xf32>
    %bn_weight = ge.const dense<[1.09317207, 0.612347245]> : tensor<2xf32>
    %bn_bias = ge.const dense<[0.12749137, 0.902124226]> : tensor<2xf32>
    %bn_running_mean = ge.const dense<[-0.225118756, -0.241516039]> : tensor<2xf32>
    %bn_running_var = ge.const dense<[1.27863622, 1.42377853]> : tensor<2xf32>
    %convolution = ge.conv2d %input, %conv_weight, %conv_bias {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<2x3x3x3xf32>, tensor<2xf32> -> tensor<1x2x8x8xf32>
    %batch_norm = ge.batch_norm %convolution, %bn_weight, %bn_bias, %bn_running_mean, %bn_running_var {epsilon = 1.000000e-05 : f64} : tensor<1x2x8x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32> -> tensor<1x2x8x8xf32>
    %relu = ge.relu %batch_norm : tensor<1x2x8x8xf32>
    func.return %relu : tensor<1x2x8x8xf32>
  }
}
