// RUN: ge-opt %s --split-input-file -p merge-parallel-linears | filecheck %s

// Attention's q, k and v projections of one input, each split into heads:
// one linear over the joined weights (k's and v's narrower, as with
// grouped-query attention), then a slice of its last dim per projection.
// CHECK-LABEL: func.func @qkv
// CHECK:         %[[W:[^ ]*]] = ge.const {{.*}} : tensor<16x8xf32>
// CHECK-NEXT:    %[[QKV:[^ ]*]] = ge.linear %x, %[[W]] : tensor<1x1x8xf32>, tensor<16x8xf32> -> tensor<1x1x16xf32>
// CHECK-NEXT:    %q = ge.slice %[[QKV]] {dim = -1 : i64, start = 0 : i64, end = 8 : i64, step = 1 : i64}
// CHECK-NEXT:    %qh = ge.reshape %q
// CHECK-NEXT:    %k = ge.slice %[[QKV]] {dim = -1 : i64, start = 8 : i64, end = 12 : i64, step = 1 : i64}
// CHECK-NEXT:    %kh = ge.reshape %k
// CHECK-NEXT:    %v = ge.slice %[[QKV]] {dim = -1 : i64, start = 12 : i64, end = 16 : i64, step = 1 : i64}
// CHECK-NEXT:    %vh = ge.reshape %v
// CHECK-NOT:     ge.linear
func.func @qkv(%x: tensor<1x1x8xf32>) -> (tensor<1x1x2x4xf32>, tensor<1x1x1x4xf32>, tensor<1x1x1x4xf32>) {
  %wq = ge.const dense<1.0> : tensor<8x8xf32>
  %wk = ge.const dense<2.0> : tensor<4x8xf32>
  %wv = ge.const dense<3.0> : tensor<4x8xf32>
  %q = ge.linear %x, %wq : tensor<1x1x8xf32>, tensor<8x8xf32> -> tensor<1x1x8xf32>
  %qh = ge.reshape %q : tensor<1x1x8xf32> -> tensor<1x1x2x4xf32>
  %k = ge.linear %x, %wk : tensor<1x1x8xf32>, tensor<4x8xf32> -> tensor<1x1x4xf32>
  %kh = ge.reshape %k : tensor<1x1x4xf32> -> tensor<1x1x1x4xf32>
  %v = ge.linear %x, %wv : tensor<1x1x8xf32>, tensor<4x8xf32> -> tensor<1x1x4xf32>
  %vh = ge.reshape %v : tensor<1x1x4xf32> -> tensor<1x1x1x4xf32>
  func.return %qh, %kh, %vh : tensor<1x1x2x4xf32>, tensor<1x1x1x4xf32>, tensor<1x1x1x4xf32>
}

// -----

// BERT's biased projections, one without a bias: its part of the joined bias is zeros.
// CHECK-LABEL: func.func @biases
// CHECK:         %[[W:[^ ]*]] = ge.const {{.*}} : tensor<8x4xf32>
// CHECK-NEXT:    %[[B:[^ ]*]] = ge.const dense<[1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]> : tensor<8xf32>
// CHECK-NEXT:    ge.linear %x, %[[W]], %[[B]]
// CHECK-COUNT-2: ge.slice
func.func @biases(%x: tensor<2x4xf32>) -> (tensor<2x2x2xf32>, tensor<2x2x2xf32>) {
  %w = ge.const dense<1.0> : tensor<4x4xf32>
  %b = ge.const dense<1.0> : tensor<4xf32>
  %a = ge.linear %x, %w, %b : tensor<2x4xf32>, tensor<4x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  %ah = ge.reshape %a : tensor<2x4xf32> -> tensor<2x2x2xf32>
  %c = ge.linear %x, %w : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %ch = ge.reshape %c : tensor<2x4xf32> -> tensor<2x2x2xf32>
  func.return %ah, %ch : tensor<2x2x2xf32>, tensor<2x2x2xf32>
}

// -----

// Negative: a gated MLP's gate and up projections (used whole, by silu and
// mul), a linear of another input, and one whose weight is not a constant
// stay as they are.
// CHECK-LABEL: func.func @not_split_into_heads
// CHECK-COUNT-4: ge.linear
// CHECK-NOT:     ge.slice
func.func @not_split_into_heads(%x: tensor<1x8xf32>, %y: tensor<1x8xf32>, %wy: tensor<4x8xf32>) -> (tensor<1x4xf32>, tensor<1x2x2xf32>, tensor<1x2x2xf32>) {
  %wg = ge.const dense<1.0> : tensor<4x8xf32>
  %wu = ge.const dense<2.0> : tensor<4x8xf32>
  %g = ge.linear %x, %wg : tensor<1x8xf32>, tensor<4x8xf32> -> tensor<1x4xf32>
  %s = ge.silu %g : tensor<1x4xf32>
  %u = ge.linear %x, %wu : tensor<1x8xf32>, tensor<4x8xf32> -> tensor<1x4xf32>
  %m = ge.mul %s, %u : tensor<1x4xf32>, tensor<1x4xf32> -> tensor<1x4xf32>
  %a = ge.linear %y, %wg : tensor<1x8xf32>, tensor<4x8xf32> -> tensor<1x4xf32>
  %ah = ge.reshape %a : tensor<1x4xf32> -> tensor<1x2x2xf32>
  %b = ge.linear %x, %wy : tensor<1x8xf32>, tensor<4x8xf32> -> tensor<1x4xf32>
  %bh = ge.reshape %b : tensor<1x4xf32> -> tensor<1x2x2xf32>
  func.return %m, %ah, %bh : tensor<1x4xf32>, tensor<1x2x2xf32>, tensor<1x2x2xf32>
}
