// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP

// CHECK-LABEL: func.func @matmul_2d(
// CHECK-NEXT:    %y = ge.matmul %a, %b : tensor<16x32xf32>, tensor<32x64xf32> -> tensor<16x64xf32>
func.func @matmul_2d(%a: tensor<16x32xf32>, %b: tensor<32x64xf32>) -> tensor<16x64xf32> {
  %y = ge.matmul %a, %b : tensor<16x32xf32>, tensor<32x64xf32> -> tensor<16x64xf32>
  func.return %y : tensor<16x64xf32>
}

// Batched, and a 2-D rhs shared by every batch.
// CHECK-LABEL: func.func @matmul_batched(
// CHECK-NEXT:    %y = ge.matmul %a, %b : tensor<8x16x32xf32>, tensor<8x32x64xf32> -> tensor<8x16x64xf32>
// CHECK-NEXT:    %z = ge.matmul %a, %c : tensor<8x16x32xf32>, tensor<32x64xf32> -> tensor<8x16x64xf32>
func.func @matmul_batched(%a: tensor<8x16x32xf32>, %b: tensor<8x32x64xf32>, %c: tensor<32x64xf32>) -> (tensor<8x16x64xf32>, tensor<8x16x64xf32>) {
  %y = ge.matmul %a, %b : tensor<8x16x32xf32>, tensor<8x32x64xf32> -> tensor<8x16x64xf32>
  %z = ge.matmul %a, %c : tensor<8x16x32xf32>, tensor<32x64xf32> -> tensor<8x16x64xf32>
  func.return %y, %z : tensor<8x16x64xf32>, tensor<8x16x64xf32>
}

// Batch dims broadcast: [2, 1] with [3] gives [2, 3].
// CHECK-LABEL: func.func @matmul_broadcast_batch(
// CHECK-NEXT:    %y = ge.matmul %a, %b : tensor<2x1x4x8xf32>, tensor<3x8x5xf32> -> tensor<2x3x4x5xf32>
func.func @matmul_broadcast_batch(%a: tensor<2x1x4x8xf32>, %b: tensor<3x8x5xf32>) -> tensor<2x3x4x5xf32> {
  %y = ge.matmul %a, %b : tensor<2x1x4x8xf32>, tensor<3x8x5xf32> -> tensor<2x3x4x5xf32>
  func.return %y : tensor<2x3x4x5xf32>
}

// 1-D operands lose their dim: vector-matrix, matrix-vector, and dot (rank 0).
// CHECK-LABEL: func.func @matmul_vectors(
// CHECK-NEXT:    %vm = ge.matmul %v, %m : tensor<32xf32>, tensor<32x64xf32> -> tensor<64xf32>
// CHECK-NEXT:    %mv = ge.matmul %n, %v : tensor<16x32xf32>, tensor<32xf32> -> tensor<16xf32>
// CHECK-NEXT:    %dot = ge.matmul %v, %v : tensor<32xf32>, tensor<32xf32> -> tensor<f32>
func.func @matmul_vectors(%v: tensor<32xf32>, %m: tensor<32x64xf32>, %n: tensor<16x32xf32>) -> (tensor<64xf32>, tensor<16xf32>, tensor<f32>) {
  %vm = ge.matmul %v, %m : tensor<32xf32>, tensor<32x64xf32> -> tensor<64xf32>
  %mv = ge.matmul %n, %v : tensor<16x32xf32>, tensor<32xf32> -> tensor<16xf32>
  %dot = ge.matmul %v, %v : tensor<32xf32>, tensor<32xf32> -> tensor<f32>
  func.return %vm, %mv, %dot : tensor<64xf32>, tensor<16xf32>, tensor<f32>
}

// CHECK-LABEL: func.func @matmul_dynamic(
// CHECK-NEXT:    %y = ge.matmul %a, %b : tensor<?x16x?xf32>, tensor<32x64xf32> -> tensor<?x16x64xf32>
func.func @matmul_dynamic(%a: tensor<?x16x?xf32>, %b: tensor<32x64xf32>) -> tensor<?x16x64xf32> {
  %y = ge.matmul %a, %b : tensor<?x16x?xf32>, tensor<32x64xf32> -> tensor<?x16x64xf32>
  func.return %y : tensor<?x16x64xf32>
}
