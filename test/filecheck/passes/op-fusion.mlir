// RUN: ge-opt %s --split-input-file -p op-fusion | filecheck %s
// RUN: ge-opt %s --split-input-file -p 'op-fusion{max-group-size=2}' | filecheck %s --check-prefix=CAP

// conv2d_relu: conv (+bias) followed by relu.
// CHECK-LABEL: func.func @conv_relu
// CHECK:         %[[F:.*]] = ge.fused "conv2d_relu"(%x, %w, %b) : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32> {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: tensor<1x1x4x4xf32>, %[[K:.*]]: tensor<2x1x1x1xf32>, %[[C:.*]]: tensor<2xf32>):
// CHECK-NEXT:      %[[V:.*]] = ge.conv2d %[[A]], %[[K]], %[[C]]
// CHECK-NEXT:      %[[R:.*]] = ge.relu %[[V]]
// CHECK-NEXT:      ge.yield %[[R]]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[F]] :
func.func @conv_relu(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = ge.const dense<1.0> : tensor<2x1x1x1xf32>
  %b = ge.const dense<0.5> : tensor<2xf32>
  %c = ge.conv2d %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32> -> tensor<1x2x4x4xf32>
  %r = ge.relu %c : tensor<1x2x4x4xf32>
  func.return %r : tensor<1x2x4x4xf32>
}

// -----

// conv2d_add_relu: the residual join of a ResNet block.
// CHECK-LABEL: func.func @residual
// CHECK:         ge.fused "conv2d_add_relu"(%x, %w, %skip)
// CHECK:           ge.conv2d
// CHECK-NEXT:      ge.add
// CHECK-NEXT:      ge.relu
// CHECK-NOT:     ge.fused
func.func @residual(%x: tensor<1x2x4x4xf32>, %skip: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %c = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %a = ge.add %skip, %c : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  %r = ge.relu %a : tensor<1x2x4x4xf32>
  func.return %r : tensor<1x2x4x4xf32>
}

// -----

// Negative for conv2d_add_relu: a broadcasting add is not a residual, so the
// conv stays alone and add+relu become an elementwise group.
// CHECK-LABEL: func.func @broadcast_add
// CHECK:         %[[C:.*]] = ge.conv2d
// CHECK-NEXT:    ge.fused "elementwise"(%[[C]], %s)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      ge.add
// CHECK-NEXT:      ge.relu
func.func @broadcast_add(%x: tensor<1x2x4x4xf32>, %s: tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32> {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %c = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %a = ge.add %c, %s : tensor<1x2x4x4xf32>, tensor<2x1x1xf32> -> tensor<1x2x4x4xf32>
  %r = ge.relu %a : tensor<1x2x4x4xf32>
  func.return %r : tensor<1x2x4x4xf32>
}

// -----

// conv2d_batch_norm_relu, for graphs where fold-batch-norm did not run.
// CHECK-LABEL: func.func @conv_bn_relu
// CHECK:         ge.fused "conv2d_batch_norm_relu"
// CHECK-NOT:     ge.fused
func.func @conv_bn_relu(%x: tensor<1x1x4x4xf32>, %s: tensor<2xf32>) -> tensor<1x2x4x4xf32> {
  %w = ge.const dense<1.0> : tensor<2x1x1x1xf32>
  %c = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x4x4xf32>
  %y = ge.batch_norm %c, %s, %s, %s, %s {epsilon = 1.0e-05 : f64} : tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32> -> tensor<1x2x4x4xf32>
  %r = ge.relu %y : tensor<1x2x4x4xf32>
  func.return %r : tensor<1x2x4x4xf32>
}

// -----

// Elementwise chains of any length become one group; max-group-size caps them.
// CHECK-LABEL: func.func @chain
// CHECK:         ge.fused "elementwise"(%x, %y)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      ge.add
// CHECK-NEXT:      ge.mul
// CHECK-NEXT:      ge.relu
// CHECK-NEXT:      ge.add
// CHECK-NEXT:      ge.yield
// CAP-LABEL:   func.func @chain
// CAP:           ge.fused "elementwise"
// CAP-NEXT:      ^bb0
// CAP-NEXT:        ge.add
// CAP-NEXT:        ge.mul
// CAP-NEXT:        ge.yield
// CAP:           ge.fused "elementwise"
// CAP-NEXT:      ^bb0
// CAP-NEXT:        ge.relu
// CAP-NEXT:        ge.add
// CAP-NEXT:        ge.yield
func.func @chain(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  %0 = ge.add %x, %y : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  %1 = ge.mul %0, %y : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  %2 = ge.relu %1 : tensor<8xf32>
  %3 = ge.add %2, %x : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  func.return %3 : tensor<8xf32>
}

// -----

// Negative: a value with two users is never pulled into a group (that would
// duplicate its computation).
// CHECK-LABEL: func.func @multi_use
// CHECK:         %[[C:.*]] = ge.conv2d
// CHECK-NEXT:    %[[R:.*]] = ge.relu %[[C]]
// CHECK-NEXT:    %[[M:.*]] = ge.mul %[[C]], %[[C]]
// CHECK-NOT:     ge.fused
func.func @multi_use(%x: tensor<1x1x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = ge.const dense<1.0> : tensor<2x1x1x1xf32>
  %c = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x4x4xf32>
  %r = ge.relu %c : tensor<1x2x4x4xf32>
  %m = ge.mul %c, %c : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  func.return %r, %m : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// An elementwise chain does not take a relu that roots a conv group: the
// conv rule ranks higher.
// CHECK-LABEL: func.func @priority
// CHECK:         %[[F:.*]] = ge.fused "conv2d_relu"
// CHECK:         ge.fused "elementwise"(%[[F]], %y)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      ge.mul
// CHECK-NEXT:      ge.add
// CHECK-NEXT:      ge.yield
func.func @priority(%x: tensor<1x1x4x4xf32>, %y: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = ge.const dense<1.0> : tensor<2x1x1x1xf32>
  %c = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x4x4xf32>
  %r = ge.relu %c : tensor<1x2x4x4xf32>
  %m = ge.mul %r, %y : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  %a = ge.add %m, %y : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  func.return %a : tensor<1x2x4x4xf32>
}

// -----

// Negative: a lone op, or a pool between conv and relu, is left alone.
// CHECK-LABEL: func.func @no_chain
// CHECK-NOT:     ge.fused
func.func @no_chain(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<1.0> : tensor<2x1x1x1xf32>
  %c = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x4x4xf32>
  %p = ge.max_pool2d %c {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = false} : tensor<1x2x4x4xf32> -> tensor<1x2x2x2xf32>
  %r = ge.relu %p : tensor<1x2x2x2xf32>
  func.return %r : tensor<1x2x2x2xf32>
}

// -----

// conv2d_add: a residual join with no activation after it (MobileNetV2).
// CHECK-LABEL: func.func @residual_no_relu
// CHECK-NEXT:    %[[W:[^ ]*]] = ge.const
// CHECK-NEXT:    %[[F:[^ ]*]] = ge.fused "conv2d_add"(%x, %[[W]], %skip)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      ge.conv2d
// CHECK-NEXT:      ge.add
// CHECK-NEXT:      ge.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[F]] :
func.func @residual_no_relu(%x: tensor<1x2x4x4xf32>, %skip: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %c = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %a = ge.add %skip, %c : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  func.return %a : tensor<1x2x4x4xf32>
}

// -----

// Negative for conv2d_add: the add broadcasts, so it is no residual join; the
// conv's other user keeps it out of any group as well.
// CHECK-LABEL: func.func @not_residual
// CHECK:         ge.conv2d
// CHECK-NEXT:    ge.add
// CHECK-NEXT:    ge.conv2d
// CHECK-NEXT:    ge.add
// CHECK-NOT:     ge.fused
func.func @not_residual(%x: tensor<1x2x4x4xf32>, %s: tensor<2x1x1xf32>, %skip: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %c = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %a = ge.add %c, %s : tensor<1x2x4x4xf32>, tensor<2x1x1xf32> -> tensor<1x2x4x4xf32>
  %d = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %b = ge.add %d, %skip : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  func.return %a, %b, %d : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// Conv epilogues: relu6 (imported as clamp(0, 6)), any clamp, hardswish, silu.
// CHECK-LABEL: func.func @conv_epilogues
// CHECK:         ge.fused "conv2d_clamp"
// CHECK:           ge.clamp %{{.*}} {min = 0.000000e+00 : f64, max = 6.000000e+00 : f64}
// CHECK:         ge.fused "conv2d_clamp"
// CHECK:           ge.clamp %{{.*}} {min = -1.000000e+00 : f64}
// CHECK:         ge.fused "conv2d_hardswish"
// CHECK:           ge.hardswish
// CHECK:         ge.fused "conv2d_silu"
// CHECK:           ge.silu
func.func @conv_epilogues(%x: tensor<1x1x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = ge.const dense<1.0> : tensor<2x1x1x1xf32>
  %b = ge.const dense<0.5> : tensor<2xf32>
  %c1 = ge.conv2d %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32> -> tensor<1x2x4x4xf32>
  %r6 = ge.clamp %c1 {min = 0.0 : f64, max = 6.0 : f64} : tensor<1x2x4x4xf32>
  %c2 = ge.conv2d %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32> -> tensor<1x2x4x4xf32>
  %cl = ge.clamp %c2 {min = -1.0 : f64} : tensor<1x2x4x4xf32>
  %c3 = ge.conv2d %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32> -> tensor<1x2x4x4xf32>
  %hs = ge.hardswish %c3 : tensor<1x2x4x4xf32>
  %c4 = ge.conv2d %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32> -> tensor<1x2x4x4xf32>
  %si = ge.silu %c4 : tensor<1x2x4x4xf32>
  func.return %r6, %cl, %hs, %si : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// The forms torch.export's core ATen writes: silu as x * sigmoid(x), hardswish
// as x * clamp(x + 3, 0, 6) / 6; the conv has two users, both in the group.
// CHECK-LABEL: func.func @conv_decomposed_epilogues
// CHECK:         ge.fused "conv2d_silu_decomposed"
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      ge.conv2d
// CHECK-NEXT:      ge.sigmoid
// CHECK-NEXT:      ge.mul
// CHECK-NEXT:      ge.yield
// CHECK:         ge.fused "conv2d_hardswish_decomposed"
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      ge.conv2d
// CHECK-NEXT:      ge.add
// CHECK-NEXT:      ge.clamp
// CHECK-NEXT:      ge.clamp
// CHECK-NEXT:      ge.mul
// CHECK-NEXT:      ge.div
// CHECK-NEXT:      ge.yield
func.func @conv_decomposed_epilogues(%x: tensor<1x1x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = ge.const dense<1.0> : tensor<2x1x1x1xf32>
  %three = ge.const dense<3.0> : tensor<f32>
  %six = ge.const dense<6.0> : tensor<f32>
  %c1 = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x4x4xf32>
  %s1 = ge.sigmoid %c1 : tensor<1x2x4x4xf32>
  %m1 = ge.mul %c1, %s1 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  %c2 = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x4x4xf32>
  %a2 = ge.add %c2, %three : tensor<1x2x4x4xf32>, tensor<f32> -> tensor<1x2x4x4xf32>
  %lo = ge.clamp %a2 {min = 0.0 : f64} : tensor<1x2x4x4xf32>
  %hi = ge.clamp %lo {max = 6.0 : f64} : tensor<1x2x4x4xf32>
  %m2 = ge.mul %c2, %hi : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  %d2 = ge.div %m2, %six : tensor<1x2x4x4xf32>, tensor<f32> -> tensor<1x2x4x4xf32>
  func.return %m1, %d2 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// Negative: x * sigmoid(y) of two different convs is no silu: the sigmoid is
// the second conv's epilogue and the mul stays apart.
// CHECK-LABEL: func.func @not_silu
// CHECK:         ge.conv2d
// CHECK-NEXT:    ge.fused "conv2d_sigmoid"
// CHECK:         ge.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    ge.mul
// CHECK-NOT:     "conv2d_silu
func.func @not_silu(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = ge.const dense<1.0> : tensor<2x1x1x1xf32>
  %c1 = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x4x4xf32>
  %c2 = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x4x4xf32>
  %s = ge.sigmoid %c2 : tensor<1x2x4x4xf32>
  %m = ge.mul %c1, %s : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  func.return %m : tensor<1x2x4x4xf32>
}

// -----

// The other activations with an in-place form in the runtime: sigmoid, tanh,
// hardsigmoid, gelu.
// CHECK-LABEL: func.func @conv_more_epilogues
// CHECK:         ge.fused "conv2d_sigmoid"
// CHECK:           ge.sigmoid
// CHECK:         ge.fused "conv2d_tanh"
// CHECK:           ge.tanh
// CHECK:         ge.fused "conv2d_hardsigmoid"
// CHECK:           ge.hardsigmoid
// CHECK:         ge.fused "conv2d_gelu"
// CHECK:           ge.gelu
func.func @conv_more_epilogues(%x: tensor<1x1x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = ge.const dense<1.0> : tensor<2x1x1x1xf32>
  %c1 = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x4x4xf32>
  %s = ge.sigmoid %c1 : tensor<1x2x4x4xf32>
  %c2 = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x4x4xf32>
  %t = ge.tanh %c2 : tensor<1x2x4x4xf32>
  %c3 = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x4x4xf32>
  %h = ge.hardsigmoid %c3 : tensor<1x2x4x4xf32>
  %c4 = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x4x4xf32>
  %g = ge.gelu %c4 {approximate = "none"} : tensor<1x2x4x4xf32>
  func.return %s, %t, %h, %g : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// Negative: an activation with no epilogue rule (exp) stays apart from the conv.
// CHECK-LABEL: func.func @conv_exp
// CHECK:         ge.conv2d
// CHECK-NEXT:    ge.exp
// CHECK-NOT:     ge.fused
func.func @conv_exp(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = ge.const dense<1.0> : tensor<2x1x1x1xf32>
  %c = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x4x4xf32>
  %e = ge.exp %c : tensor<1x2x4x4xf32>
  func.return %e : tensor<1x2x4x4xf32>
}

// -----

// matmul_bias and matmul_bias_gelu: a matmul (through a view) plus a bias of
// one value per column, then maybe GELU; matmul_gelu: nn.Linear (its bias is
// an operand) as torch.export writes it for 3-D input, then GELU.
// CHECK-LABEL: func.func @matmul_bias
// CHECK:         %[[A:[^ ]*]] = ge.fused "matmul_bias"(%x, %w, %b)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      ge.matmul
// CHECK-NEXT:      ge.add
// CHECK-NEXT:      ge.yield
// CHECK:         %[[G:[^ ]*]] = ge.fused "matmul_bias_gelu"(%x, %w, %b)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      ge.matmul
// CHECK-NEXT:      ge.reshape
// CHECK-NEXT:      ge.add
// CHECK-NEXT:      ge.gelu
// CHECK-NEXT:      ge.yield
// CHECK:         %[[L:[^ ]*]] = ge.fused "matmul_gelu"(%x, %lw, %b)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      ge.linear
// CHECK-NEXT:      ge.reshape
// CHECK-NEXT:      ge.gelu
// CHECK-NEXT:      ge.yield
func.func @matmul_bias(%x: tensor<6x4xf32>, %w: tensor<4x8xf32>, %b: tensor<8xf32>, %lw: tensor<8x4xf32>) -> (tensor<6x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>) {
  %m = ge.matmul %x, %w : tensor<6x4xf32>, tensor<4x8xf32> -> tensor<6x8xf32>
  %a = ge.add %m, %b : tensor<6x8xf32>, tensor<8xf32> -> tensor<6x8xf32>
  %m2 = ge.matmul %x, %w : tensor<6x4xf32>, tensor<4x8xf32> -> tensor<6x8xf32>
  %v2 = ge.reshape %m2 : tensor<6x8xf32> -> tensor<2x3x8xf32>
  %a2 = ge.add %b, %v2 : tensor<8xf32>, tensor<2x3x8xf32> -> tensor<2x3x8xf32>
  %g2 = ge.gelu %a2 {approximate = "none"} : tensor<2x3x8xf32>
  %l = ge.linear %x, %lw, %b : tensor<6x4xf32>, tensor<8x4xf32>, tensor<8xf32> -> tensor<6x8xf32>
  %v3 = ge.reshape %l : tensor<6x8xf32> -> tensor<2x3x8xf32>
  %g3 = ge.gelu %v3 {approximate = "tanh"} : tensor<2x3x8xf32>
  func.return %a, %g2, %g3 : tensor<6x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>
}

// -----

// Negative for matmul_bias: an add of a full-size tensor (a residual) or of a
// per-row vector is no bias. The residual is matmul_add's (the kernel adds
// it as its epilogue); the per-row add broadcasts, so it joins nothing.
// CHECK-LABEL: func.func @matmul_not_bias
// CHECK:         %[[R:[^ ]*]] = ge.fused "matmul_add"(%x, %w, %r)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      ge.matmul
// CHECK-NEXT:      ge.add
// CHECK-NEXT:      ge.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    ge.matmul
// CHECK-NEXT:    ge.add
// CHECK-NOT:     ge.fused
func.func @matmul_not_bias(%x: tensor<6x4xf32>, %w: tensor<4x8xf32>, %r: tensor<6x8xf32>, %c: tensor<6x1xf32>) -> (tensor<6x8xf32>, tensor<6x8xf32>) {
  %m = ge.matmul %x, %w : tensor<6x4xf32>, tensor<4x8xf32> -> tensor<6x8xf32>
  %a = ge.add %m, %r : tensor<6x8xf32>, tensor<6x8xf32> -> tensor<6x8xf32>
  %m2 = ge.matmul %x, %w : tensor<6x4xf32>, tensor<4x8xf32> -> tensor<6x8xf32>
  %a2 = ge.add %m2, %c : tensor<6x8xf32>, tensor<6x1xf32> -> tensor<6x8xf32>
  func.return %a, %a2 : tensor<6x8xf32>, tensor<6x8xf32>
}

// -----

// matmul_add: a projection and the residual join after it (a transformer's
// x + attn(x)), with the norm after it left alone: the add is the linear's
// epilogue. Negative: the projection is also returned, so it cannot join.
// CHECK-LABEL: func.func @matmul_add
// CHECK:         %[[A:[^ ]*]] = ge.fused "matmul_add"(%x, %w, %b, %r)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      ge.linear
// CHECK-NEXT:      ge.add
// CHECK-NEXT:      ge.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    ge.layer_norm %[[A]]
// CHECK-NEXT:    %[[P:[^ ]*]] = ge.linear %x
// CHECK-NEXT:    ge.add %r, %[[P]]
func.func @matmul_add(%x: tensor<2x6x4xf32>, %w: tensor<4x4xf32>, %b: tensor<4xf32>, %r: tensor<2x6x4xf32>) -> (tensor<2x6x4xf32>, tensor<2x6x4xf32>, tensor<2x6x4xf32>) {
  %p = ge.linear %x, %w, %b : tensor<2x6x4xf32>, tensor<4x4xf32>, tensor<4xf32> -> tensor<2x6x4xf32>
  %a = ge.add %r, %p : tensor<2x6x4xf32>, tensor<2x6x4xf32> -> tensor<2x6x4xf32>
  %n = ge.layer_norm %a {normalized_shape = array<i64: 4>, epsilon = 1.000000e-05 : f64} : tensor<2x6x4xf32> -> tensor<2x6x4xf32>
  %p2 = ge.linear %x, %w, %b : tensor<2x6x4xf32>, tensor<4x4xf32>, tensor<4xf32> -> tensor<2x6x4xf32>
  %a2 = ge.add %r, %p2 : tensor<2x6x4xf32>, tensor<2x6x4xf32> -> tensor<2x6x4xf32>
  func.return %n, %a2, %p2 : tensor<2x6x4xf32>, tensor<2x6x4xf32>, tensor<2x6x4xf32>
}

// -----

// add_layer_norm: BERT's "Add & Norm", taking the elementwise ops before the
// add along (the embedding sum).
// CHECK-LABEL: func.func @add_norm
// CHECK:         %[[N:[^ ]*]] = ge.fused "add_layer_norm"(%x, %y, %z, %g, %b)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      ge.add
// CHECK-NEXT:      ge.add
// CHECK-NEXT:      ge.layer_norm
// CHECK-NEXT:      ge.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[N]] :
func.func @add_norm(%x: tensor<2x3x8xf32>, %y: tensor<2x3x8xf32>, %z: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  %g = ge.const dense<1.5> : tensor<8xf32>
  %b = ge.const dense<0.5> : tensor<8xf32>
  %a = ge.add %x, %y : tensor<2x3x8xf32>, tensor<2x3x8xf32> -> tensor<2x3x8xf32>
  %s = ge.add %a, %z : tensor<2x3x8xf32>, tensor<2x3x8xf32> -> tensor<2x3x8xf32>
  %n = ge.layer_norm %s, %g, %b {normalized_shape = array<i64: 8>, epsilon = 1.0e-12 : f64} : tensor<2x3x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x3x8xf32>
  func.return %n : tensor<2x3x8xf32>
}

// -----

// Negative: a pre-norm residual stream (GPT-2) reads the sum twice, so the add
// stays outside the layer_norm.
// CHECK-LABEL: func.func @pre_norm
// CHECK:         %[[A:[^ ]*]] = ge.add
// CHECK-NEXT:    ge.layer_norm %[[A]]
// CHECK-NOT:     ge.fused
func.func @pre_norm(%x: tensor<2x3x8xf32>, %y: tensor<2x3x8xf32>) -> (tensor<2x3x8xf32>, tensor<2x3x8xf32>) {
  %a = ge.add %x, %y : tensor<2x3x8xf32>, tensor<2x3x8xf32> -> tensor<2x3x8xf32>
  %n = ge.layer_norm %a {normalized_shape = array<i64: 8>, epsilon = 1.0e-05 : f64} : tensor<2x3x8xf32> -> tensor<2x3x8xf32>
  func.return %n, %a : tensor<2x3x8xf32>, tensor<2x3x8xf32>
}

// -----

// attention: q @ k^T -> / sqrt(d) -> + mask -> softmax -> @ v as one group,
// with the views torch.export puts around batched matmuls (BERT's block).
// CHECK-LABEL: func.func @attention
// CHECK:         %[[A:[^ ]*]] = ge.fused "attention"(%q, %kt, %scale, %mask, %v)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      ge.matmul
// CHECK-NEXT:      ge.reshape
// CHECK-NEXT:      ge.div
// CHECK-NEXT:      ge.add
// CHECK-NEXT:      ge.softmax
// CHECK-NEXT:      ge.flatten
// CHECK-NEXT:      ge.matmul
// CHECK-NEXT:      ge.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[A]] :
func.func @attention(%q: tensor<4x3x8xf32>, %kt: tensor<4x8x3xf32>, %v: tensor<4x3x8xf32>, %mask: tensor<2x1x1x3xf32>) -> tensor<4x3x8xf32> {
  %scale = ge.const dense<2.828427> : tensor<f32>
  %s = ge.matmul %q, %kt : tensor<4x3x8xf32>, tensor<4x8x3xf32> -> tensor<4x3x3xf32>
  %h = ge.reshape %s : tensor<4x3x3xf32> -> tensor<2x2x3x3xf32>
  %d = ge.div %h, %scale : tensor<2x2x3x3xf32>, tensor<f32> -> tensor<2x2x3x3xf32>
  %m = ge.add %d, %mask : tensor<2x2x3x3xf32>, tensor<2x1x1x3xf32> -> tensor<2x2x3x3xf32>
  %p = ge.softmax %m {dim = -1 : i64} : tensor<2x2x3x3xf32>
  %f = ge.flatten %p {start_dim = 0 : i64, end_dim = 1 : i64} : tensor<2x2x3x3xf32> -> tensor<4x3x3xf32>
  %o = ge.matmul %f, %v : tensor<4x3x3xf32>, tensor<4x3x8xf32> -> tensor<4x3x8xf32>
  func.return %o : tensor<4x3x8xf32>
}

// -----

// The same rule without scale, mask or views; attention_masked_fill for
// masked_fill's where(mask, -inf, scores) (GPT-2's causal mask).
// CHECK-LABEL: func.func @attention_variants
// CHECK:         ge.fused "attention"(%q, %kt, %v)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      ge.matmul
// CHECK-NEXT:      ge.softmax
// CHECK-NEXT:      ge.matmul
// CHECK-NEXT:      ge.yield
// CHECK:         ge.fused "attention_masked_fill"(%q, %kt, %scale, %causal, %ninf, %v)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      ge.matmul
// CHECK-NEXT:      ge.mul
// CHECK-NEXT:      ge.where
// CHECK-NEXT:      ge.softmax
// CHECK-NEXT:      ge.matmul
// CHECK-NEXT:      ge.yield
func.func @attention_variants(%q: tensor<4x3x8xf32>, %kt: tensor<4x8x3xf32>, %v: tensor<4x3x8xf32>, %causal: tensor<3x3xi1>) -> (tensor<4x3x8xf32>, tensor<4x3x8xf32>) {
  %s = ge.matmul %q, %kt : tensor<4x3x8xf32>, tensor<4x8x3xf32> -> tensor<4x3x3xf32>
  %p = ge.softmax %s {dim = -1 : i64} : tensor<4x3x3xf32>
  %o = ge.matmul %p, %v : tensor<4x3x3xf32>, tensor<4x3x8xf32> -> tensor<4x3x8xf32>
  %scale = ge.const dense<0.35> : tensor<f32>
  %ninf = ge.const dense<-1.0e+09> : tensor<f32>
  %s2 = ge.matmul %q, %kt : tensor<4x3x8xf32>, tensor<4x8x3xf32> -> tensor<4x3x3xf32>
  %d2 = ge.mul %s2, %scale : tensor<4x3x3xf32>, tensor<f32> -> tensor<4x3x3xf32>
  %w2 = ge.where %causal, %ninf, %d2 : tensor<3x3xi1>, tensor<f32>, tensor<4x3x3xf32> -> tensor<4x3x3xf32>
  %p2 = ge.softmax %w2 {dim = -1 : i64} : tensor<4x3x3xf32>
  %o2 = ge.matmul %p2, %v : tensor<4x3x3xf32>, tensor<4x3x8xf32> -> tensor<4x3x8xf32>
  func.return %o, %o2 : tensor<4x3x8xf32>, tensor<4x3x8xf32>
}

// -----

// attention_keep_mask: scaled_dot_product_attention's boolean mask (or
// is_causal) keeps the scores where it is true: where(keep, scores, -inf).
// A mask given at run time makes the softmax `safe` (a query that sees no
// key gets 0, as in torch); the group keeps the flag.
// CHECK-LABEL: func.func @attention_keep_mask
// CHECK:         ge.fused "attention_keep_mask"(%q, %kt, %scale, %keep, %ninf, %v)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      ge.matmul
// CHECK-NEXT:      ge.mul
// CHECK-NEXT:      ge.where
// CHECK-NEXT:      ge.softmax %{{.*}} {dim = -1 : i64, safe}
// CHECK-NEXT:      ge.matmul
// CHECK-NEXT:      ge.yield
func.func @attention_keep_mask(%q: tensor<4x3x8xf32>, %kt: tensor<4x8x3xf32>, %v: tensor<4x3x8xf32>, %keep: tensor<3x3xi1>) -> tensor<4x3x8xf32> {
  %scale = ge.const dense<0.35> : tensor<f32>
  %ninf = ge.const dense<-1.0e+09> : tensor<f32>
  %s = ge.matmul %q, %kt : tensor<4x3x8xf32>, tensor<4x8x3xf32> -> tensor<4x3x3xf32>
  %d = ge.mul %s, %scale : tensor<4x3x3xf32>, tensor<f32> -> tensor<4x3x3xf32>
  %w = ge.where %keep, %d, %ninf : tensor<3x3xi1>, tensor<4x3x3xf32>, tensor<f32> -> tensor<4x3x3xf32>
  %p = ge.softmax %w {dim = -1 : i64, safe} : tensor<4x3x3xf32>
  %o = ge.matmul %p, %v : tensor<4x3x3xf32>, tensor<4x3x8xf32> -> tensor<4x3x8xf32>
  func.return %o : tensor<4x3x8xf32>
}

// -----

// The views between a fused qkv projection and attention join the group
// (`repeat`): the split (slice), the split into heads (reshape) and heads
// first (transpose, k^T too); the group reads the projection's buffer. A view
// whose value is also used outside (%kh, returned) stays outside, and so does
// everything before it. Views do not count towards max-group-size: this
// group has 10 ops, 3 of which compute, under the default cap of 8.
// CHECK-LABEL: func.func @attention_head_views
// CHECK:         %kh = ge.reshape %k
// CHECK-NEXT:    %[[A:[^ ]*]] = ge.fused "attention"(%qkv, %kh, %v)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      ge.slice
// CHECK-NEXT:      ge.reshape
// CHECK-NEXT:      ge.transpose
// CHECK-NEXT:      ge.transpose
// CHECK-NEXT:      ge.matmul
// CHECK-NEXT:      ge.softmax
// CHECK-NEXT:      ge.reshape
// CHECK-NEXT:      ge.transpose
// CHECK-NEXT:      ge.matmul
// CHECK-NEXT:      ge.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[A]], %kh :
func.func @attention_head_views(%qkv: tensor<1x3x24xf32>, %k: tensor<1x3x8xf32>, %v: tensor<1x3x8xf32>) -> (tensor<1x2x3x4xf32>, tensor<1x3x2x4xf32>) {
  %q = ge.slice %qkv {dim = 2 : i64, start = 0 : i64, end = 8 : i64, step = 1 : i64} : tensor<1x3x24xf32> -> tensor<1x3x8xf32>
  %qh = ge.reshape %q : tensor<1x3x8xf32> -> tensor<1x3x2x4xf32>
  %qt = ge.transpose %qh {permutation = array<i64: 0, 2, 1, 3>} : tensor<1x3x2x4xf32> -> tensor<1x2x3x4xf32>
  %kh = ge.reshape %k : tensor<1x3x8xf32> -> tensor<1x3x2x4xf32>
  %kt = ge.transpose %kh {permutation = array<i64: 0, 2, 3, 1>} : tensor<1x3x2x4xf32> -> tensor<1x2x4x3xf32>
  %s = ge.matmul %qt, %kt : tensor<1x2x3x4xf32>, tensor<1x2x4x3xf32> -> tensor<1x2x3x3xf32>
  %p = ge.softmax %s {dim = -1 : i64} : tensor<1x2x3x3xf32>
  %vh = ge.reshape %v : tensor<1x3x8xf32> -> tensor<1x3x2x4xf32>
  %vt = ge.transpose %vh {permutation = array<i64: 0, 2, 1, 3>} : tensor<1x3x2x4xf32> -> tensor<1x2x3x4xf32>
  %o = ge.matmul %p, %vt : tensor<1x2x3x3xf32>, tensor<1x2x3x4xf32> -> tensor<1x2x3x4xf32>
  func.return %o, %kh : tensor<1x2x3x4xf32>, tensor<1x3x2x4xf32>
}

// -----

// The transpose that merges the heads back after attention joins the group
// (the kernel writes that layout); one whose input is also used outside
// does not, and the attention before it fuses alone.
// CHECK-LABEL: func.func @attention_merged_heads
// CHECK:         %[[A:[^ ]*]] = ge.fused "attention"(%q, %kt, %v)
// CHECK:           ge.softmax
// CHECK-NEXT:      ge.matmul
// CHECK-NEXT:      ge.transpose {{.*}}permutation = array<i64: 0, 2, 1, 3>
// CHECK-NEXT:      ge.yield
// CHECK:         %[[B:[^ ]*]] = ge.fused "attention"(%q, %kt, %v)
// CHECK:           ge.softmax
// CHECK-NEXT:      ge.matmul
// CHECK-NEXT:      ge.yield
// CHECK:         %[[T:[^ ]*]] = ge.transpose %[[B]]
// CHECK-NEXT:    func.return %[[A]], %[[T]], %[[B]] :
func.func @attention_merged_heads(%q: tensor<1x2x3x4xf32>, %kt: tensor<1x2x4x3xf32>, %v: tensor<1x2x3x4xf32>) -> (tensor<1x3x2x4xf32>, tensor<1x3x2x4xf32>, tensor<1x2x3x4xf32>) {
  %s = ge.matmul %q, %kt : tensor<1x2x3x4xf32>, tensor<1x2x4x3xf32> -> tensor<1x2x3x3xf32>
  %p = ge.softmax %s {dim = -1 : i64} : tensor<1x2x3x3xf32>
  %o = ge.matmul %p, %v : tensor<1x2x3x3xf32>, tensor<1x2x3x4xf32> -> tensor<1x2x3x4xf32>
  %m = ge.transpose %o {permutation = array<i64: 0, 2, 1, 3>} : tensor<1x2x3x4xf32> -> tensor<1x3x2x4xf32>
  %s2 = ge.matmul %q, %kt : tensor<1x2x3x4xf32>, tensor<1x2x4x3xf32> -> tensor<1x2x3x3xf32>
  %p2 = ge.softmax %s2 {dim = -1 : i64} : tensor<1x2x3x3xf32>
  %o2 = ge.matmul %p2, %v : tensor<1x2x3x3xf32>, tensor<1x2x3x4xf32> -> tensor<1x2x3x4xf32>
  %m2 = ge.transpose %o2 {permutation = array<i64: 0, 2, 1, 3>} : tensor<1x2x3x4xf32> -> tensor<1x3x2x4xf32>
  func.return %m, %m2, %o2 : tensor<1x3x2x4xf32>, tensor<1x3x2x4xf32>, tensor<1x2x3x4xf32>
}

// -----

// Grouped-query attention: Hugging Face's repeat_kv of the KV heads (a view
// with a new dim, an expand, a merge of the heads) joins the group, which then
// reads the cache's 2 heads as they are instead of a copy of 4 (the expand
// counts as a view, not towards max-group-size).
// CHECK-LABEL: func.func @attention_grouped_query
// CHECK:         %[[A:[^ ]*]] = ge.fused "attention"(%k, %q, %v)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      ge.reshape
// CHECK-NEXT:      ge.expand
// CHECK-NEXT:      ge.flatten
// CHECK-NEXT:      ge.transpose
// CHECK-NEXT:      ge.matmul
// CHECK-NEXT:      ge.softmax
// CHECK-NEXT:      ge.reshape
// CHECK-NEXT:      ge.expand
// CHECK-NEXT:      ge.flatten
// CHECK-NEXT:      ge.matmul
// CHECK-NEXT:      ge.yield
// CHECK:         func.return %[[A]] :
func.func @attention_grouped_query(%q: tensor<1x4x1x4xf32>, %k: tensor<1x2x5x4xf32>, %v: tensor<1x2x5x4xf32>) -> tensor<1x4x1x4xf32> {
  %k5 = ge.reshape %k : tensor<1x2x5x4xf32> -> tensor<1x2x1x5x4xf32>
  %ke = ge.expand %k5 : tensor<1x2x1x5x4xf32> -> tensor<1x2x2x5x4xf32>
  %kr = ge.flatten %ke {start_dim = 1 : i64, end_dim = 2 : i64} : tensor<1x2x2x5x4xf32> -> tensor<1x4x5x4xf32>
  %kt = ge.transpose %kr {permutation = array<i64: 0, 1, 3, 2>} : tensor<1x4x5x4xf32> -> tensor<1x4x4x5xf32>
  %s = ge.matmul %q, %kt : tensor<1x4x1x4xf32>, tensor<1x4x4x5xf32> -> tensor<1x4x1x5xf32>
  %p = ge.softmax %s {dim = -1 : i64} : tensor<1x4x1x5xf32>
  %v5 = ge.reshape %v : tensor<1x2x5x4xf32> -> tensor<1x2x1x5x4xf32>
  %ve = ge.expand %v5 : tensor<1x2x1x5x4xf32> -> tensor<1x2x2x5x4xf32>
  %vr = ge.flatten %ve {start_dim = 1 : i64, end_dim = 2 : i64} : tensor<1x2x2x5x4xf32> -> tensor<1x4x5x4xf32>
  %o = ge.matmul %p, %vr : tensor<1x4x1x5xf32>, tensor<1x4x5x4xf32> -> tensor<1x4x1x4xf32>
  func.return %o : tensor<1x4x1x4xf32>
}

// -----

// Negative: a repeated v that is also used outside (%ve, returned) stays
// outside the group with what comes before it; the merge of its heads joins.
// CHECK-LABEL: func.func @attention_grouped_query_escapes
// CHECK:         %ve = ge.expand
// CHECK-NEXT:    %[[A:[^ ]*]] = ge.fused "attention"(%k, %q, %ve)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      ge.reshape
// CHECK-NEXT:      ge.expand
// CHECK-NEXT:      ge.flatten
// CHECK-NEXT:      ge.transpose
// CHECK-NEXT:      ge.matmul
// CHECK-NEXT:      ge.softmax
// CHECK-NEXT:      ge.flatten
// CHECK-NEXT:      ge.matmul
// CHECK-NEXT:      ge.yield
// CHECK:         func.return %[[A]], %ve :
func.func @attention_grouped_query_escapes(%q: tensor<1x4x1x4xf32>, %k: tensor<1x2x5x4xf32>, %v: tensor<1x2x5x4xf32>) -> (tensor<1x4x1x4xf32>, tensor<1x2x2x5x4xf32>) {
  %k5 = ge.reshape %k : tensor<1x2x5x4xf32> -> tensor<1x2x1x5x4xf32>
  %ke = ge.expand %k5 : tensor<1x2x1x5x4xf32> -> tensor<1x2x2x5x4xf32>
  %kr = ge.flatten %ke {start_dim = 1 : i64, end_dim = 2 : i64} : tensor<1x2x2x5x4xf32> -> tensor<1x4x5x4xf32>
  %kt = ge.transpose %kr {permutation = array<i64: 0, 1, 3, 2>} : tensor<1x4x5x4xf32> -> tensor<1x4x4x5xf32>
  %s = ge.matmul %q, %kt : tensor<1x4x1x4xf32>, tensor<1x4x4x5xf32> -> tensor<1x4x1x5xf32>
  %p = ge.softmax %s {dim = -1 : i64} : tensor<1x4x1x5xf32>
  %v5 = ge.reshape %v : tensor<1x2x5x4xf32> -> tensor<1x2x1x5x4xf32>
  %ve = ge.expand %v5 : tensor<1x2x1x5x4xf32> -> tensor<1x2x2x5x4xf32>
  %vr = ge.flatten %ve {start_dim = 1 : i64, end_dim = 2 : i64} : tensor<1x2x2x5x4xf32> -> tensor<1x4x5x4xf32>
  %o = ge.matmul %p, %vr : tensor<1x4x1x5xf32>, tensor<1x4x5x4xf32> -> tensor<1x4x1x4xf32>
  func.return %o, %ve : tensor<1x4x1x4xf32>, tensor<1x2x2x5x4xf32>
}

// -----

// Negative: the probabilities are also returned, so the block cannot be one
// op; the softmax stays, and the scores fuse no further than their own chain.
// CHECK-LABEL: func.func @attention_probs_escape
// CHECK:         ge.softmax
// CHECK-NOT:     "attention
func.func @attention_probs_escape(%q: tensor<4x3x8xf32>, %kt: tensor<4x8x3xf32>, %v: tensor<4x3x8xf32>) -> (tensor<4x3x8xf32>, tensor<4x3x3xf32>) {
  %s = ge.matmul %q, %kt : tensor<4x3x8xf32>, tensor<4x8x3xf32> -> tensor<4x3x3xf32>
  %p = ge.softmax %s {dim = -1 : i64} : tensor<4x3x3xf32>
  %o = ge.matmul %p, %v : tensor<4x3x3xf32>, tensor<4x3x8xf32> -> tensor<4x3x8xf32>
  func.return %o, %p : tensor<4x3x8xf32>, tensor<4x3x3xf32>
}

// -----

// Elementwise groups take every unary and binary elementwise op (and where,
// cast), in chains and trees; a value used outside stays the group's input.
// CHECK-LABEL: func.func @elementwise_all
// CHECK:         %[[E:[^ ]*]] = ge.exp %x
// CHECK-NEXT:    %[[F:[^ ]*]] = ge.fused "elementwise"(%x, %y, %[[E]], %i)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      ge.sub
// CHECK-NEXT:      ge.sigmoid
// CHECK-NEXT:      ge.div
// CHECK-NEXT:      ge.tanh
// CHECK-NEXT:      ge.cast
// CHECK-NEXT:      ge.maximum
// CHECK-NEXT:      ge.mul
// CHECK-NEXT:      ge.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[F]], %[[E]] :
func.func @elementwise_all(%x: tensor<8xf32>, %y: tensor<8xf32>, %i: tensor<8xi64>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = ge.exp %x : tensor<8xf32>
  %0 = ge.sub %x, %y : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  %1 = ge.sigmoid %0 : tensor<8xf32>
  %2 = ge.div %1, %e : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  %3 = ge.tanh %y : tensor<8xf32>
  %4 = ge.cast %i : tensor<8xi64> -> tensor<8xf32>
  %5 = ge.maximum %3, %4 : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  %6 = ge.mul %2, %5 : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  func.return %6, %e : tensor<8xf32>, tensor<8xf32>
}

// -----

// split_heads: a slice of a joined q/k/v projection, split into heads and
// heads first, is one group (one copy). Negative: a slice whose split is also
// used outside (%kh, returned) stays apart, as does its transpose.
// CHECK-LABEL: func.func @split_heads
// CHECK:         %[[Q:[^ ]*]] = ge.fused "split_heads"(%qkv)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      ge.slice
// CHECK-NEXT:      ge.reshape
// CHECK-NEXT:      ge.transpose
// CHECK-NEXT:      ge.yield
// CHECK:         %k = ge.slice %qkv
// CHECK-NEXT:    %kh = ge.reshape %k
// CHECK-NEXT:    %kt = ge.transpose %kh
// CHECK-NEXT:    func.return %[[Q]], %kt, %kh :
func.func @split_heads(%qkv: tensor<1x1x16xf32>) -> (tensor<1x2x1x4xf32>, tensor<1x2x1x4xf32>, tensor<1x1x2x4xf32>) {
  %q = ge.slice %qkv {dim = -1 : i64, start = 0 : i64, end = 8 : i64, step = 1 : i64} : tensor<1x1x16xf32> -> tensor<1x1x8xf32>
  %qh = ge.reshape %q : tensor<1x1x8xf32> -> tensor<1x1x2x4xf32>
  %qt = ge.transpose %qh {permutation = array<i64: 0, 2, 1, 3>} : tensor<1x1x2x4xf32> -> tensor<1x2x1x4xf32>
  %k = ge.slice %qkv {dim = -1 : i64, start = 8 : i64, end = 16 : i64, step = 1 : i64} : tensor<1x1x16xf32> -> tensor<1x1x8xf32>
  %kh = ge.reshape %k : tensor<1x1x8xf32> -> tensor<1x1x2x4xf32>
  %kt = ge.transpose %kh {permutation = array<i64: 0, 2, 1, 3>} : tensor<1x1x2x4xf32> -> tensor<1x2x1x4xf32>
  func.return %qt, %kt, %kh : tensor<1x2x1x4xf32>, tensor<1x2x1x4xf32>, tensor<1x1x2x4xf32>
}

// -----

// rotary_embedding: q * cos + cat(-q[..., 4:], q[..., :4]) * sin, one group.
// CHECK-LABEL: func.func @rotary
// CHECK:         %[[R:[^ ]*]] = ge.fused "rotary_embedding"(%q, %cos, %sin)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      ge.mul
// CHECK-NEXT:      ge.slice
// CHECK-NEXT:      ge.slice
// CHECK-NEXT:      ge.neg
// CHECK-NEXT:      ge.concat
// CHECK-NEXT:      ge.mul
// CHECK-NEXT:      ge.add
// CHECK-NEXT:      ge.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]] :
func.func @rotary(%q: tensor<1x4x16x8xf32>, %cos: tensor<1x1x16x8xf32>, %sin: tensor<1x1x16x8xf32>) -> tensor<1x4x16x8xf32> {
  %a = ge.mul %q, %cos : tensor<1x4x16x8xf32>, tensor<1x1x16x8xf32> -> tensor<1x4x16x8xf32>
  %lo = ge.slice %q {dim = -1 : i64, start = 0 : i64, end = 4 : i64, step = 1 : i64} : tensor<1x4x16x8xf32> -> tensor<1x4x16x4xf32>
  %hi = ge.slice %q {dim = -1 : i64, start = 4 : i64, end = 8 : i64, step = 1 : i64} : tensor<1x4x16x8xf32> -> tensor<1x4x16x4xf32>
  %n = ge.neg %hi : tensor<1x4x16x4xf32>
  %rot = ge.concat %n, %lo {dim = -1 : i64} : (tensor<1x4x16x4xf32>, tensor<1x4x16x4xf32>) -> tensor<1x4x16x8xf32>
  %b = ge.mul %rot, %sin : tensor<1x4x16x8xf32>, tensor<1x1x16x8xf32> -> tensor<1x4x16x8xf32>
  %y = ge.add %a, %b : tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32> -> tensor<1x4x16x8xf32>
  func.return %y : tensor<1x4x16x8xf32>
}

// -----

// gated_mlp: silu(x @ Wg) * (x @ Wu), both projections in the group; the same
// with silu written as x * sigmoid(x).
// CHECK-LABEL: func.func @gated_mlp
// CHECK:         ge.fused "gated_mlp"(%x, %wg, %wu)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      ge.linear
// CHECK-NEXT:      ge.silu
// CHECK-NEXT:      ge.linear
// CHECK-NEXT:      ge.mul
// CHECK:         ge.fused "gated_mlp_decomposed"(%x, %wg, %wu)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      ge.linear
// CHECK-NEXT:      ge.sigmoid
// CHECK-NEXT:      ge.mul
// CHECK-NEXT:      ge.linear
// CHECK-NEXT:      ge.mul
func.func @gated_mlp(%x: tensor<4x8xf32>, %wg: tensor<16x8xf32>, %wu: tensor<16x8xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %g = ge.linear %x, %wg : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
  %s = ge.silu %g : tensor<4x16xf32>
  %u = ge.linear %x, %wu : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
  %y = ge.mul %s, %u : tensor<4x16xf32>, tensor<4x16xf32> -> tensor<4x16xf32>
  %g2 = ge.linear %x, %wg : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
  %sg = ge.sigmoid %g2 : tensor<4x16xf32>
  %s2 = ge.mul %g2, %sg : tensor<4x16xf32>, tensor<4x16xf32> -> tensor<4x16xf32>
  %u2 = ge.linear %x, %wu : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
  %y2 = ge.mul %s2, %u2 : tensor<4x16xf32>, tensor<4x16xf32> -> tensor<4x16xf32>
  func.return %y, %y2 : tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// Negative: when the gate's activation is read elsewhere too, it is no
// gated MLP; silu * up then fuses as plain elementwise ops at most.
// CHECK-LABEL: func.func @gate_read_twice
// CHECK-NOT:     "gated_mlp
func.func @gate_read_twice(%x: tensor<4x8xf32>, %wg: tensor<16x8xf32>, %wu: tensor<16x8xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %g = ge.linear %x, %wg : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
  %s = ge.silu %g : tensor<4x16xf32>
  %u = ge.linear %x, %wu : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
  %y = ge.mul %s, %u : tensor<4x16xf32>, tensor<4x16xf32> -> tensor<4x16xf32>
  func.return %y, %s : tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// add_rms_norm: T5's residual add and RMSNorm, as add_layer_norm for LayerNorm.
// CHECK-LABEL: func.func @add_rms_norm
// CHECK:         %[[N:[^ ]*]] = ge.fused "add_rms_norm"(%x, %y, %g)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      ge.add
// CHECK-NEXT:      ge.rms_norm
// CHECK-NEXT:      ge.yield
func.func @add_rms_norm(%x: tensor<2x3x8xf32>, %y: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  %g = ge.const dense<1.5> : tensor<8xf32>
  %s = ge.add %x, %y : tensor<2x3x8xf32>, tensor<2x3x8xf32> -> tensor<2x3x8xf32>
  %n = ge.rms_norm %s, %g {normalized_shape = array<i64: 8>, epsilon = 1.0e-06 : f64} : tensor<2x3x8xf32>, tensor<8xf32> -> tensor<2x3x8xf32>
  func.return %n : tensor<2x3x8xf32>
}

// -----

// rms_norm_16bit: a bf16 model's RMSNorm, in fp32 between two casts, then its weight.
// CHECK-LABEL: func.func @rms_norm_16bit
// CHECK:         %[[N:[^ ]*]] = ge.fused "rms_norm_16bit"(%x, %g)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      ge.cast
// CHECK-NEXT:      ge.rms_norm
// CHECK-NEXT:      ge.cast
// CHECK-NEXT:      ge.mul
// CHECK-NEXT:      ge.yield
// CHECK:         ge.fused "rms_norm_16bit"(%x)
func.func @rms_norm_16bit(%x: tensor<1x1x8xbf16>) -> (tensor<1x1x8xbf16>, tensor<1x1x8xbf16>) {
  %g = ge.const dense<1.5> : tensor<8xbf16>
  %w = ge.cast %x : tensor<1x1x8xbf16> -> tensor<1x1x8xf32>
  %n = ge.rms_norm %w {normalized_shape = array<i64: 8>, epsilon = 1.0e-06 : f64} : tensor<1x1x8xf32> -> tensor<1x1x8xf32>
  %c = ge.cast %n : tensor<1x1x8xf32> -> tensor<1x1x8xbf16>
  %y = ge.mul %g, %c : tensor<8xbf16>, tensor<1x1x8xbf16> -> tensor<1x1x8xbf16>
  %w2 = ge.cast %x : tensor<1x1x8xbf16> -> tensor<1x1x8xf32>
  %n2 = ge.rms_norm %w2 {normalized_shape = array<i64: 8>, epsilon = 1.0e-06 : f64} : tensor<1x1x8xf32> -> tensor<1x1x8xf32>
  %c2 = ge.cast %n2 : tensor<1x1x8xf32> -> tensor<1x1x8xbf16>
  func.return %y, %c2 : tensor<1x1x8xbf16>, tensor<1x1x8xbf16>
}
