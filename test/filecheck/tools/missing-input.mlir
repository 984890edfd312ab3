// Unreadable input files: one line naming the file, exit status 1.

// RUN: sh -c 'echo BEGIN; ge-opt %S/does-not-exist.mlir 2>&1; echo "exit status $?"' | filecheck %s
// CHECK:      {{^}}BEGIN{{$}}
// CHECK-NEXT: {{^}}ge-opt: error: [Errno 2] No such file or directory: '{{.*}}does-not-exist.mlir'{{$}}
// CHECK-NEXT: {{^}}exit status 1{{$}}
// CHECK-NOT:  {{.}}

// The frontend is chosen by extension; an existing file with an unknown one is a user error too.
// RUN: echo "graph" > %t.onnx
// RUN: sh -c 'echo BEGIN; ge-opt %t.onnx 2>&1; echo "exit status $?"' | filecheck %s --check-prefix=EXT
// EXT:      {{^}}BEGIN{{$}}
// EXT-NEXT: {{^}}ge-opt: error: Unrecognized file extension 'onnx'{{$}}
// EXT-NEXT: {{^}}exit status 1{{$}}
// EXT-NOT:  {{.}}
