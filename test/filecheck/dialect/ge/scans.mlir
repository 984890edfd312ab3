// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP

// Running reductions keep the input type.
// CHECK-LABEL: func.func @scans(
// CHECK-NEXT:    %c = ge.cumprod %x {dim = -1 : i64} : tensor<2x8xf32>
// CHECK-NEXT:    %s = ge.cumsum %m {dim = 1 : i64} : tensor<2x8xi64>
// CHECK-NEXT:    func.return %c, %s : tensor<2x8xf32>, tensor<2x8xi64>
func.func @scans(%x: tensor<2x8xf32>, %m: tensor<2x8xi64>) -> (tensor<2x8xf32>, tensor<2x8xi64>) {
  %c = ge.cumprod %x {dim = -1 : i64} : tensor<2x8xf32>
  %s = ge.cumsum %m {dim = 1 : i64} : tensor<2x8xi64>
  func.return %c, %s : tensor<2x8xf32>, tensor<2x8xi64>
}

// Arg-reductions give i64 indices; without dim, the index into the flattened input.
// CHECK-LABEL: func.func @arg(
// CHECK-NEXT:    %a = ge.argmax %x {dim = -1 : i64, keepdim = false} : tensor<2x8xf32> -> tensor<2xi64>
// CHECK-NEXT:    %b = ge.argmin %x {dim = 0 : i64, keepdim = true} : tensor<2x8xf32> -> tensor<1x8xi64>
// CHECK-NEXT:    %c = ge.argmax %x {keepdim = false} : tensor<2x8xf32> -> tensor<i64>
// CHECK-NEXT:    func.return %a, %b, %c : tensor<2xi64>, tensor<1x8xi64>, tensor<i64>
func.func @arg(%x: tensor<2x8xf32>) -> (tensor<2xi64>, tensor<1x8xi64>, tensor<i64>) {
  %a = ge.argmax %x {dim = -1 : i64, keepdim = false} : tensor<2x8xf32> -> tensor<2xi64>
  %b = ge.argmin %x {dim = 0 : i64, keepdim = true} : tensor<2x8xf32> -> tensor<1x8xi64>
  %c = ge.argmax %x {keepdim = false} : tensor<2x8xf32> -> tensor<i64>
  func.return %a, %b, %c : tensor<2xi64>, tensor<1x8xi64>, tensor<i64>
}

// TopK and Sort give values and i64 indices; dynamic dims stay dynamic.
// CHECK-LABEL: func.func @sorting(
// CHECK-NEXT:    %v, %i = ge.topk %x {k = 3 : i64, dim = -1 : i64, largest = true, sorted = true} : tensor<?x8xf32> -> (tensor<?x3xf32>, tensor<?x3xi64>)
// CHECK-NEXT:    %sv, %si = ge.sort %x {dim = 1 : i64, descending = true, stable = false} : tensor<?x8xf32> -> (tensor<?x8xf32>, tensor<?x8xi64>)
// CHECK-NEXT:    func.return %v, %i, %sv, %si : tensor<?x3xf32>, tensor<?x3xi64>, tensor<?x8xf32>, tensor<?x8xi64>
func.func @sorting(%x: tensor<?x8xf32>) -> (tensor<?x3xf32>, tensor<?x3xi64>, tensor<?x8xf32>, tensor<?x8xi64>) {
  %v, %i = ge.topk %x {k = 3 : i64, dim = -1 : i64, largest = true, sorted = true} : tensor<?x8xf32> -> (tensor<?x3xf32>, tensor<?x3xi64>)
  %sv, %si = ge.sort %x {dim = 1 : i64, descending = true, stable = false} : tensor<?x8xf32> -> (tensor<?x8xf32>, tensor<?x8xi64>)
  func.return %v, %i, %sv, %si : tensor<?x3xf32>, tensor<?x3xi64>, tensor<?x8xf32>, tensor<?x8xi64>
}

// Reverse (torch.flip), Tile (Tensor.repeat), LogSoftmax and a product reduction.
// CHECK-LABEL: func.func @more(
// CHECK-NEXT:    %r = ge.reverse %x {dims = array<i64: 0, -1>} : tensor<4x8xf32>
// CHECK-NEXT:    %t = ge.tile %x {multiples = array<i64: 2, 1, 3>} : tensor<4x8xf32> -> tensor<2x4x24xf32>
// CHECK-NEXT:    %l = ge.log_softmax %x {dim = -1 : i64} : tensor<4x8xf32>
// CHECK-NEXT:    %p = ge.reduce_prod %x {dims = array<i64: 1>, keepdim = false} : tensor<4x8xf32> -> tensor<4xf32>
// CHECK-NEXT:    func.return %r, %t, %l, %p : tensor<4x8xf32>, tensor<2x4x24xf32>, tensor<4x8xf32>, tensor<4xf32>
func.func @more(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<2x4x24xf32>, tensor<4x8xf32>, tensor<4xf32>) {
  %r = ge.reverse %x {dims = array<i64: 0, -1>} : tensor<4x8xf32>
  %t = ge.tile %x {multiples = array<i64: 2, 1, 3>} : tensor<4x8xf32> -> tensor<2x4x24xf32>
  %l = ge.log_softmax %x {dim = -1 : i64} : tensor<4x8xf32>
  %p = ge.reduce_prod %x {dims = array<i64: 1>, keepdim = false} : tensor<4x8xf32> -> tensor<4xf32>
  func.return %r, %t, %l, %p : tensor<4x8xf32>, tensor<2x4x24xf32>, tensor<4x8xf32>, tensor<4xf32>
}
