// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP

// ge.transpose moves input dim permutation[i] to position i.
// CHECK-LABEL: func.func @transpose(
// CHECK-NEXT:    %y = ge.transpose %x {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x8x4x16xf32> -> tensor<2x4x8x16xf32>
// CHECK-NEXT:    func.return %y : tensor<2x4x8x16xf32>
func.func @transpose(%x: tensor<2x8x4x16xf32>) -> tensor<2x4x8x16xf32> {
  %y = ge.transpose %x {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x8x4x16xf32> -> tensor<2x4x8x16xf32>
  func.return %y : tensor<2x4x8x16xf32>
}

// ge.expand stretches size-1 dims and adds leading ones; `?` keeps the input's size.
// CHECK-LABEL: func.func @expand(
// CHECK-NEXT:    %y = ge.expand %m : tensor<1x1x4x4xi1> -> tensor<2x8x4x4xi1>
// CHECK-NEXT:    %z = ge.expand %x : tensor<?x1x8xf32> -> tensor<3x?x5x8xf32>
// CHECK-NEXT:    func.return %y, %z : tensor<2x8x4x4xi1>, tensor<3x?x5x8xf32>
func.func @expand(%m: tensor<1x1x4x4xi1>, %x: tensor<?x1x8xf32>) -> (tensor<2x8x4x4xi1>, tensor<3x?x5x8xf32>) {
  %y = ge.expand %m : tensor<1x1x4x4xi1> -> tensor<2x8x4x4xi1>
  %z = ge.expand %x : tensor<?x1x8xf32> -> tensor<3x?x5x8xf32>
  func.return %y, %z : tensor<2x8x4x4xi1>, tensor<3x?x5x8xf32>
}

// ge.slice follows Python slicing: negative indices count from the end, bounds clamp.
// CHECK-LABEL: func.func @slice(
// CHECK-NEXT:    %a = ge.slice %x {dim = 1 : i64, start = 0 : i64, end = 3 : i64, step = 1 : i64} : tensor<2x8xf32> -> tensor<2x3xf32>
// CHECK-NEXT:    %b = ge.slice %x {dim = -1 : i64, start = 1 : i64, end = 9223372036854775807 : i64, step = 2 : i64} : tensor<2x8xf32> -> tensor<2x4xf32>
// CHECK-NEXT:    %c = ge.slice %x {dim = 1 : i64, start = -1 : i64, end = 9223372036854775807 : i64, step = 1 : i64} : tensor<2x8xf32> -> tensor<2x1xf32>
// CHECK-NEXT:    func.return %a, %b, %c : tensor<2x3xf32>, tensor<2x4xf32>, tensor<2x1xf32>
func.func @slice(%x: tensor<2x8xf32>) -> (tensor<2x3xf32>, tensor<2x4xf32>, tensor<2x1xf32>) {
  %a = ge.slice %x {dim = 1 : i64, start = 0 : i64, end = 3 : i64, step = 1 : i64} : tensor<2x8xf32> -> tensor<2x3xf32>
  %b = ge.slice %x {dim = -1 : i64, start = 1 : i64, end = 9223372036854775807 : i64, step = 2 : i64} : tensor<2x8xf32> -> tensor<2x4xf32>
  %c = ge.slice %x {dim = 1 : i64, start = -1 : i64, end = 9223372036854775807 : i64, step = 1 : i64} : tensor<2x8xf32> -> tensor<2x1xf32>
  func.return %a, %b, %c : tensor<2x3xf32>, tensor<2x4xf32>, tensor<2x1xf32>
}

// ge.concat adds up the sizes along dim; a dynamic size makes the sum dynamic.
// CHECK-LABEL: func.func @concat(
// CHECK-NEXT:    %y = ge.concat %a, %b {dim = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x6x8x8xf32>
// CHECK-NEXT:    %z = ge.concat %c, %d {dim = 0 : i64} : (tensor<?x8xf32>, tensor<3x8xf32>) -> tensor<?x8xf32>
// CHECK-NEXT:    func.return %y, %z : tensor<1x6x8x8xf32>, tensor<?x8xf32>
func.func @concat(%a: tensor<1x4x8x8xf32>, %b: tensor<1x2x8x8xf32>, %c: tensor<?x8xf32>, %d: tensor<3x8xf32>) -> (tensor<1x6x8x8xf32>, tensor<?x8xf32>) {
  %y = ge.concat %a, %b {dim = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x6x8x8xf32>
  %z = ge.concat %c, %d {dim = 0 : i64} : (tensor<?x8xf32>, tensor<3x8xf32>) -> tensor<?x8xf32>
  func.return %y, %z : tensor<1x6x8x8xf32>, tensor<?x8xf32>
}
