// RUN: not ge-opt %s 2>&1 | filecheck %s

// Parse errors are `<file>:<line>:<col>: error: <message>` on stderr with the
// source line and a caret, exit 1, no traceback. An undefined value is
// reported at its first use, not at the end of the input.
// CHECK-NOT: Traceback
// CHECK: {{^}}{{.*}}parse-undefined-value.mlir:[[# @LINE + 5]]:16: error: values used but not defined: [%z]{{$}}
// CHECK-NEXT: {{^}}  %y = ge.relu %z : tensor<4xf32>{{$}}
// CHECK-NEXT: {{^}}               ^^{{$}}
// CHECK-NOT: {{.}}
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.relu %z : tensor<4xf32>
  func.return %y : tensor<4xf32>
}
