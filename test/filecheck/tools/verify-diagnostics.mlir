// --verify-diagnostics as in mlir-opt: each chunk says which diagnostics it
// expects with expected-error / -note (and -warning / -remark); designators
// @+N, @-N, @above, @below place them; the text must occur in the message.
// All match, so ge-opt exits 0, prints the chunks that compiled and nothing else.

// RUN: ge-opt %s --split-input-file --verify-diagnostics 2>&1 | filecheck %s
// CHECK-NOT:  error
// CHECK:      func.func @fine
// CHECK-NOT:  error

func.func @verifier(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{result shape 1x4x8x8 does not match the inferred shape 1x4x6x6}}
  %y = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}

// -----

// The error is at the use; its note points at the op that defines the value.
func.func @cycle(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{uses %b, which 'ge.relu' defines further down}}
  %a = ge.relu %b : tensor<4xf32>
  %b = ge.relu %a : tensor<4xf32>
  // expected-note @above {{%b is defined here}}
  func.return %b : tensor<4xf32>
}

// -----

func.func @unknown_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.softproduct %x : tensor<4xf32>
  // expected-error @-1 {{Operation ge.softproduct is not registered}}
  func.return %y : tensor<4xf32>
}

// -----

func.func @undefined(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %z : tensor<4xf32> // expected-error {{values used but not defined: [%z]}}
}

// -----

func.func @fine(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}
