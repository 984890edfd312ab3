// --help ends with a table of the GE passes, one per line with its summary.
// (Summaries belong to the passes and are not pinned here; test_registry.py
// checks that every registered pass is listed.)

// RUN: ge-opt --help | filecheck %s
// The flags of the researcher toolkit are listed.
// RUN: ge-opt --help | filecheck %s --check-prefix=FLAGS
// FLAGS: --load-pass-plugin FILE
// FLAGS: --verify-each
// FLAGS: --print-ir-after-all
// FLAGS: --print-ir-after PASS
// FLAGS: --timing
// FLAGS: --pass-statistics
// FLAGS: --emit-dot FILE
// CHECK:      {{^}}usage: {{.*}}
// CHECK:      {{^}}GE passes:{{$}}
// CHECK-DAG:  {{^}}  ge-O3 {{ *[^ ].*}}
// CHECK-DAG:  {{^}}  fold-batch-norm {{ *[^ ].*}}
// CHECK-DAG:  {{^}}  op-fusion {{ *[^ ].*}}
// CHECK-DAG:  {{^}}  layout-transform {{ *[^ ].*}}
// CHECK-DAG:  {{^}}  dce {{ *[^ ].*}}
// CHECK-DAG:  {{^}}  lower-to-ascend {{ *[^ ].*}}
// CHECK-DAG:  {{^}}  memory-reuse {{ *[^ ].*}}
// CHECK-DAG:  {{^}}  task-parallel {{ *[^ ].*}}

// After GE's passes come the common xDSL ones; the other ~120 xDSL passes
// (riscv, csl, stencil, ...) only with --list-passes --all.
// RUN: ge-opt --help | filecheck %s --check-prefix=XDSL
// XDSL:      {{^}}Common xDSL passes (ge-opt --list-passes --all lists all of them):{{$}}
// XDSL:      {{^}}  licm {{.*}}
// XDSL:      {{^}}mlir-opt spellings are accepted: --pass-pipeline='builtin.module(...)' {{.*}}--mlir-print-ir-after-all{{.*}}
// RUN: ge-opt --help | filecheck %s --check-prefix=NOISE
// NOISE-NOT: convert-arith-to-riscv
// NOISE-NOT: stencil-
// RUN: ge-opt --list-passes | filecheck %s --check-prefix=LIST
// LIST:     {{^}}GE passes:{{$}}
// LIST-NOT: convert-arith-to-riscv
// RUN: ge-opt --list-passes --all | filecheck %s --check-prefix=ALL
// ALL:      {{^}}GE passes:{{$}}
// ALL:      {{^}}xDSL passes:{{$}}
// ALL:      {{^}}  convert-riscv-{{.*}}
