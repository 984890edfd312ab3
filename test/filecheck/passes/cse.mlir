// RUN: ge-opt %s -p cse | filecheck %s

// Identical weights and identical ops on the same operands are computed once.
// CHECK-LABEL: func.func @dup
// CHECK-NEXT:    %w = ge.const dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %v = ge.const dense<[1.000000e+00, 3.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %a = ge.mul %x, %w
// CHECK-NEXT:    %s = ge.add %a, %a
// CHECK-NEXT:    %d = ge.mul %x, %v
// CHECK-NEXT:    func.return
func.func @dup(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %w = ge.const dense<[1.0, 2.0]> : tensor<2xf32>
  %w2 = ge.const dense<[1.0, 2.0]> : tensor<2xf32>
  %v = ge.const dense<[1.0, 3.0]> : tensor<2xf32>
  %a = ge.mul %x, %w : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  %b = ge.mul %x, %w2 : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  %s = ge.add %a, %b : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  %d = ge.mul %x, %v : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  func.return %s, %d : tensor<2xf32>, tensor<2xf32>
}

// Negative: dynamic buffers are allocations, so two of one type stay two
// (merging them would alias distinct values).
// CHECK-LABEL: func.func @dyn_buffers
// CHECK-NEXT:    %a = ascend.dyn_buffer : memref<?x4xf32>
// CHECK-NEXT:    %b = ascend.dyn_buffer : memref<?x4xf32>
func.func @dyn_buffers(%x: memref<?x4xf32>) -> (memref<?x4xf32>, memref<?x4xf32>) attributes {ascend.arena_size = 0 : i64} {
  %a = ascend.dyn_buffer : memref<?x4xf32>
  %b = ascend.dyn_buffer : memref<?x4xf32>
  func.return %a, %b : memref<?x4xf32>, memref<?x4xf32>
}
