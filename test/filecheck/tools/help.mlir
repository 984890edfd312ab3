// --help ends with a table of the GE passes, one per line with its summary,
// in registry order. (Summaries belong to the passes and are not pinned here.)

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
// CHECK-NEXT: {{^}}  ge-O0 {{ *[^ ].*}}
// CHECK-NEXT: {{^}}  ge-O1 {{ *[^ ].*}}
// CHECK-NEXT: {{^}}  ge-O2 {{ *[^ ].*}}
// CHECK-NEXT: {{^}}  ge-O3 {{ *[^ ].*}}
// CHECK-NEXT: {{^}}  canonicalize {{ *[^ ].*}}
// CHECK-NEXT: {{^}}  constant-fold {{ *[^ ].*}}
// CHECK-NEXT: {{^}}  cse {{ *}}
// CHECK-NEXT: {{^}}  fold-batch-norm {{ *[^ ].*}}
// CHECK-NEXT: {{^}}  op-fusion {{ *[^ ].*}}
// CHECK-NEXT: {{^}}  dce {{ *[^ ].*}}
// CHECK-NEXT: {{^}}  lower-to-ascend {{ *[^ ].*}}
// CHECK-NOT:  {{.}}
