// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP

// In-place updates of a graph input (a static KV cache): ge.scatter_update
// writes rows along `dim` at run-time indices (index_copy_, index_put_),
// ge.assign writes the whole tensor (copy_). Each result is the updated input.
// CHECK-LABEL: func.func @static_cache(
// CHECK-NEXT:    %k1 = ge.scatter_update %k[%pos], %new {dim = 2 : i64} : tensor<1x2x16x8xf32>, tensor<1xi64>, tensor<1x2x1x8xf32> -> tensor<1x2x16x8xf32>
// CHECK-NEXT:    %n1 = ge.assign %n, %step : tensor<i64>
// CHECK-NEXT:    func.return %k1, %n1 : tensor<1x2x16x8xf32>, tensor<i64>
func.func @static_cache(%k: tensor<1x2x16x8xf32>, %pos: tensor<1xi64>, %new: tensor<1x2x1x8xf32>, %n: tensor<i64>, %step: tensor<i64>) -> (tensor<1x2x16x8xf32>, tensor<i64>) {
  %k1 = ge.scatter_update %k[%pos], %new {dim = 2 : i64} : tensor<1x2x16x8xf32>, tensor<1xi64>, tensor<1x2x1x8xf32> -> tensor<1x2x16x8xf32>
  %n1 = ge.assign %n, %step : tensor<i64>
  func.return %k1, %n1 : tensor<1x2x16x8xf32>, tensor<i64>
}

// They write memory, so dce keeps them even when nothing reads the result.
// RUN: ge-opt %s -p dce | filecheck %s --check-prefix=DCE
// DCE-LABEL: func.func @unread(
// DCE-NEXT:    %k1 = ge.scatter_update
// DCE-NEXT:    func.return
func.func @unread(%k: tensor<1x2x16x8xf32>, %pos: tensor<1xi64>, %new: tensor<1x2x1x8xf32>) {
  %k1 = ge.scatter_update %k[%pos], %new {dim = 2 : i64} : tensor<1x2x16x8xf32>, tensor<1xi64>, tensor<1x2x1x8xf32> -> tensor<1x2x16x8xf32>
  func.return
}
