// RUN: ge-opt --version | filecheck %s
// RUN: ge-opt -v | filecheck %s
// CHECK: {{^}}ge-opt (xdsl {{[0-9]+\.[0-9]+\.[0-9]+}}){{$}}
// CHECK-NOT: {{.}}
