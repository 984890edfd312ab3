// Invalid pass options, malformed pipelines and bad command-line values: one
// line naming the option or the position, exit status 1, nothing else (no
// traceback). More in bad-pass-option.mlir and unknown-pass.mlir.

// RUN: sh -c 'echo BEGIN; ge-opt %s -p "op-fusion{max-group-size=abc}" 2>&1; echo "exit status $?"' | filecheck %s --check-prefix=TYPE
// TYPE:      {{^}}BEGIN{{$}}
// TYPE-NEXT: {{^}}ge-opt: error: Incompatible types: given ('abc',), expected <class 'int'>{{$}}
// TYPE-NEXT: {{^}}exit status 1{{$}}
// TYPE-NOT:  {{.}}

// RUN: sh -c 'echo BEGIN; ge-opt %s -p "op-fusion{max-group-size}" 2>&1; echo "exit status $?"' | filecheck %s --check-prefix=BARE
// BARE:      {{^}}BEGIN{{$}}
// BARE-NEXT: {{^}}ge-opt: error: Incompatible types: given (), expected <class 'int'>{{$}}
// BARE-NEXT: {{^}}exit status 1{{$}}
// BARE-NOT:  {{.}}

// RUN: sh -c 'echo BEGIN; ge-opt %s -p "op-fusion{max-group-size=2,3}" 2>&1; echo "exit status $?"' | filecheck %s --check-prefix=TUPLE
// TUPLE:      {{^}}BEGIN{{$}}
// TUPLE-NEXT: {{^}}ge-opt: error: Incompatible types: given (2, 3), expected <class 'int'>{{$}}
// TUPLE-NEXT: {{^}}exit status 1{{$}}
// TUPLE-NOT:  {{.}}

// RUN: sh -c 'echo BEGIN; ge-opt %s -p "op-fusion{max-group-size=2.5}" 2>&1; echo "exit status $?"' | filecheck %s --check-prefix=FLOAT
// FLOAT:      {{^}}BEGIN{{$}}
// FLOAT-NEXT: {{^}}ge-opt: error: Incompatible types: given (2.5,), expected <class 'int'>{{$}}
// FLOAT-NEXT: {{^}}exit status 1{{$}}
// FLOAT-NOT:  {{.}}

// RUN: sh -c 'echo BEGIN; ge-opt %s -p "op-fusion{max-group-size=-2}" 2>&1; echo "exit status $?"' | filecheck %s --check-prefix=RANGE
// RANGE:      {{^}}BEGIN{{$}}
// RANGE-NEXT: {{^}}ge-opt: error: op-fusion: max-group-size must be >= 1, got -2{{$}}
// RANGE-NEXT: {{^}}exit status 1{{$}}
// RANGE-NOT:  {{.}}

// RUN: sh -c 'echo BEGIN; ge-opt %s -p "dce,,cse" 2>&1; echo "exit status $?"' | filecheck %s --check-prefix=EMPTY
// EMPTY:      {{^}}BEGIN{{$}}
// EMPTY-NEXT: {{^}}ge-opt: error: invalid pass pipeline: Error parsing pass pipeline specification: pass-pipeline:1:5 dce,,cse ^ Expected pass name here{{$}}
// EMPTY-NEXT: {{^}}exit status 1{{$}}
// EMPTY-NOT:  {{.}}

// RUN: sh -c 'echo BEGIN; ge-opt %s -p "dce, cse" 2>&1; echo "exit status $?"' | filecheck %s --check-prefix=SPACE
// SPACE:      {{^}}BEGIN{{$}}
// SPACE-NEXT: {{^}}ge-opt: error: invalid pass pipeline: Error parsing pass pipeline specification: pass-pipeline:1:5 dce, cse ^ Expected pass name here{{$}}
// SPACE-NEXT: {{^}}exit status 1{{$}}
// SPACE-NOT:  {{.}}

// MLIR's nested form is taken by -p too (see mlir-spellings.mlir).
// RUN: sh -c 'echo BEGIN; ge-opt %s -p "builtin.module(dce)" 2>&1; echo "exit status $?"' | filecheck %s --check-prefix=NESTED
// NESTED:      {{^}}BEGIN{{$}}
// NESTED-NEXT: {{^}}builtin.module {{[{]}}{{$}}
// NESTED:      {{^}}exit status 0{{$}}

// RUN: sh -c 'echo BEGIN; ge-opt %s -t nope 2>&1; echo "exit status $?"' | filecheck %s --check-prefix=TARGET
// TARGET:      {{^}}BEGIN{{$}}
// TARGET-NEXT: {{^}}ge-opt: error: argument -t/--target: invalid choice: 'nope' (choose from {{.*}}){{$}}
// TARGET-NEXT: {{^}}exit status 1{{$}}
// TARGET-NOT:  {{.}}

// RUN: sh -c 'echo BEGIN; ge-opt %s -f onnx 2>&1; echo "exit status $?"' | filecheck %s --check-prefix=FRONTEND
// FRONTEND:      {{^}}BEGIN{{$}}
// FRONTEND-NEXT: {{^}}ge-opt: error: argument -f/--frontend: invalid choice: 'onnx' (choose from 'mlir'){{$}}
// FRONTEND-NEXT: {{^}}exit status 1{{$}}
// FRONTEND-NOT:  {{.}}

// RUN: sh -c 'echo BEGIN; ge-opt %s --elide-elementsattrs-if-larger=abc 2>&1; echo "exit status $?"' | filecheck %s --check-prefix=ELIDE
// ELIDE:      {{^}}BEGIN{{$}}
// ELIDE-NEXT: {{^}}ge-opt: error: argument --elide-elementsattrs-if-larger: invalid int value: 'abc'{{$}}
// ELIDE-NEXT: {{^}}exit status 1{{$}}
// ELIDE-NOT:  {{.}}

// RUN: sh -c 'echo BEGIN; ge-opt %s -o %t.missing-dir/out.mlir 2>&1; echo "exit status $?"' | filecheck %s --check-prefix=OUTPUT
// OUTPUT:      {{^}}BEGIN{{$}}
// OUTPUT-NEXT: {{^}}ge-opt: error: [Errno 2] No such file or directory: '{{.*}}.missing-dir/out.mlir'{{$}}
// OUTPUT-NEXT: {{^}}exit status 1{{$}}
// OUTPUT-NOT:  {{.}}

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}
