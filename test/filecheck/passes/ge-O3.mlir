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
