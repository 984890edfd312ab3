// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP

// ge.custom: tensor arguments are operands, the others live in `params`.
// CHECK-LABEL: func.func @custom(
// CHECK-NEXT:    %y = ge.custom(%x) {name = "aten.logcumsumexp", params = {dim = 1 : i64}} : (tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    func.return %y : tensor<3x4xf32>
func.func @custom(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %y = ge.custom(%x) {name = "aten.logcumsumexp", params = {dim = 1 : i64}} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  func.return %y : tensor<3x4xf32>
}

// Several operands and results, every kind of parameter, and a dynamic dim.
// CHECK-LABEL: func.func @custom_multi(
// CHECK-NEXT:    %a, %b = ge.custom(%x, %y) {name = "mylib.topk_like", params = {k = 2 : i64, alpha = 5.000000e-01 : f64, largest = true, mode = "fast", dims = array<i64: 0, 1>}} : (tensor<?x4xf32>, tensor<4xf32>) -> (tensor<?x4xf32>, tensor<?xi64>)
// CHECK-NEXT:    func.return %a, %b : tensor<?x4xf32>, tensor<?xi64>
func.func @custom_multi(%x: tensor<?x4xf32>, %y: tensor<4xf32>) -> (tensor<?x4xf32>, tensor<?xi64>) {
  %a, %b = ge.custom(%x, %y) {name = "mylib.topk_like", params = {k = 2 : i64, alpha = 5.000000e-01 : f64, largest = true, mode = "fast", dims = array<i64: 0, 1>}} : (tensor<?x4xf32>, tensor<4xf32>) -> (tensor<?x4xf32>, tensor<?xi64>)
  func.return %a, %b : tensor<?x4xf32>, tensor<?xi64>
}

// No parameters: an empty dictionary.
// CHECK-LABEL: func.func @custom_no_params(
// CHECK-NEXT:    %y = ge.custom(%x) {name = "mylib.noop", params = {}} : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    func.return %y : tensor<2xf32>
func.func @custom_no_params(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = ge.custom(%x) {name = "mylib.noop", params = {}} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}
