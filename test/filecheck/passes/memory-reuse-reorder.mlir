// RUN: ge-opt %s -p 'lower-to-ascend,memory-reuse{reorder=true}' --split-input-file | filecheck %s
// RUN: ge-opt %s -p 'lower-to-ascend,memory-reuse' --split-input-file | filecheck %s --check-prefix=PROGRAM
// RUN: ge-opt %s -p 'lower-to-ascend,memory-reuse{reorder=true}' --split-input-file --memory-report 2>&1 >/dev/null | filecheck %s --check-prefix=REPORT

// memory-reuse{reorder=true} plans for the smallest peak without a budget:
// finishing tower a before starting tower b keeps one 16 KiB tensor live at
// a time (18 KiB instead of 33 KiB), and the function records what program
// order needed.
// CHECK-LABEL: func.func @towers
// CHECK-SAME:    ascend.arena_size = 18432 : i64, ascend.memory_lower_bound = 18432 : i64
// CHECK-SAME:    ascend.memory_program_order = 33792 : i64
// CHECK:         ascend.task "conv2d_0"
// CHECK:         %a2 = ascend.buffer
// CHECK-NEXT:    ascend.task "conv2d_2"
// CHECK:         ascend.task "conv2d_1"
// PROGRAM-LABEL: func.func @towers
// PROGRAM-SAME:    ascend.arena_size = 33792 : i64
// PROGRAM-NOT:     ascend.memory_program_order
// REPORT: memory-reuse @towers: arena 18432 bytes (18.0 KiB), {{.*}}, tasks reordered: 33792 bytes (33.0 KiB) in program order
func.func @towers(%x: tensor<1x1x16x16xf32>) -> tensor<1x1x16x16xf32> {
  %wide = ge.const dense<1.0> : tensor<16x1x1x1xf32>
  %narrow = ge.const dense<1.0> : tensor<1x16x1x1xf32>
  %a1 = ge.conv2d %x, %wide {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1x16x16xf32>, tensor<16x1x1x1xf32> -> tensor<1x16x16x16xf32>
  %b1 = ge.conv2d %x, %wide {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1x16x16xf32>, tensor<16x1x1x1xf32> -> tensor<1x16x16x16xf32>
  %a2 = ge.conv2d %a1, %narrow {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x16x16x16xf32>, tensor<1x16x1x1xf32> -> tensor<1x1x16x16xf32>
  %b2 = ge.conv2d %b1, %narrow {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x16x16x16xf32>, tensor<1x16x1x1xf32> -> tensor<1x1x16x16xf32>
  %y = ge.add %a2, %b2 : tensor<1x1x16x16xf32>, tensor<1x1x16x16xf32> -> tensor<1x1x16x16xf32>
  func.return %y : tensor<1x1x16x16xf32>
}

// -----

// Negative: a chain has one order; nothing is reordered or recorded.
// CHECK-LABEL: func.func @chain
// CHECK-NOT:     ascend.memory_program_order
// CHECK:         ascend.task "relu_0"
// CHECK:         ascend.task "neg_0"
func.func @chain(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %a = ge.relu %x : tensor<4x4xf32>
  %b = ge.neg %a : tensor<4x4xf32>
  func.return %b : tensor<4x4xf32>
}
