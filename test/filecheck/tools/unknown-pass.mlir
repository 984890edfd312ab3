// User errors are one `ge-opt: error: ...` line on stderr and exit status 1
// (2 is kept for internal compiler errors). `not` accepts any non-zero status,
// so the command runs under sh, which prints the exact status after the output.
// BEGIN marks where ge-opt's output starts, so nothing may come before the error.

// RUN: sh -c 'echo BEGIN; ge-opt %s -p no-such-pass 2>&1; echo "exit status $?"' | filecheck %s
// CHECK:      {{^}}BEGIN{{$}}
// CHECK-NEXT: {{^}}ge-opt: error: Unrecognized passes: ['no-such-pass']{{$}}
// CHECK-NEXT: {{^}}exit status 1{{$}}
// CHECK-NOT:  {{.}}

// Every unknown name in a pipeline is reported, known ones are not.
// RUN: sh -c 'echo BEGIN; ge-opt %s -p dce,nope,canonicalize,also-nope 2>&1; echo "exit status $?"' | filecheck %s --check-prefix=MANY
// MANY:      {{^}}BEGIN{{$}}
// MANY-NEXT: {{^}}ge-opt: error: Unrecognized passes: ['nope', 'also-nope']{{$}}
// MANY-NEXT: {{^}}exit status 1{{$}}
// MANY-NOT:  {{.}}

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}
