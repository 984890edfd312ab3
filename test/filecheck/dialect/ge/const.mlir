// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP

// Splats, nested lists, ints, bools, f16, rank 0 and empty tensors.
// CHECK-LABEL: func.func @const_literals(
// CHECK-NEXT:    %splat = ge.const dense<1.500000e+00> : tensor<2x3xf32>
// CHECK-NEXT:    %list = ge.const dense<[[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT:    %ints = ge.const dense<[1, -2, 3]> : tensor<3xi64>
// CHECK-NEXT:    %bools = ge.const dense<[true, false]> : tensor<2xi1>
// CHECK-NEXT:    %half = ge.const dense<2.500000e+00> : tensor<f16>
// CHECK-NEXT:    %empty = ge.const dense<> : tensor<0xf32>
func.func @const_literals() {
  %splat = ge.const dense<1.5> : tensor<2x3xf32>
  %list = ge.const dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %ints = ge.const dense<[1, -2, 3]> : tensor<3xi64>
  %bools = ge.const dense<[true, false]> : tensor<2xi1>
  %half = ge.const dense<2.5> : tensor<f16>
  %empty = ge.const dense<> : tensor<0xf32>
  func.return
}

// Hex input is raw little-endian bytes; small tensors print as decimal lists.
// bf16: decimal text rounds to the nearest bf16 (1.1 is 1.1015625), hex is the
// raw 16-bit words (0x3F80 = 1.0, 0xC020 = -2.5), and ops take bf16 operands.
// CHECK-LABEL: func.func @const_bf16(
// CHECK-NEXT:    %list = ge.const dense<[1.101560e+00, -2.500000e+00]> : tensor<2xbf16>
// CHECK-NEXT:    %hex = ge.const dense<[1.000000e+00, -2.500000e+00]> : tensor<2xbf16>
// CHECK-NEXT:    %sum = ge.add %list, %hex : tensor<2xbf16>, tensor<2xbf16> -> tensor<2xbf16>
func.func @const_bf16() -> tensor<2xbf16> {
  %list = ge.const dense<[1.1, -2.5]> : tensor<2xbf16>
  %hex = ge.const dense<"0x803F20C0"> : tensor<2xbf16>
  %sum = ge.add %list, %hex : tensor<2xbf16>, tensor<2xbf16> -> tensor<2xbf16>
  func.return %sum : tensor<2xbf16>
}

// CHECK-LABEL: func.func @const_hex_small(
// CHECK-NEXT:    %c = ge.const dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
func.func @const_hex_small() -> tensor<2xf32> {
  %c = ge.const dense<"0x0000803F00000040"> : tensor<2xf32>
  func.return %c : tensor<2xf32>
}

// Over 100 elements the printer keeps hex, so weights re-parse fast.
// CHECK-LABEL: func.func @const_hex_large(
// CHECK-NEXT:    %c = ge.const dense<"0x000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F"> : tensor<128xi8>
func.func @const_hex_large() -> tensor<128xi8> {
  %c = ge.const dense<"0x000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F"> : tensor<128xi8>
  func.return %c : tensor<128xi8>
}
