// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP

// The value is a tensor constant; the result is a memref of the same shape.
// CHECK-LABEL: func.func @weights(
// CHECK-NEXT:    %w = ascend.weight dense<5.000000e-01> : tensor<64x3x3x3xf32> -> memref<64x3x3x3xf32>
// CHECK-NEXT:    %b = ascend.weight dense<[1.000000e+00, -2.000000e+00]> : tensor<2xf32> -> memref<2xf32>
// CHECK-NEXT:    %h = ascend.weight dense<1.000000e+00> : tensor<4x4xf16> -> memref<4x4xf16>
// CHECK-NEXT:    %q = ascend.weight dense<[1, 2, 3]> : tensor<3xi8> -> memref<3xi8>
// CHECK-NEXT:    %s = ascend.weight dense<3.000000e+00> : tensor<f32> -> memref<f32>
func.func @weights() {
  %w = ascend.weight dense<5.000000e-01> : tensor<64x3x3x3xf32> -> memref<64x3x3x3xf32>
  %b = ascend.weight dense<[1.0, -2.0]> : tensor<2xf32> -> memref<2xf32>
  %h = ascend.weight dense<1.0> : tensor<4x4xf16> -> memref<4x4xf16>
  %q = ascend.weight dense<[1, 2, 3]> : tensor<3xi8> -> memref<3xi8>
  %s = ascend.weight dense<3.0> : tensor<f32> -> memref<f32>
  func.return
}

// Weights live outside the arena, so a tiny arena_size does not limit them.
// CHECK-LABEL: func.func @weight_outside_arena(
// CHECK-SAME:      attributes {ascend.arena_size = 0 : i64}
// CHECK-NEXT:    %w = ascend.weight dense<1.000000e+00> : tensor<1024xf32> -> memref<1024xf32>
func.func @weight_outside_arena() attributes {ascend.arena_size = 0 : i64} {
  %w = ascend.weight dense<1.0> : tensor<1024xf32> -> memref<1024xf32>
  func.return
}
