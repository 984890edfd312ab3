// RUN: ge-opt %s --split-input-file -p 'lower-to-ascend,pipeline-partition{stages=2},task-parallel,memory-reuse' | filecheck %s
// RUN: ge-opt %s --split-input-file -p 'lower-to-ascend,pipeline-partition{stages=3}' | filecheck %s --check-prefix=THREE
// RUN: ge-opt %s --split-input-file -p 'lower-to-ascend,pipeline-partition{stages=1}' | filecheck %s --check-prefix=ONE
// RUN: ge-opt %s --split-input-file -p 'lower-to-ascend,pipeline-partition{stages=3},memory-reuse{reorder=true},task-parallel,verify-plan' | filecheck %s --check-prefix=PLANNED
// RUN: ge-opt %s --split-input-file -p 'lower-to-ascend,pipeline-partition{stages=2},memory-reuse{reorder=true},verify-plan' | filecheck %s --check-prefix=REORDER
// RUN: not ge-opt %s --split-input-file -p 'lower-to-ascend,pipeline-partition{stages=7}' 2>&1 | filecheck %s --check-prefix=TOOMANY
// RUN: not ge-opt %s -p 'lower-to-ascend,pipeline-partition{stages=0}' 2>&1 | filecheck %s --check-prefix=ZERO
// RUN: not ge-opt %s --split-input-file -p 'lower-to-ascend,pipeline-partition,pipeline-partition' 2>&1 | filecheck %s --check-prefix=TWICE

// Cut at the narrow waist: the middle by task count would send the 256 KiB %c
// over the link (~14 us at 30 GB/s); after the pool only 64 bytes cross. Stage
// 1 receives before its first task, stage 0 sends after its last; each stage
// plans its own arena (stage 1's is 1 KiB, not the whole graph's).
// CHECK-LABEL: func.func @waist_stage0(%x: memref<1x16x64x64xf32>)
// CHECK-SAME:      ascend.stage = 0 : i64, ascend.stages = 2 : i64
// CHECK:         ascend.task "relu_0"
// CHECK:         ascend.task "relu_2"
// CHECK:         ascend.task "adaptive_avg_pool2d_0"
// CHECK:         ascend.send %p {peer = 1 : i64, tag = 0 : i64} : memref<1x16x1x1xf32>
// CHECK-NEXT:    func.return{{$}}
// CHECK-LABEL: func.func @waist_stage1() -> memref<1x16x1x1xf32>
// CHECK-SAME:      ascend.arena_size = 1024 : i64, ascend.stage = 1 : i64
// CHECK-NEXT:    %p = ascend.buffer {offset = 0 : i64} : memref<1x16x1x1xf32>
// CHECK-NEXT:    ascend.recv %p {peer = 0 : i64, tag = 0 : i64} : memref<1x16x1x1xf32>
// CHECK:         ascend.task "relu_3"
// CHECK:         ascend.task "relu_4"
// CHECK:         func.return %r : memref<1x16x1x1xf32>
// CHECK-NOT:     ascend.send
// CHECK:         {{^}}// {{-+}}{{$}}
// Planning after the cut keeps receives first and sends last, and the plan verifies.
// PLANNED-LABEL: func.func @waist_stage1()
// PLANNED:         ascend.recv
// PLANNED:         ascend.task
// PLANNED:         ascend.send
// PLANNED-NEXT:    func.return
// ONE-LABEL: func.func @waist(
// ONE-NOT:     ascend.send
// ONE-NOT:     ascend.stage
// TOOMANY: pipeline-partition: @waist has 6 task(s), too few for 7 stages (one task at least per stage)
// ZERO: pipeline-partition: stages must be an integer >= 1, got 0
// TWICE: pipeline-partition: @waist_stage0 is a pipeline stage already
func.func @waist(%x: tensor<1x16x64x64xf32>) -> tensor<1x16x1x1xf32> {
  %a = ge.relu %x : tensor<1x16x64x64xf32>
  %b = ge.relu %a : tensor<1x16x64x64xf32>
  %c = ge.relu %b : tensor<1x16x64x64xf32>
  %p = ge.adaptive_avg_pool2d %c {output_size = array<i64: 1, 1>} : tensor<1x16x64x64xf32> -> tensor<1x16x1x1xf32>
  %q = ge.relu %p : tensor<1x16x1x1xf32>
  %r = ge.relu %q : tensor<1x16x1x1xf32>
  func.return %r : tensor<1x16x1x1xf32>
}

// -----

// Three branches on three cards: a value goes straight from the stage that
// computes it to every later stage that reads it (%x from stage 0 to stage 2,
// past stage 1), once, each transfer with its own tag.
// THREE-LABEL: func.func @branches_stage0(%x: memref<1x4x8x8xf32>)
// THREE:         ascend.send %x {peer = 2 : i64, tag = 0 : i64}
// THREE-NEXT:    ascend.send %b {peer = 1 : i64, tag = 1 : i64}
// THREE-NEXT:    ascend.send %a2 {peer = 2 : i64, tag = 2 : i64}
// THREE-LABEL: func.func @branches_stage1()
// THREE-NEXT:    %b = ascend.buffer {offset = 0 : i64}
// THREE-NEXT:    ascend.recv %b {peer = 0 : i64, tag = 1 : i64}
// THREE:         ascend.task "relu_3"
// THREE:         ascend.send %b2 {peer = 2 : i64, tag = 3 : i64}
// THREE-LABEL: func.func @branches_stage2() -> memref<1x4x8x8xf32>
// THREE:         ascend.recv %x {peer = 0 : i64, tag = 0 : i64}
// THREE:         ascend.recv %a2 {peer = 0 : i64, tag = 2 : i64}
// THREE:         ascend.recv %b2 {peer = 1 : i64, tag = 3 : i64}
// THREE:         ascend.task "add_1"
// THREE:         func.return %y
func.func @branches(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %a = ge.relu %x : tensor<1x4x8x8xf32>
  %a2 = ge.relu %a : tensor<1x4x8x8xf32>
  %b = ge.relu %x : tensor<1x4x8x8xf32>
  %b2 = ge.relu %b : tensor<1x4x8x8xf32>
  %c = ge.relu %x : tensor<1x4x8x8xf32>
  %ab = ge.add %a2, %b2 : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %y = ge.add %ab, %c : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}

// -----

// memory-reuse may reorder a stage's tasks for a lower peak (it does here:
// tower b runs before tower a's pool); the sends stay after the last task.
// REORDER-LABEL: func.func @towers_stage0
// REORDER-SAME:      ascend.memory_program_order
// REORDER:         ascend.task "relu_2"
// REORDER-NEXT:    ^bb0
// REORDER:         ascend.send
// REORDER:         ascend.send
// REORDER-NEXT:    ascend.send
// REORDER-NEXT:    func.return
func.func @towers(%x: tensor<1x16x32x32xf32>) -> tensor<1x16x32x32xf32> {
  %s = ge.relu %x : tensor<1x16x32x32xf32>
  %a1 = ge.relu %s : tensor<1x16x32x32xf32>
  %b1 = ge.relu %s : tensor<1x16x32x32xf32>
  %a2 = ge.adaptive_avg_pool2d %a1 {output_size = array<i64: 16, 16>} : tensor<1x16x32x32xf32> -> tensor<1x16x16x16xf32>
  %b2 = ge.adaptive_avg_pool2d %b1 {output_size = array<i64: 16, 16>} : tensor<1x16x32x32xf32> -> tensor<1x16x16x16xf32>
  %c = ge.add %a2, %b2 : tensor<1x16x16x16xf32>, tensor<1x16x16x16xf32> -> tensor<1x16x16x16xf32>
  %d = ge.relu %c : tensor<1x16x16x16xf32>
  %e = ge.relu %x : tensor<1x16x32x32xf32>
  func.return %e : tensor<1x16x32x32xf32>
}

// -----

// A returned constant is a weight: the last stage has its own copy and
// returns it; nothing is sent for it (three tasks, so every RUN line's stage
// count fits).
// CHECK-LABEL: func.func @returns_a_constant_stage0(
// CHECK-NOT:     ascend.weight
// CHECK:         ascend.send
// CHECK-LABEL: func.func @returns_a_constant_stage1()
// CHECK:         %c = ascend.weight
// CHECK-NOT:     ascend.send
// CHECK:         func.return %d, %c
func.func @returns_a_constant(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<f32>) {
  %a = ge.relu %x : tensor<4xf32>
  %b = ge.relu %a : tensor<4xf32>
  %d = ge.relu %b : tensor<4xf32>
  %c = ge.const dense<2.5> : tensor<f32>
  func.return %d, %c : tensor<4xf32>, tensor<f32>
}
