// RUN: ge-opt %s --split-input-file -p constant-fold | filecheck %s
// RUN: ge-opt %s --split-input-file -p 'constant-fold{max-elements=4}' | filecheck %s --check-prefix=CAP

// Chains of constant ops fold transitively with the runtime's kernels:
// relu([1, -2, 3, -4] * 2) = [2, 0, 6, 0]. The dead inputs disappear.
// CHECK-LABEL: func.func @chain
// CHECK-NEXT:    %r = ge.const dense<[2.000000e+00, 0.000000e+00, 6.000000e+00, 0.000000e+00]> : tensor<4xf32>
// CHECK-NEXT:    %y = ge.add %x, %r
// CHECK-NEXT:    func.return %y
func.func @chain(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %a = ge.const dense<[1.0, -2.0, 3.0, -4.0]> : tensor<4xf32>
  %b = ge.const dense<2.0> : tensor<4xf32>
  %m = ge.mul %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %r = ge.relu %m : tensor<4xf32>
  %y = ge.add %x, %r : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}

// -----

// Shape ops fold too: flatten of a constant is a constant of the new shape.
// CHECK-LABEL: func.func @shape_op
// CHECK-NEXT:    %f = ge.const dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
func.func @shape_op() -> tensor<4xf32> {
  %a = ge.const dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %f = ge.flatten %a {start_dim = 0 : i64, end_dim = -1 : i64} : tensor<2x2xf32> -> tensor<4xf32>
  func.return %f : tensor<4xf32>
}

// -----

// Negative: an operand that is not constant blocks folding.
// CHECK-LABEL: func.func @not_constant
// CHECK:         ge.mul %x, %b
func.func @not_constant(%x: tensor<4xf32>) -> tensor<4xf32> {
  %b = ge.const dense<2.0> : tensor<4xf32>
  %m = ge.mul %x, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  func.return %m : tensor<4xf32>
}

// -----

// The size cap: a broadcast to 8 elements is folded by default, not with max-elements=4.
// CHECK-LABEL: func.func @big_result
// CHECK-NEXT:    %s = ge.const dense<3.000000e+00> : tensor<2x4xf32>
// CAP-LABEL:   func.func @big_result
// CAP:           %s = ge.add %a, %b : tensor<4xf32>, tensor<2x1xf32> -> tensor<2x4xf32>
func.func @big_result() -> tensor<2x4xf32> {
  %a = ge.const dense<1.0> : tensor<4xf32>
  %b = ge.const dense<2.0> : tensor<2x1xf32>
  %s = ge.add %a, %b : tensor<4xf32>, tensor<2x1xf32> -> tensor<2x4xf32>
  func.return %s : tensor<2x4xf32>
}
