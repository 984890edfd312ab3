// RUN: not ge-opt %s 2>&1 | filecheck %s

// An op the registered dialects do not define; the location is on its line.
// CHECK-NOT: Traceback
// CHECK: {{^}}ge-opt: {{.*}}parse-unknown-op.mlir:[[# @LINE + 4]]:{{[0-9]+}}: error: Operation ge.softproduct is not registered{{$}}
// CHECK-NOT: {{.}}
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.relu %x : tensor<4xf32>
  %y = ge.softproduct %a : tensor<4xf32>
  func.return %y : tensor<4xf32>
}
