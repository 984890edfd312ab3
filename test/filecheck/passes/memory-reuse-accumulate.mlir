// RUN: ge-opt %s --split-input-file -p 'op-fusion,lower-to-ascend,memory-reuse' | filecheck %s
// RUN: ge-opt %s --split-input-file -p 'op-fusion,lower-to-ascend,memory-reuse,verify-plan' -o /dev/null

// A conv task whose epilogue adds a residual may write its result over the
// residual (read last, by index, in the add), never over the conv's own
// input %b: the runtime's oneDNN conv then accumulates into those bytes.
// CHECK-LABEL: func.func @residual
// CHECK:         %a = ascend.buffer {offset = 0 : i64}
// CHECK:         %b = ascend.buffer {offset = 1024 : i64}
// CHECK:         %r = ascend.buffer {offset = 0 : i64}
// CHECK-NEXT:    ascend.task "conv2d_add_relu_0" {{.*}} ins(%b, %w, %bias, %a : {{.*}}) outs(%r :
func.func @residual(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = ge.const dense<0.5> : tensor<4x4x1x1xf32>
  %bias = ge.const dense<0.25> : tensor<4xf32>
  %a = ge.relu %x : tensor<1x4x8x8xf32>
  %b = ge.conv2d %a, %w, %bias {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>, tensor<4xf32> -> tensor<1x4x8x8xf32>
  %c = ge.conv2d %b, %w, %bias {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>, tensor<4xf32> -> tensor<1x4x8x8xf32>
  %y = ge.add %c, %a : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %r = ge.relu %y : tensor<1x4x8x8xf32>
  func.return %r : tensor<1x4x8x8xf32>
}

// -----

// The residual %a is read again after the conv task: its bytes stay its own,
// and the conv's input %b (dead after the task) is never taken either.
// CHECK-LABEL: func.func @residual_read_later
// CHECK:         %a = ascend.buffer {offset = 0 : i64}
// CHECK:         %b = ascend.buffer {offset = 1024 : i64}
// CHECK:         %r = ascend.buffer {offset = 2048 : i64}
// CHECK-NEXT:    ascend.task "conv2d_add_relu_0"
func.func @residual_read_later(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = ge.const dense<0.5> : tensor<4x4x1x1xf32>
  %bias = ge.const dense<0.25> : tensor<4xf32>
  %a = ge.relu %x : tensor<1x4x8x8xf32>
  %b = ge.conv2d %a, %w, %bias {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>, tensor<4xf32> -> tensor<1x4x8x8xf32>
  %c = ge.conv2d %b, %w, %bias {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>, tensor<4xf32> -> tensor<1x4x8x8xf32>
  %y = ge.add %c, %a : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %r = ge.relu %y : tensor<1x4x8x8xf32>
  %s = ge.mul %r, %a : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  func.return %s : tensor<1x4x8x8xf32>
}
