// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP

// Unary elementwise ops share one shape: the result type is the input type.
// CHECK-LABEL: func.func @unary(
// CHECK-NEXT:    %0 = ge.sigmoid %x : tensor<2x8xf32>
// CHECK-NEXT:    %1 = ge.tanh %0 : tensor<2x8xf32>
// CHECK-NEXT:    %2 = ge.exp %1 : tensor<2x8xf32>
// CHECK-NEXT:    %3 = ge.log %2 : tensor<2x8xf32>
// CHECK-NEXT:    %4 = ge.sqrt %3 : tensor<2x8xf32>
// CHECK-NEXT:    %5 = ge.rsqrt %4 : tensor<2x8xf32>
// CHECK-NEXT:    %6 = ge.neg %5 : tensor<2x8xf32>
// CHECK-NEXT:    %7 = ge.abs %6 : tensor<2x8xf32>
// CHECK-NEXT:    %8 = ge.erf %7 : tensor<2x8xf32>
// CHECK-NEXT:    %9 = ge.silu %8 : tensor<2x8xf32>
// CHECK-NEXT:    %10 = ge.hardswish %9 : tensor<2x8xf32>
// CHECK-NEXT:    %11 = ge.hardsigmoid %10 : tensor<2x8xf32>
// CHECK-NEXT:    func.return %11 : tensor<2x8xf32>
func.func @unary(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = ge.sigmoid %x : tensor<2x8xf32>
  %1 = ge.tanh %0 : tensor<2x8xf32>
  %2 = ge.exp %1 : tensor<2x8xf32>
  %3 = ge.log %2 : tensor<2x8xf32>
  %4 = ge.sqrt %3 : tensor<2x8xf32>
  %5 = ge.rsqrt %4 : tensor<2x8xf32>
  %6 = ge.neg %5 : tensor<2x8xf32>
  %7 = ge.abs %6 : tensor<2x8xf32>
  %8 = ge.erf %7 : tensor<2x8xf32>
  %9 = ge.silu %8 : tensor<2x8xf32>
  %10 = ge.hardswish %9 : tensor<2x8xf32>
  %11 = ge.hardsigmoid %10 : tensor<2x8xf32>
  func.return %11 : tensor<2x8xf32>
}

// Unary ops with parameters; a clamp bound may be absent (relu6 is clamp 0..6).
// CHECK-LABEL: func.func @unary_params(
// CHECK-NEXT:    %g = ge.gelu %x {approximate = "tanh"} : tensor<?x8xf32>
// CHECK-NEXT:    %r6 = ge.clamp %x {min = 0.000000e+00 : f64, max = 6.000000e+00 : f64} : tensor<?x8xf32>
// CHECK-NEXT:    %lo = ge.clamp %x {min = -1.000000e+00 : f64} : tensor<?x8xf32>
// CHECK-NEXT:    func.return %g, %r6, %lo : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>
func.func @unary_params(%x: tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>) {
  %g = ge.gelu %x {approximate = "tanh"} : tensor<?x8xf32>
  %r6 = ge.clamp %x {min = 0.0 : f64, max = 6.0 : f64} : tensor<?x8xf32>
  %lo = ge.clamp %x {min = -1.0 : f64} : tensor<?x8xf32>
  func.return %g, %r6, %lo : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>
}

// Binary ops broadcast like ge.add.
// CHECK-LABEL: func.func @binary(
// CHECK-NEXT:    %0 = ge.sub %x, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %1 = ge.div %0, %s : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
// CHECK-NEXT:    %2 = ge.pow %1, %s : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
// CHECK-NEXT:    %3 = ge.maximum %2, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %4 = ge.minimum %3, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    func.return %4 : tensor<4x8xf32>
func.func @binary(%x: tensor<4x8xf32>, %y: tensor<8xf32>, %s: tensor<f32>) -> tensor<4x8xf32> {
  %0 = ge.sub %x, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %1 = ge.div %0, %s : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %2 = ge.pow %1, %s : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %3 = ge.maximum %2, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %4 = ge.minimum %3, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  func.return %4 : tensor<4x8xf32>
}

// Comparisons give i1 masks; masks combine with logical ops and select with where.
// CHECK-LABEL: func.func @masks(
// CHECK-NEXT:    %pos = ge.compare %x, %ninf {predicate = "gt"} : tensor<2x4x4xf32>, tensor<f32> -> tensor<2x4x4xi1>
// CHECK-NEXT:    %not = ge.logical_not %t : tensor<4x4xi1>
// CHECK-NEXT:    %and = ge.logical_and %pos, %not : tensor<2x4x4xi1>, tensor<4x4xi1> -> tensor<2x4x4xi1>
// CHECK-NEXT:    %or = ge.logical_or %and, %t : tensor<2x4x4xi1>, tensor<4x4xi1> -> tensor<2x4x4xi1>
// CHECK-NEXT:    %y = ge.where %or, %x, %ninf : tensor<2x4x4xi1>, tensor<2x4x4xf32>, tensor<f32> -> tensor<2x4x4xf32>
// CHECK-NEXT:    func.return %y : tensor<2x4x4xf32>
func.func @masks(%x: tensor<2x4x4xf32>, %t: tensor<4x4xi1>, %ninf: tensor<f32>) -> tensor<2x4x4xf32> {
  %pos = ge.compare %x, %ninf {predicate = "gt"} : tensor<2x4x4xf32>, tensor<f32> -> tensor<2x4x4xi1>
  %not = ge.logical_not %t : tensor<4x4xi1>
  %and = ge.logical_and %pos, %not : tensor<2x4x4xi1>, tensor<4x4xi1> -> tensor<2x4x4xi1>
  %or = ge.logical_or %and, %t : tensor<2x4x4xi1>, tensor<4x4xi1> -> tensor<2x4x4xi1>
  %y = ge.where %or, %x, %ninf : tensor<2x4x4xi1>, tensor<2x4x4xf32>, tensor<f32> -> tensor<2x4x4xf32>
  func.return %y : tensor<2x4x4xf32>
}

// Integer tensors: compare, cast and a dynamic fill.
// CHECK-LABEL: func.func @ints(
// CHECK-NEXT:    %lt = ge.compare %i, %five {predicate = "lt"} : tensor<?x8xi64>, tensor<i64> -> tensor<?x8xi1>
// CHECK-NEXT:    %f = ge.cast %i : tensor<?x8xi64> -> tensor<?x8xf32>
// CHECK-NEXT:    %z = ge.full_like %f {value = 1.000000e+00 : f64} : tensor<?x8xf32> -> tensor<?x8xi1>
// CHECK-NEXT:    func.return %lt, %f, %z : tensor<?x8xi1>, tensor<?x8xf32>, tensor<?x8xi1>
func.func @ints(%i: tensor<?x8xi64>, %five: tensor<i64>) -> (tensor<?x8xi1>, tensor<?x8xf32>, tensor<?x8xi1>) {
  %lt = ge.compare %i, %five {predicate = "lt"} : tensor<?x8xi64>, tensor<i64> -> tensor<?x8xi1>
  %f = ge.cast %i : tensor<?x8xi64> -> tensor<?x8xf32>
  %z = ge.full_like %f {value = 1.0 : f64} : tensor<?x8xf32> -> tensor<?x8xi1>
  func.return %lt, %f, %z : tensor<?x8xi1>, tensor<?x8xf32>, tensor<?x8xi1>
}
