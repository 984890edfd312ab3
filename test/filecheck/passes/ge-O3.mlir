// RUN: ge-opt %s -p ge-O3 | filecheck %s
// RUN: ge-opt %s -p 'ge-O3{disable=OpFusionPass}' | filecheck %s --check-prefix=DISABLED

// ge-O3 also fuses: one op is left. disable= switches passes off by our or
// the article's name.
// CHECK:       %[[F:[^ ]*]] = ge.fused "conv2d_relu"(%x,
// CHECK:       func.return %[[F]] :
// DISABLED-NOT: ge.fused
// DISABLED-NOT: ge.mul
func.func @main(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = ge.const dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %s = ge.const dense<[4.0, 6.0]> : tensor<2xf32>
  %s2 = ge.const dense<[4.0, 6.0]> : tensor<2xf32>
  %z = ge.const dense<0.0> : tensor<2x1x1xf32>
  %c = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x4x4xf32>
  %y = ge.batch_norm %c, %s, %s2, %s, %s2 {epsilon = 1.0e-05 : f64} : tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32> -> tensor<1x2x4x4xf32>
  %a = ge.add %y, %z : tensor<1x2x4x4xf32>, tensor<2x1x1xf32> -> tensor<1x2x4x4xf32>
  %r = ge.relu %a : tensor<1x2x4x4xf32>
  %dead = ge.mul %r, %r : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  func.return %r : tensor<1x2x4x4xf32>
}

// An unknown name is a diagnostic listing the valid ones.
// RUN: not ge-opt %s -p 'ge-O3{disable=no-such-pass}' 2>&1 | filecheck %s --check-prefix=UNKNOWN
// UNKNOWN: ge-opt: error: unknown pass name(s) 'no-such-pass'; known: {{.*}}op-fusion{{.*}} (or the article's OpFusionPass

// ge-O3 merges attention's q, k and v projections (merge-parallel-linears)
// into one linear; op-fusion then makes each slice and its split into heads
// one split_heads.
// CHECK-LABEL: func.func @qkv
// CHECK:         %[[QKV:[^ ]*]] = ge.linear %x, %{{.*}} : tensor<1x1x8xf32>, tensor<16x8xf32> -> tensor<1x1x16xf32>
// CHECK-COUNT-3: ge.fused "split_heads"(%[[QKV]])
// CHECK-NOT:     ge.linear
// DISABLED-LABEL: func.func @qkv
// DISABLED:       ge.linear %x, %{{.*}} -> tensor<1x1x16xf32>
// DISABLED-COUNT-3: ge.slice
// DISABLED-NOT:   ge.linear
func.func @qkv(%x: tensor<1x1x8xf32>) -> (tensor<1x2x1x4xf32>, tensor<1x1x1x4xf32>, tensor<1x1x1x4xf32>) {
  %wq = ge.const dense<1.0> : tensor<8x8xf32>
  %wk = ge.const dense<2.0> : tensor<4x8xf32>
  %wv = ge.const dense<3.0> : tensor<4x8xf32>
  %q = ge.linear %x, %wq : tensor<1x1x8xf32>, tensor<8x8xf32> -> tensor<1x1x8xf32>
  %qh = ge.reshape %q : tensor<1x1x8xf32> -> tensor<1x1x2x4xf32>
  %qt = ge.transpose %qh {permutation = array<i64: 0, 2, 1, 3>} : tensor<1x1x2x4xf32> -> tensor<1x2x1x4xf32>
  %k = ge.linear %x, %wk : tensor<1x1x8xf32>, tensor<4x8xf32> -> tensor<1x1x4xf32>
  %kh = ge.reshape %k : tensor<1x1x4xf32> -> tensor<1x1x1x4xf32>
  %kt = ge.transpose %kh {permutation = array<i64: 0, 2, 1, 3>} : tensor<1x1x1x4xf32> -> tensor<1x1x1x4xf32>
  %v = ge.linear %x, %wv : tensor<1x1x8xf32>, tensor<4x8xf32> -> tensor<1x1x4xf32>
  %vh = ge.reshape %v : tensor<1x1x4xf32> -> tensor<1x1x1x4xf32>
  %vt = ge.transpose %vh {permutation = array<i64: 0, 2, 1, 3>} : tensor<1x1x1x4xf32> -> tensor<1x1x1x4xf32>
  func.return %qt, %kt, %vt : tensor<1x2x1x4xf32>, tensor<1x1x1x4xf32>, tensor<1x1x1x4xf32>
}
