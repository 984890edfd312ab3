// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP

// GatherV2: the index shape replaces the axis; GatherElements: the result has the index's shape.
// CHECK-LABEL: func.func @gathers(
// CHECK-NEXT:    %e = ge.gather %t, %ids {axis = 0 : i64} : tensor<100x32xf32>, tensor<2x8xi64> -> tensor<2x8x32xf32>
// CHECK-NEXT:    %g = ge.gather_elements %x, %pos {dim = 1 : i64} : tensor<2x8xf32>, tensor<2x3xi64> -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %e, %g : tensor<2x8x32xf32>, tensor<2x3xf32>
func.func @gathers(%t: tensor<100x32xf32>, %ids: tensor<2x8xi64>, %x: tensor<2x8xf32>, %pos: tensor<2x3xi64>) -> (tensor<2x8x32xf32>, tensor<2x3xf32>) {
  %e = ge.gather %t, %ids {axis = 0 : i64} : tensor<100x32xf32>, tensor<2x8xi64> -> tensor<2x8x32xf32>
  %g = ge.gather_elements %x, %pos {dim = 1 : i64} : tensor<2x8xf32>, tensor<2x3xi64> -> tensor<2x3xf32>
  func.return %e, %g : tensor<2x8x32xf32>, tensor<2x3xf32>
}

// Advanced indexing: adjacent indexed dims keep their place, separated ones go first.
// CHECK-LABEL: func.func @advanced(
// CHECK-NEXT:    %a = ge.index %x, %i, %i {dims = array<i64: 0, 2>} : (tensor<5x6x7xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x6xf32>
// CHECK-NEXT:    %b = ge.index %x, %j, %i {dims = array<i64: 0, 2>} : (tensor<5x6x7xf32>, tensor<2x1xi64>, tensor<2xi64>) -> tensor<2x2x6xf32>
// CHECK-NEXT:    %c = ge.index %x, %i {dims = array<i64: 1>} : (tensor<5x6x7xf32>, tensor<2xi64>) -> tensor<5x2x7xf32>
// CHECK-NEXT:    func.return %a, %b, %c : tensor<2x6xf32>, tensor<2x2x6xf32>, tensor<5x2x7xf32>
func.func @advanced(%x: tensor<5x6x7xf32>, %i: tensor<2xi64>, %j: tensor<2x1xi64>) -> (tensor<2x6xf32>, tensor<2x2x6xf32>, tensor<5x2x7xf32>) {
  %a = ge.index %x, %i, %i {dims = array<i64: 0, 2>} : (tensor<5x6x7xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x6xf32>
  %b = ge.index %x, %j, %i {dims = array<i64: 0, 2>} : (tensor<5x6x7xf32>, tensor<2x1xi64>, tensor<2xi64>) -> tensor<2x2x6xf32>
  %c = ge.index %x, %i {dims = array<i64: 1>} : (tensor<5x6x7xf32>, tensor<2xi64>) -> tensor<5x2x7xf32>
  func.return %a, %b, %c : tensor<2x6xf32>, tensor<2x2x6xf32>, tensor<5x2x7xf32>
}

// index_put writes a KV cache row; scatter_elements reduces into x.
// CHECK-LABEL: func.func @scatters(
// CHECK-NEXT:    %c = ge.index_put %cache, %new, %pos {dims = array<i64: 2>, accumulate = false} : (tensor<1x4x64x8xf32>, tensor<1x4x1x8xf32>, tensor<1xi64>) -> tensor<1x4x64x8xf32>
// CHECK-NEXT:    %s = ge.scatter_elements %x, %idx, %src {dim = 0 : i64, reduce = "sum", include_self = true} : (tensor<4x8xf32>, tensor<2x8xi64>, tensor<2x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    func.return %c, %s : tensor<1x4x64x8xf32>, tensor<4x8xf32>
func.func @scatters(%cache: tensor<1x4x64x8xf32>, %new: tensor<1x4x1x8xf32>, %pos: tensor<1xi64>, %x: tensor<4x8xf32>, %idx: tensor<2x8xi64>, %src: tensor<2x8xf32>) -> (tensor<1x4x64x8xf32>, tensor<4x8xf32>) {
  %c = ge.index_put %cache, %new, %pos {dims = array<i64: 2>, accumulate = false} : (tensor<1x4x64x8xf32>, tensor<1x4x1x8xf32>, tensor<1xi64>) -> tensor<1x4x64x8xf32>
  %s = ge.scatter_elements %x, %idx, %src {dim = 0 : i64, reduce = "sum", include_self = true} : (tensor<4x8xf32>, tensor<2x8xi64>, tensor<2x8xf32>) -> tensor<4x8xf32>
  func.return %c, %s : tensor<1x4x64x8xf32>, tensor<4x8xf32>
}

// Reflect padding, and constant padding whose negative pad crops.
// CHECK-LABEL: func.func @pads(
// CHECK-NEXT:    %r = ge.pad %x {low = array<i64: 0, 0, 1, 1>, high = array<i64: 0, 0, 1, 1>, mode = "reflect", value = 0.000000e+00 : f64} : tensor<1x3x8x8xf32> -> tensor<1x3x10x10xf32>
// CHECK-NEXT:    %c = ge.pad %x {low = array<i64: 0, 0, -1, 0>, high = array<i64: 0, 0, 0, 1>, mode = "constant", value = 1.500000e+00 : f64} : tensor<1x3x8x8xf32> -> tensor<1x3x7x9xf32>
// CHECK-NEXT:    func.return %r, %c : tensor<1x3x10x10xf32>, tensor<1x3x7x9xf32>
func.func @pads(%x: tensor<1x3x8x8xf32>) -> (tensor<1x3x10x10xf32>, tensor<1x3x7x9xf32>) {
  %r = ge.pad %x {low = array<i64: 0, 0, 1, 1>, high = array<i64: 0, 0, 1, 1>, mode = "reflect", value = 0.0 : f64} : tensor<1x3x8x8xf32> -> tensor<1x3x10x10xf32>
  %c = ge.pad %x {low = array<i64: 0, 0, -1, 0>, high = array<i64: 0, 0, 0, 1>, mode = "constant", value = 1.5 : f64} : tensor<1x3x8x8xf32> -> tensor<1x3x7x9xf32>
  func.return %r, %c : tensor<1x3x10x10xf32>, tensor<1x3x7x9xf32>
}
