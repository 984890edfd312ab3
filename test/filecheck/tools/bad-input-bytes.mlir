// Input that is not MLIR text at all: one line, exit status 1, no traceback.

// Bytes that are not UTF-8.
// RUN: printf 'func.func @f() {\377\n' > %t.latin1.mlir
// RUN: sh -c 'echo BEGIN; ge-opt %t.latin1.mlir 2>&1; echo "exit status $?"' | filecheck %s --check-prefix=BYTES
// BYTES:      {{^}}BEGIN{{$}}
// BYTES-NEXT: {{^}}ge-opt: error: 'utf-8' codec can't decode byte 0xff in position 16: invalid start byte{{$}}
// BYTES-NEXT: {{^}}exit status 1{{$}}
// BYTES-NOT:  {{.}}

// An integer literal too large for its type is caught while parsing (xDSL
// checks the range when it builds the attribute): the error is at the op.
// RUN: sh -c 'echo BEGIN; ge-opt %s 2>&1; echo "exit status $?"' | filecheck %s --check-prefix=RANGE
// RANGE:      {{^}}BEGIN{{$}}
// RANGE-NEXT: {{^.*}}bad-input-bytes.mlir:[[# @LINE + 7]]:8: error: Integer value 99999999999999999999 is out of range for type i64 {{.*}}
// RANGE-NEXT: {{^}}  %b = ascend.buffer {{.*}}
// RANGE-NEXT: {{^}}       ^^^^^^^^^^^^^{{$}}
// RANGE-NEXT: {{^}}exit status 1{{$}}
// RANGE-NOT:  {{.}}

func.func @huge_offset() {
  %b = ascend.buffer {offset = 99999999999999999999 : i64} : memref<4xf32>
  func.return
}
