// RUN: not ge-opt %s 2>&1 | filecheck %s

// An op the registered dialects do not define: the error is at its name, as
// MLIR puts it, with the source line and a caret under the name.
// CHECK-NOT: Traceback
// CHECK: {{^.*}}parse-unknown-op.mlir:[[# @LINE + 6]]:8: error: Operation ge.softproduct is not registered{{$}}
// CHECK-NEXT: {{^}}  %y = ge.softproduct %a : tensor<4xf32>{{$}}
// CHECK-NEXT: {{^}}       ^^^^^^^^^^^^^^{{$}}
// CHECK-NOT: {{.}}
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.relu %x : tensor<4xf32>
  %y = ge.softproduct %a : tensor<4xf32>
  func.return %y : tensor<4xf32>
}
