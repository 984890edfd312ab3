// mlir-opt's spellings work in ge-opt: --pass-pipeline='builtin.module(...)'
// with nesting and options is the same run as the flat -p list (and -p takes
// it too); the --mlir-* flags are aliases of ge-opt's own.

// RUN: ge-opt %s --mlir-print-op-generic | filecheck %s --check-prefix=GENERIC
// GENERIC: "ge.add"(%x, %y)
// RUN: ge-opt %s -p 'canonicalize,op-fusion{max-group-size=2},cse' > %t.flat
// RUN: ge-opt %s --pass-pipeline='builtin.module(func.func(canonicalize, op-fusion{max-group-size=2}), cse)' > %t.nested
// RUN: ge-opt %s -pass-pipeline 'builtin.module(canonicalize,func.func(op-fusion{max-group-size=2}),cse)' > %t.spaced
// RUN: ge-opt %s -p 'builtin.module(func.func(canonicalize,op-fusion{max-group-size=2},cse))' > %t.p
// RUN: cmp %t.flat %t.nested
// RUN: cmp %t.flat %t.spaced
// RUN: cmp %t.flat %t.p
// RUN: filecheck %s --input-file %t.nested
// CHECK: ge.fused "elementwise"

// RUN: ge-opt %s -p canonicalize --mlir-print-ir-after-all --mlir-timing --mlir-pass-statistics --mlir-disable-threading 2>&1 >/dev/null | filecheck %s --check-prefix=ALIASES
// ALIASES: IR Dump After canonicalize
// ALIASES: pass timing
// RUN: ge-opt %s --mlir-print-debuginfo | filecheck %s --check-prefix=DEBUGINFO
// DEBUGINFO: loc(

// A malformed pipeline names what is wrong, exit 1.
// RUN: not ge-opt %s --pass-pipeline='builtin.module(func.func(cse)' 2>&1 | filecheck %s --check-prefix=UNCLOSED
// UNCLOSED: {{^}}ge-opt: error: missing ')' at the end of 'builtin.module(func.func(cse)'{{$}}
// RUN: not ge-opt %s --pass-pipeline='builtin.module(cse(dce))' 2>&1 | filecheck %s --check-prefix=NOTANCHOR
// NOTANCHOR: {{^}}ge-opt: error: 'cse(' in 'builtin.module(cse(dce))': only op anchors {{.*}}

// A misspelled pass or flag gets a "did you mean".
// RUN: not ge-opt %s -p canonicalise 2>&1 | filecheck %s --check-prefix=PASS
// PASS: {{^}}ge-opt: error: Unrecognized passes: ['canonicalise'] (did you mean 'canonicalize'?){{$}}
// RUN: not ge-opt %s --pass-pipeline='builtin.module(op-fuson)' 2>&1 | filecheck %s --check-prefix=NESTED
// NESTED: {{^}}ge-opt: error: Unrecognized passes: ['op-fuson'] (did you mean 'op-fusion'?){{$}}
// RUN: not ge-opt %s --mlir-print-ir-afer-all 2>&1 | filecheck %s --check-prefix=FLAG
// FLAG: {{^}}ge-opt: error: unrecognized arguments: --mlir-print-ir-afer-all (did you mean '--mlir-print-ir-after-all'?){{$}}

func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.add %x, %y : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %r = ge.relu %a : tensor<4xf32>
  func.return %r : tensor<4xf32>
}
