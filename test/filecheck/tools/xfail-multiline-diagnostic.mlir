// XFAIL: *
// Known bug: the one-line error keeps only the first line of the exception,
// and IRDL constraint errors put the reason on the second line, so the user
// sees "result 'output' at position 0 does not verify:" and no reason.
// Drop the XFAIL once the reason is on the line.

// RUN: sh -c 'echo BEGIN; ge-opt %s 2>&1; echo "exit status $?"' | filecheck %s
// CHECK:      {{^}}BEGIN{{$}}
// CHECK-NEXT: {{^}}ge-opt: error: {{.*}}expected from variable 'T', but got tensor<5xf32>
// CHECK-NEXT: {{^}}exit status 1{{$}}
// CHECK-NOT:  {{.}}

func.func @f(%x: tensor<4xf32>) -> tensor<5xf32> {
  %y = "ge.relu"(%x) : (tensor<4xf32>) -> tensor<5xf32>
  func.return %y : tensor<5xf32>
}
