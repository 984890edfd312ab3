// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP

// Special functions of one operand, and polygamma of order n.
// CHECK-LABEL: func.func @special_unary(
// CHECK-NEXT:    %0 = ge.i0 %x : tensor<2x8xf32>
// CHECK-NEXT:    %1 = ge.i0e %0 : tensor<2x8xf32>
// CHECK-NEXT:    %2 = ge.i1 %1 : tensor<2x8xf32>
// CHECK-NEXT:    %3 = ge.i1e %2 : tensor<2x8xf32>
// CHECK-NEXT:    %4 = ge.ndtri %3 : tensor<2x8xf32>
// CHECK-NEXT:    %5 = ge.erfcx %4 : tensor<2x8xf32>
// CHECK-NEXT:    %6 = ge.airy_ai %5 : tensor<2x8xf32>
// CHECK-NEXT:    %7 = ge.bessel_j0 %6 : tensor<2x8xf32>
// CHECK-NEXT:    %8 = ge.bessel_j1 %7 : tensor<2x8xf32>
// CHECK-NEXT:    %9 = ge.bessel_y0 %8 : tensor<2x8xf32>
// CHECK-NEXT:    %10 = ge.bessel_y1 %9 : tensor<2x8xf32>
// CHECK-NEXT:    %11 = ge.modified_bessel_i0 %10 : tensor<2x8xf32>
// CHECK-NEXT:    %12 = ge.modified_bessel_i1 %11 : tensor<2x8xf32>
// CHECK-NEXT:    %13 = ge.modified_bessel_k0 %12 : tensor<2x8xf32>
// CHECK-NEXT:    %14 = ge.modified_bessel_k1 %13 : tensor<2x8xf32>
// CHECK-NEXT:    %15 = ge.scaled_modified_bessel_k0 %14 : tensor<2x8xf32>
// CHECK-NEXT:    %16 = ge.scaled_modified_bessel_k1 %15 : tensor<2x8xf32>
// CHECK-NEXT:    %17 = ge.spherical_bessel_j0 %16 : tensor<2x8xf32>
// CHECK-NEXT:    %p = ge.polygamma %17 {n = 2 : i64} : tensor<2x8xf32>
// CHECK-NEXT:    func.return %p : tensor<2x8xf32>
func.func @special_unary(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = ge.i0 %x : tensor<2x8xf32>
  %1 = ge.i0e %0 : tensor<2x8xf32>
  %2 = ge.i1 %1 : tensor<2x8xf32>
  %3 = ge.i1e %2 : tensor<2x8xf32>
  %4 = ge.ndtri %3 : tensor<2x8xf32>
  %5 = ge.erfcx %4 : tensor<2x8xf32>
  %6 = ge.airy_ai %5 : tensor<2x8xf32>
  %7 = ge.bessel_j0 %6 : tensor<2x8xf32>
  %8 = ge.bessel_j1 %7 : tensor<2x8xf32>
  %9 = ge.bessel_y0 %8 : tensor<2x8xf32>
  %10 = ge.bessel_y1 %9 : tensor<2x8xf32>
  %11 = ge.modified_bessel_i0 %10 : tensor<2x8xf32>
  %12 = ge.modified_bessel_i1 %11 : tensor<2x8xf32>
  %13 = ge.modified_bessel_k0 %12 : tensor<2x8xf32>
  %14 = ge.modified_bessel_k1 %13 : tensor<2x8xf32>
  %15 = ge.scaled_modified_bessel_k0 %14 : tensor<2x8xf32>
  %16 = ge.scaled_modified_bessel_k1 %15 : tensor<2x8xf32>
  %17 = ge.spherical_bessel_j0 %16 : tensor<2x8xf32>
  %p = ge.polygamma %17 {n = 2 : i64} : tensor<2x8xf32>
  func.return %p : tensor<2x8xf32>
}

// Special functions of two operands broadcast like the other binary ops: zeta, incomplete gamma, nextafter and the orthogonal polynomials (x, n).
// CHECK-LABEL: func.func @special_binary(
// CHECK-NEXT:    %0 = ge.zeta %x, %n : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
// CHECK-NEXT:    %1 = ge.igamma %0, %n : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
// CHECK-NEXT:    %2 = ge.igammac %1, %n : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
// CHECK-NEXT:    %3 = ge.nextafter %2, %n : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
// CHECK-NEXT:    %4 = ge.chebyshev_polynomial_t %3, %n : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
// CHECK-NEXT:    %5 = ge.chebyshev_polynomial_u %4, %n : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
// CHECK-NEXT:    %6 = ge.chebyshev_polynomial_v %5, %n : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
// CHECK-NEXT:    %7 = ge.chebyshev_polynomial_w %6, %n : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
// CHECK-NEXT:    %8 = ge.shifted_chebyshev_polynomial_t %7, %n : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
// CHECK-NEXT:    %9 = ge.shifted_chebyshev_polynomial_u %8, %n : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
// CHECK-NEXT:    %10 = ge.shifted_chebyshev_polynomial_v %9, %n : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
// CHECK-NEXT:    %11 = ge.shifted_chebyshev_polynomial_w %10, %n : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
// CHECK-NEXT:    %12 = ge.hermite_polynomial_h %11, %n : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
// CHECK-NEXT:    %13 = ge.hermite_polynomial_he %12, %n : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
// CHECK-NEXT:    %14 = ge.laguerre_polynomial_l %13, %n : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
// CHECK-NEXT:    %15 = ge.legendre_polynomial_p %14, %n : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
// CHECK-NEXT:    func.return %15 : tensor<2x8xf32>
func.func @special_binary(%x: tensor<2x8xf32>, %n: tensor<8xf32>) -> tensor<2x8xf32> {
  %0 = ge.zeta %x, %n : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  %1 = ge.igamma %0, %n : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  %2 = ge.igammac %1, %n : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  %3 = ge.nextafter %2, %n : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  %4 = ge.chebyshev_polynomial_t %3, %n : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  %5 = ge.chebyshev_polynomial_u %4, %n : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  %6 = ge.chebyshev_polynomial_v %5, %n : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  %7 = ge.chebyshev_polynomial_w %6, %n : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  %8 = ge.shifted_chebyshev_polynomial_t %7, %n : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  %9 = ge.shifted_chebyshev_polynomial_u %8, %n : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  %10 = ge.shifted_chebyshev_polynomial_v %9, %n : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  %11 = ge.shifted_chebyshev_polynomial_w %10, %n : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  %12 = ge.hermite_polynomial_h %11, %n : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  %13 = ge.hermite_polynomial_he %12, %n : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  %14 = ge.laguerre_polynomial_l %13, %n : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  %15 = ge.legendre_polynomial_p %14, %n : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  func.return %15 : tensor<2x8xf32>
}
