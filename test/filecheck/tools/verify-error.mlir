// Without --verify-diagnostics an op that does not verify is a user error,
// printed as MLIR prints it: file:line:col at the op's name, the verifier's
// message, the source line and a caret; nothing on stdout, exit status 1.

// RUN: sh -c 'echo BEGIN; ge-opt %s 2>&1; echo "exit status $?"' | filecheck %s
// CHECK:      {{^}}BEGIN{{$}}
// CHECK-NEXT: {{^.*}}verify-error.mlir:[[# @LINE + 14]]:8: error: ge.conv2d: result shape 1x4x8x8 does not match the inferred shape 1x4x6x6{{$}}
// CHECK-NEXT: {{^}}  %y = ge.conv2d %x, %w {{.*}}{{$}}
// CHECK-NEXT: {{^}}       ^^^^^^^^^{{$}}
// CHECK-NEXT: {{^}}exit status 1{{$}}
// CHECK-NOT:  {{.}}

// Stdout stays empty: no partial module is printed.
// RUN: not ge-opt %s 2>/dev/null | wc -c | filecheck %s --check-prefix=STDOUT
// STDOUT: {{^ *}}0{{$}}

// An op built elsewhere (the importer) carries loc("file":line:col); that
// position stands in for the parsed one when the op has none.

func.func @f(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  %y = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}
