// ge-opt reads stdin when no file is given or the file is `-`, and writes to
// -o instead of stdout.

// RUN: ge-opt < %s | filecheck %s
// RUN: ge-opt - < %s | filecheck %s
// RUN: ge-opt %s -o %t.out.mlir && filecheck %s --input-file %t.out.mlir

// CHECK:      {{^}}builtin.module {
// CHECK-NEXT:   func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:     %y = ge.relu %x : tensor<4xf32>
// CHECK-NEXT:     func.return %y : tensor<4xf32>
// CHECK-NEXT:   }
// CHECK-NEXT: }
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.relu %x : tensor<4xf32>
  func.return %y : tensor<4xf32>
}
