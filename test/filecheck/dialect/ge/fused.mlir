// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP

// The body is isolated from above: its block arguments stand for the inputs.
// CHECK-LABEL: func.func @fused_conv2d_relu(
// CHECK-NEXT:    %y = ge.fused "conv2d_relu"(%x, %w, %b) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32> {
// CHECK-NEXT:    ^bb0(%a: tensor<1x3x8x8xf32>, %k: tensor<4x3x3x3xf32>, %c: tensor<4xf32>):
// CHECK-NEXT:      %0 = ge.conv2d %a, %k, %c {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32> -> tensor<1x4x6x6xf32>
// CHECK-NEXT:      %1 = ge.relu %0 : tensor<1x4x6x6xf32>
// CHECK-NEXT:      ge.yield %1 : tensor<1x4x6x6xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %y : tensor<1x4x6x6xf32>
func.func @fused_conv2d_relu(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x6x6xf32> {
  %y = ge.fused "conv2d_relu" (%x, %w, %b) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32> {
  ^bb0(%a: tensor<1x3x8x8xf32>, %k: tensor<4x3x3x3xf32>, %c: tensor<4xf32>):
    %0 = ge.conv2d %a, %k, %c {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32> -> tensor<1x4x6x6xf32>
    %1 = ge.relu %0 : tensor<1x4x6x6xf32>
    ge.yield %1 : tensor<1x4x6x6xf32>
  }
  func.return %y : tensor<1x4x6x6xf32>
}

// Constants used inside must live inside; the kind is free text.
// CHECK-LABEL: func.func @fused_with_const(
// CHECK-NEXT:    %y = ge.fused "add_relu"(%x) : (tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    ^bb0(%a: tensor<4xf32>):
// CHECK-NEXT:      %one = ge.const dense<1.000000e+00> : tensor<4xf32>
// CHECK-NEXT:      %s = ge.add %a, %one : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:      %r = ge.relu %s : tensor<4xf32>
// CHECK-NEXT:      ge.yield %r : tensor<4xf32>
// CHECK-NEXT:    }
func.func @fused_with_const(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.fused "add_relu" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %one = ge.const dense<1.0> : tensor<4xf32>
    %s = ge.add %a, %one : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    %r = ge.relu %s : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  func.return %y : tensor<4xf32>
}

// Fused groups nest and chain like any other op; block labels restart per region.
// CHECK-LABEL: func.func @fused_chain(
// CHECK-NEXT:    %y = ge.fused "relu"(%x) : (tensor<4xf32>) -> tensor<4xf32> {
// CHECK:         %z = ge.fused "outer"(%y) : (tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    ^bb0(%a: tensor<4xf32>):
// CHECK-NEXT:      %inner = ge.fused "inner"(%a) : (tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:      ^bb0(%b: tensor<4xf32>):
// CHECK-NEXT:        ge.yield %b : tensor<4xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      ge.yield %inner : tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %z : tensor<4xf32>
func.func @fused_chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.fused "relu" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %r = ge.relu %a : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  %z = ge.fused "outer" (%y) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %inner = ge.fused "inner" (%a) : (tensor<4xf32>) -> tensor<4xf32> {
    ^bb1(%b: tensor<4xf32>):
      ge.yield %b : tensor<4xf32>
    }
    ge.yield %inner : tensor<4xf32>
  }
  func.return %z : tensor<4xf32>
}
