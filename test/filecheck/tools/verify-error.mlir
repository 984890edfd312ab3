// Without --verify-diagnostics an op that does not verify is a user error,
// printed as MLIR prints it: file:line:col at the op's name, the verifier's
// message, the source line and a caret; nothing on stdout, exit status 1.

// RUN: sh -c 'echo BEGIN; ge-opt %s 2>&1; echo "exit status $?"' | filecheck %s
// CHECK:      {{^}}BEGIN{{$}}
// CHECK-NEXT: {{^.*}}verify-error.mlir:[[# @LINE + 18]]:8: error: ge.conv2d: result shape 1x4x8x8 does not match the inferred shape 1x4x6x6{{$}}
// CHECK-NEXT: {{^}}  %y = ge.conv2d %x, %w {{.*}}{{$}}
// CHECK-NEXT: {{^}}       ^^^^^^^^^{{$}}
// CHECK-NEXT: {{^}}exit status 1{{$}}
// CHECK-NOT:  {{.}}

// Stdout stays empty: no partial module is printed.
// RUN: not ge-opt %s 2>/dev/null | wc -c | filecheck %s --check-prefix=STDOUT
// STDOUT: {{^ *}}0{{$}}

// An op with loc("file":line:col) (the importer writes the model's line) is
// reported there, as in MLIR; the source line is shown when the file exists.
// RUN: sed -e 's/ : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x8x8xf32>$/& loc("model.py":12:5)/' %s > %t.mlir
// RUN: not ge-opt %t.mlir 2>&1 | filecheck %s --check-prefix=LOC
// LOC:      {{^}}model.py:12:5: error: ge.conv2d: result shape 1x4x8x8 does not match the inferred shape 1x4x6x6{{$}}
// LOC-NOT:  {{.}}

func.func @f(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  %y = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}
