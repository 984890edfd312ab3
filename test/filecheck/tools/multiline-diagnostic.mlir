// A verifier's reason sits on the lines after its headline: the one-line
// error must still carry it.

// RUN: sh -c 'echo BEGIN; ge-opt %s 2>&1; echo "exit status $?"' | filecheck %s
// CHECK:      {{^}}BEGIN{{$}}
// CHECK-NEXT: {{^.*}}multiline-diagnostic.mlir:[[# @LINE + 7]]:8: error: {{.*}}expected from variable 'T', but got tensor<5xf32>
// CHECK-NEXT: {{^}}  %y = "ge.relu"(%x) {{.*}}
// CHECK-NEXT: {{^}}       ^^^^^^^^^{{$}}
// CHECK-NEXT: {{^}}exit status 1{{$}}
// CHECK-NOT:  {{.}}

func.func @f(%x: tensor<4xf32>) -> tensor<5xf32> {
  %y = "ge.relu"(%x) : (tensor<4xf32>) -> tensor<5xf32>
  func.return %y : tensor<5xf32>
}
