// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP

// A buffer with `?` dims has no offset; the executor places it per input shape.
// CHECK-LABEL: func.func @dyn_buffer(
// CHECK-NEXT:    %b = ascend.dyn_buffer : memref<?x64xf32>
// CHECK-NEXT:    %c = ascend.dyn_buffer : memref<2x?x?xi1>
func.func @dyn_buffer(%x: memref<?x64xf32>) -> (memref<?x64xf32>, memref<2x?x?xi1>) {
  %b = ascend.dyn_buffer : memref<?x64xf32>
  %c = ascend.dyn_buffer : memref<2x?x?xi1>
  func.return %b, %c : memref<?x64xf32>, memref<2x?x?xi1>
}
