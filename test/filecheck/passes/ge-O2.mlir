// RUN: ge-opt %s -p ge-O2 | filecheck %s
// RUN: ge-opt %s -p 'ge-O2{disable=fold-batch-norm}' | filecheck %s --check-prefix=DISABLED

// ge-O2 also folds the batch norm into the conv.
// CHECK-NOT:   ge.batch_norm
// CHECK:       %[[C:.*]] = ge.conv2d %x
// CHECK-NEXT:  %[[R:.*]] = ge.relu %[[C]]
// CHECK-NEXT:  func.return %[[R]] :
// DISABLED:    ge.batch_norm
func.func @main(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = ge.const dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %s = ge.const dense<[4.0, 6.0]> : tensor<2xf32>
  %s2 = ge.const dense<[4.0, 6.0]> : tensor<2xf32>
  %z = ge.const dense<0.0> : tensor<2x1x1xf32>
  %c = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x4x4xf32>
  %y = ge.batch_norm %c, %s, %s2, %s, %s2 {epsilon = 1.0e-05 : f64} : tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32> -> tensor<1x2x4x4xf32>
  %a = ge.add %y, %z : tensor<1x2x4x4xf32>, tensor<2x1x1xf32> -> tensor<1x2x4x4xf32>
  %r = ge.relu %a : tensor<1x2x4x4xf32>
  %dead = ge.mul %r, %r : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  func.return %r : tensor<1x2x4x4xf32>
}
