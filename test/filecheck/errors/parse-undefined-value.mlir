// RUN: not ge-opt %s 2>&1 | filecheck %s

// Parse errors are one `ge-opt: <file>:<line>:<col>: error: <message>` line on
// stderr, exit 1, no traceback. (xDSL reports undefined values at the end of input.)
// CHECK-NOT: Traceback
// CHECK: {{^}}ge-opt: {{.*}}parse-undefined-value.mlir:{{[0-9]+}}:{{[0-9]+}}: error: values used but not defined: [%z]{{$}}
// CHECK-NOT: {{.}}
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.relu %z : tensor<4xf32>
  func.return %y : tensor<4xf32>
}
