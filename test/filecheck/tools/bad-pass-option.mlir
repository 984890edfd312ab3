// Bad pass options and malformed pipelines: one line, exit status 1 (see unknown-pass.mlir).

// RUN: sh -c 'echo BEGIN; ge-opt %s -p "dce{bogus=1}" 2>&1; echo "exit status $?"' | filecheck %s
// CHECK:      {{^}}BEGIN{{$}}
// CHECK-NEXT: {{^}}ge-opt: error: Provided arguments ["bogus"] not found in expected arguments []{{$}}
// CHECK-NEXT: {{^}}exit status 1{{$}}
// CHECK-NOT:  {{.}}

// An unclosed option block is a pipeline syntax error, flattened to one line.
// RUN: sh -c 'echo BEGIN; ge-opt %s -p "dce{" 2>&1; echo "exit status $?"' | filecheck %s --check-prefix=SYNTAX
// SYNTAX:      {{^}}BEGIN{{$}}
// SYNTAX-NEXT: {{^}}ge-opt: error: invalid pass pipeline: {{.*}}Expected argument name here{{$}}
// SYNTAX-NEXT: {{^}}exit status 1{{$}}
// SYNTAX-NOT:  {{.}}

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}
