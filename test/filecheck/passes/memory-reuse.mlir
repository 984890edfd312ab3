// RUN: ge-opt %s --split-input-file -p lower-to-ascend,memory-reuse | filecheck %s
// RUN: ge-opt %s --split-input-file -p 'lower-to-ascend,memory-reuse{in-place=false}' | filecheck %s --check-prefix=NOINPLACE
// RUN: ge-opt %s --split-input-file -p 'lower-to-ascend,memory-reuse{strategy=size-class in-place=false}' | filecheck %s --check-prefix=SIZECLASS
// RUN: ge-opt %s --split-input-file -p lower-to-ascend,memory-reuse --memory-report -o /dev/null 2>&1 | filecheck %s --check-prefix=REPORT

// A dead buffer's bytes are reused; relu_2 and add_0 write in place over the
// input they read last; the returned %d is live to the end. The function
// states the arena, the lower bound (peak live bytes) and the naive total.
// CHECK-LABEL: func.func @chain
// CHECK-SAME:    attributes {ascend.arena_size = 2048 : i64, ascend.memory_lower_bound = 2048 : i64, ascend.memory_naive = 4096 : i64}
// CHECK:         %a = ascend.buffer {offset = 0 : i64}
// CHECK:         %b = ascend.buffer {offset = 1024 : i64}
// CHECK:         %c = ascend.buffer {offset = 1024 : i64}
// CHECK:         %d = ascend.buffer {offset = 0 : i64}
// Without in-place, %c needs its own bytes; %d still reuses dead %b's.
// NOINPLACE-LABEL: func.func @chain
// NOINPLACE-SAME:    {ascend.arena_size = 3072 : i64, ascend.memory_lower_bound = 3072 : i64, ascend.memory_naive = 4096 : i64}
// NOINPLACE:         %a = ascend.buffer {offset = 0 : i64}
// NOINPLACE:         %b = ascend.buffer {offset = 1024 : i64}
// NOINPLACE:         %c = ascend.buffer {offset = 2048 : i64}
// NOINPLACE:         %d = ascend.buffer {offset = 1024 : i64}
// REPORT: memory-reuse @chain: arena 2048 bytes (2.0 KiB), lower bound 2048 bytes (2.0 KiB), naive 4096 bytes (4.0 KiB), arena/lower bound 1.000x
func.func @chain(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %a = ge.relu %x : tensor<1x4x8x8xf32>
  %b = ge.relu %a : tensor<1x4x8x8xf32>
  %c = ge.relu %b : tensor<1x4x8x8xf32>
  %d = ge.add %a, %c : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  func.return %d : tensor<1x4x8x8xf32>
}

// -----

// Negative: relu_1 may not write over %a, which add_0 reads later; relu_2 may
// not write over %r, which is returned. add_0 does write over %a, its last read.
// CHECK-LABEL: func.func @not_in_place
// CHECK:         %a = ascend.buffer {offset = 0 : i64}
// CHECK:         %b = ascend.buffer {offset = 1024 : i64}
// CHECK:         %r = ascend.buffer {offset = 0 : i64}
// CHECK:         %s = ascend.buffer {offset = 1024 : i64}
func.func @not_in_place(%x: tensor<1x4x8x8xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) {
  %a = ge.relu %x : tensor<1x4x8x8xf32>
  %b = ge.relu %a : tensor<1x4x8x8xf32>
  %r = ge.add %a, %b : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %s = ge.relu %r : tensor<1x4x8x8xf32>
  func.return %r, %s : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
}

// -----

// Size classes cannot put the 1 KiB %c into the 1.5 KiB block %a leaves
// (another power-of-two class); best fit can, so auto keeps best fit.
// CHECK-LABEL:   func.func @classes
// CHECK-SAME:      ascend.arena_size = 2048 : i64
// SIZECLASS-LABEL: func.func @classes
// SIZECLASS-SAME:    ascend.arena_size = 3072 : i64
func.func @classes(%x: tensor<1x6x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w1 = ge.const dense<1.0> : tensor<2x6x1x1xf32>
  %w2 = ge.const dense<1.0> : tensor<4x2x1x1xf32>
  %a = ge.relu %x : tensor<1x6x8x8xf32>
  %b = ge.conv2d %a, %w1 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x6x8x8xf32>, tensor<2x6x1x1xf32> -> tensor<1x2x8x8xf32>
  %c = ge.conv2d %b, %w2 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x2x8x8xf32>, tensor<4x2x1x1xf32> -> tensor<1x4x8x8xf32>
  func.return %c : tensor<1x4x8x8xf32>
}
