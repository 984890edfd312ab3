// --help ends with a table of the GE passes, one per line with its summary,
// in registry order. (Summaries belong to the passes and are not pinned here.)

// RUN: ge-opt --help | filecheck %s
// CHECK:      {{^}}usage: {{.*}}
// CHECK:      {{^}}GE passes:{{$}}
// CHECK-NEXT: {{^}}  fold-batch-norm {{ *[^ ].*}}
// CHECK-NEXT: {{^}}  op-fusion {{ *[^ ].*}}
// CHECK-NEXT: {{^}}  dce {{ *[^ ].*}}
// CHECK-NEXT: {{^}}  lower-to-ascend {{ *[^ ].*}}
// CHECK-NEXT: {{^}}  memory-reuse {{ *[^ ].*}}
// CHECK-NEXT: {{^}}  task-parallel {{ *[^ ].*}}
// CHECK-NOT:  {{.}}
