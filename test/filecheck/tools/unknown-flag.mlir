// An unknown flag is a user error: one line, exit status 1 (argparse alone
// would print its usage block and exit 2, our code for compiler bugs).

// RUN: sh -c 'echo BEGIN; ge-opt %s --no-such-flag 2>&1; echo "exit status $?"' | filecheck %s
// CHECK:      {{^}}BEGIN{{$}}
// CHECK-NEXT: {{^}}ge-opt: {{.*}}error: {{.*}}--no-such-flag
// CHECK-NEXT: {{^}}exit status 1{{$}}
// CHECK-NOT:  {{.}}
