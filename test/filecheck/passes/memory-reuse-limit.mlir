// RUN: ge-opt %s -p 'lower-to-ascend,memory-reuse{memory-limit-mb=0.02}' | filecheck %s
// RUN: not ge-opt %s -p 'lower-to-ascend,memory-reuse{memory-limit-mb=0.01}' 2>&1 | filecheck %s --check-prefix=TOOSMALL

// In program order both 16 KiB tensors %a1 and %b1 are live at once (peak
// 33 KiB). A budget of 0.02 MB is met by finishing tower a before starting
// tower b: each buffer moves with its first user.
// CHECK-LABEL: func.func @towers
// CHECK-SAME:    ascend.arena_size = 18432 : i64, ascend.memory_lower_bound = 18432 : i64
// CHECK:         %a1 = ascend.buffer {offset = 0 : i64}
// CHECK-NEXT:    ascend.task "conv2d_0"
// CHECK:         %a2 = ascend.buffer
// CHECK-NEXT:    ascend.task "conv2d_2"
// CHECK:         %b1 = ascend.buffer {offset = 0 : i64}
// CHECK-NEXT:    ascend.task "conv2d_1"
// CHECK:         ascend.task "conv2d_3"
// CHECK:         ascend.task "add_0"

// Below the lowest peak any order reaches, the pass fails and says why: the
// budget, the arena, the peak, and the tensors live there, largest first,
// each with the task that produced it.
// TOOSMALL: ge-opt: error: memory-reuse: @towers does not fit the memory budget of 10.2 KiB (memory-limit-mb): the planned arena is 18.0 KiB and the peak of live tensors is 18.0 KiB at task 'conv2d_3' after reordering tasks (the peak was 33.0 KiB in program order). Live at the peak, largest first: %b1 16.0 KiB from 'conv2d_1', %a2 1.0 KiB from 'conv2d_2', %b2 1.0 KiB from 'conv2d_3'
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
