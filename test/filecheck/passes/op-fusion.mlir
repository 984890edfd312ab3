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
