// RUN: not ge-opt %s 2>&1 | filecheck %s

// The file ends inside the function body: the error is at the end of input.
// CHECK-NOT: Traceback
// CHECK: {{^}}{{.*}}parse-truncated.mlir:[[# @LINE + 4]]:1: error: {{.+}}
// CHECK-NOT: Traceback
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.relu %x : tensor<4xf32>
