// --verify-diagnostics fails (exit 1) when a chunk's diagnostics differ from
// its annotations: an error that is not expected, and an expected one that
// did not come, each reported at its line with the source and a caret.

// RUN: sh -c 'ge-opt %s --split-input-file --verify-diagnostics >/dev/null 2>%t.err; echo "exit status $?"' | filecheck %s --check-prefix=EXIT
// EXIT: {{^}}exit status 1{{$}}
// RUN: not ge-opt %s --split-input-file --verify-diagnostics 2>&1 >/dev/null | filecheck %s

// The message changed: the annotation no longer matches.
// CHECK:      {{^.*}}verify-diagnostics-fail.mlir:[[# @LINE + 8]]:8: error: unexpected error: ge.conv2d: result shape 1x4x8x8 does not match the inferred shape 1x4x6x6{{$}}
// CHECK-NEXT: {{^}}  %y = ge.conv2d {{.*}}
// CHECK-NEXT: {{^}}       ^^^^^^^^^{{$}}
// CHECK-NEXT: {{^.*}}verify-diagnostics-fail.mlir:[[# @LINE + 4]]:6: error: expected error "result shape 1x4x8x8 does not match the inferred shape 1x4x7x7" was not produced{{$}}
// CHECK-NEXT: {{^}}  // expected-{{error}} @+1 {{[{][{].*}}
// CHECK-NEXT: {{^}}     ^^^^^^^^^^^^^^{{$}}
func.func @message_changed(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{result shape 1x4x8x8 does not match the inferred shape 1x4x7x7}}
  %y = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}

// -----

// The error is gone: the input verifies, but an error was expected.
// CHECK-NEXT: {{^.*}}verify-diagnostics-fail.mlir:[[# @LINE + 4]]:6: error: expected error "does not match the inferred shape" was not produced{{$}}
// CHECK-NEXT: {{^}}  // expected-{{error}} @+1 {{[{][{].*}}
// CHECK-NEXT: {{^}}     ^^^^^^^^^^^^^^{{$}}
func.func @error_gone(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{does not match the inferred shape}}
  %y = ge.relu %x : tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// The error is on another line than the annotation says.
// CHECK-NEXT: {{^.*}}verify-diagnostics-fail.mlir:[[# @LINE + 6]]:8: error: unexpected error: {{.*}}expected from variable 'T', but got tensor<5xf32>{{$}}
// CHECK-NEXT: {{.*}}
// CHECK-NEXT: {{.*}}
// CHECK-NEXT: {{^.*}}verify-diagnostics-fail.mlir:[[# @LINE + 2]]:6: error: expected error "expected from variable" was not produced{{$}}
func.func @wrong_line(%x: tensor<4xf32>) -> tensor<5xf32> {
  // expected-error @+2 {{expected from variable}}
  %y = "ge.relu"(%x) : (tensor<4xf32>) -> tensor<5xf32>
  func.return %y : tensor<5xf32>
}
// CHECK-NEXT: {{^}}  // expected-{{error}} @+2 {{.*}}
// CHECK-NEXT: {{^}}     ^^^^^^^^^^^^^^{{$}}
// CHECK-NOT: {{.}}
