// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP

// The unary math family: one op each, the result type is the input type.
// CHECK-LABEL: func.func @unary(
// CHECK-NEXT:    %0 = ge.sin %x : tensor<2x8xf32>
// CHECK-NEXT:    %1 = ge.cos %0 : tensor<2x8xf32>
// CHECK-NEXT:    %2 = ge.tan %1 : tensor<2x8xf32>
// CHECK-NEXT:    %3 = ge.asin %2 : tensor<2x8xf32>
// CHECK-NEXT:    %4 = ge.acos %3 : tensor<2x8xf32>
// CHECK-NEXT:    %5 = ge.atan %4 : tensor<2x8xf32>
// CHECK-NEXT:    %6 = ge.sinh %5 : tensor<2x8xf32>
// CHECK-NEXT:    %7 = ge.cosh %6 : tensor<2x8xf32>
// CHECK-NEXT:    %8 = ge.asinh %7 : tensor<2x8xf32>
// CHECK-NEXT:    %9 = ge.acosh %8 : tensor<2x8xf32>
// CHECK-NEXT:    %10 = ge.atanh %9 : tensor<2x8xf32>
// CHECK-NEXT:    %11 = ge.log1p %10 : tensor<2x8xf32>
// CHECK-NEXT:    %12 = ge.expm1 %11 : tensor<2x8xf32>
// CHECK-NEXT:    %13 = ge.log2 %12 : tensor<2x8xf32>
// CHECK-NEXT:    %14 = ge.log10 %13 : tensor<2x8xf32>
// CHECK-NEXT:    %15 = ge.exp2 %14 : tensor<2x8xf32>
// CHECK-NEXT:    %16 = ge.reciprocal %15 : tensor<2x8xf32>
// CHECK-NEXT:    %17 = ge.sign %16 : tensor<2x8xf32>
// CHECK-NEXT:    %18 = ge.floor %17 : tensor<2x8xf32>
// CHECK-NEXT:    %19 = ge.ceil %18 : tensor<2x8xf32>
// CHECK-NEXT:    %20 = ge.round %19 : tensor<2x8xf32>
// CHECK-NEXT:    %21 = ge.trunc %20 : tensor<2x8xf32>
// CHECK-NEXT:    %22 = ge.erfc %21 : tensor<2x8xf32>
// CHECK-NEXT:    %23 = ge.erfinv %22 : tensor<2x8xf32>
// CHECK-NEXT:    %24 = ge.lgamma %23 : tensor<2x8xf32>
// CHECK-NEXT:    %25 = ge.digamma %24 : tensor<2x8xf32>
// CHECK-NEXT:    %26 = ge.mish %25 : tensor<2x8xf32>
// CHECK-NEXT:    %27 = ge.log_sigmoid %26 : tensor<2x8xf32>
// CHECK-NEXT:    func.return %27 : tensor<2x8xf32>
func.func @unary(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = ge.sin %x : tensor<2x8xf32>
  %1 = ge.cos %0 : tensor<2x8xf32>
  %2 = ge.tan %1 : tensor<2x8xf32>
  %3 = ge.asin %2 : tensor<2x8xf32>
  %4 = ge.acos %3 : tensor<2x8xf32>
  %5 = ge.atan %4 : tensor<2x8xf32>
  %6 = ge.sinh %5 : tensor<2x8xf32>
  %7 = ge.cosh %6 : tensor<2x8xf32>
  %8 = ge.asinh %7 : tensor<2x8xf32>
  %9 = ge.acosh %8 : tensor<2x8xf32>
  %10 = ge.atanh %9 : tensor<2x8xf32>
  %11 = ge.log1p %10 : tensor<2x8xf32>
  %12 = ge.expm1 %11 : tensor<2x8xf32>
  %13 = ge.log2 %12 : tensor<2x8xf32>
  %14 = ge.log10 %13 : tensor<2x8xf32>
  %15 = ge.exp2 %14 : tensor<2x8xf32>
  %16 = ge.reciprocal %15 : tensor<2x8xf32>
  %17 = ge.sign %16 : tensor<2x8xf32>
  %18 = ge.floor %17 : tensor<2x8xf32>
  %19 = ge.ceil %18 : tensor<2x8xf32>
  %20 = ge.round %19 : tensor<2x8xf32>
  %21 = ge.trunc %20 : tensor<2x8xf32>
  %22 = ge.erfc %21 : tensor<2x8xf32>
  %23 = ge.erfinv %22 : tensor<2x8xf32>
  %24 = ge.lgamma %23 : tensor<2x8xf32>
  %25 = ge.digamma %24 : tensor<2x8xf32>
  %26 = ge.mish %25 : tensor<2x8xf32>
  %27 = ge.log_sigmoid %26 : tensor<2x8xf32>
  func.return %27 : tensor<2x8xf32>
}

// Activations with parameters; SELU is an ELU with its two constants.
// CHECK-LABEL: func.func @unary_params(
// CHECK-NEXT:    %l = ge.leaky_relu %x {negative_slope = 2.000000e-01 : f64} : tensor<?x8xf32>
// CHECK-NEXT:    %e = ge.elu %x {alpha = 1.6732632423543772 : f64, scale = 1.0507009873554805 : f64, input_scale = 1.000000e+00 : f64} : tensor<?x8xf32>
// CHECK-NEXT:    %s = ge.softplus %x {beta = 2.000000e+00 : f64, threshold = 2.000000e+01 : f64} : tensor<?x8xf32>
// CHECK-NEXT:    func.return %l, %e, %s : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>
func.func @unary_params(%x: tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>) {
  %l = ge.leaky_relu %x {negative_slope = 0.2 : f64} : tensor<?x8xf32>
  %e = ge.elu %x {alpha = 1.6732632423543772 : f64, scale = 1.0507009873554805 : f64, input_scale = 1.0 : f64} : tensor<?x8xf32>
  %s = ge.softplus %x {beta = 2.0 : f64, threshold = 20.0 : f64} : tensor<?x8xf32>
  func.return %l, %e, %s : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>
}

// Per-element tests give i1.
// CHECK-LABEL: func.func @predicates(
// CHECK-NEXT:    %n = ge.isnan %x : tensor<4xf32> -> tensor<4xi1>
// CHECK-NEXT:    %i = ge.isinf %x : tensor<4xf32> -> tensor<4xi1>
// CHECK-NEXT:    func.return %n, %i : tensor<4xi1>, tensor<4xi1>
func.func @predicates(%x: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>) {
  %n = ge.isnan %x : tensor<4xf32> -> tensor<4xi1>
  %i = ge.isinf %x : tensor<4xf32> -> tensor<4xi1>
  func.return %n, %i : tensor<4xi1>, tensor<4xi1>
}

// Broadcasting binary math; the divisions and remainders take integers too.
// CHECK-LABEL: func.func @binary(
// CHECK-NEXT:    %0 = ge.atan2 %x, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %1 = ge.hypot %0, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %2 = ge.copysign %1, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %3 = ge.remainder %2, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %4 = ge.fmod %3, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %5 = ge.floor_div %4, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %6 = ge.floor_div %a, %b : tensor<4x8xi64>, tensor<i64> -> tensor<4x8xi64>
// CHECK-NEXT:    %7 = ge.trunc_div %6, %b : tensor<4x8xi64>, tensor<i64> -> tensor<4x8xi64>
// CHECK-NEXT:    %8 = ge.logical_xor %p, %q : tensor<4xi1>, tensor<4xi1> -> tensor<4xi1>
// CHECK-NEXT:    func.return %5, %7, %8 : tensor<4x8xf32>, tensor<4x8xi64>, tensor<4xi1>
func.func @binary(%x: tensor<4x8xf32>, %y: tensor<8xf32>, %a: tensor<4x8xi64>, %b: tensor<i64>, %p: tensor<4xi1>, %q: tensor<4xi1>) -> (tensor<4x8xf32>, tensor<4x8xi64>, tensor<4xi1>) {
  %0 = ge.atan2 %x, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %1 = ge.hypot %0, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %2 = ge.copysign %1, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %3 = ge.remainder %2, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %4 = ge.fmod %3, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %5 = ge.floor_div %4, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %6 = ge.floor_div %a, %b : tensor<4x8xi64>, tensor<i64> -> tensor<4x8xi64>
  %7 = ge.trunc_div %6, %b : tensor<4x8xi64>, tensor<i64> -> tensor<4x8xi64>
  %8 = ge.logical_xor %p, %q : tensor<4xi1>, tensor<4xi1> -> tensor<4xi1>
  func.return %5, %7, %8 : tensor<4x8xf32>, tensor<4x8xi64>, tensor<4xi1>
}
