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

// -----

// An int8 conv's residual is read by index in its epilogue, like a float
// conv's: the output takes the residual %a's bytes (same size, both i8),
// never those of its input %b; oneDNN then adds it as a sum post-op.
// CHECK-LABEL: func.func @int8_residual
// CHECK:         %a = ascend.buffer {offset = [[A:[0-9]+]] : i64}
// CHECK:         %b = ascend.buffer {offset = [[B:[0-9]+]] : i64}
// CHECK:         %c = ascend.buffer {offset = [[A]] : i64}
// CHECK-NEXT:    ascend.task "quantized_conv2d_2" {{.*}} ins(%b, %w, %s, %a : {{.*}}) outs(%c :
func.func @int8_residual(%x: tensor<1x4x8x8xi8>) -> tensor<1x4x8x8xf32> {
  %w = ge.const dense<3> : tensor<4x4x1x1xi8>
  %s = ge.const dense<0.01> : tensor<4xf32>
  %a = ge.quantized_conv2d %x, %w, %s {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, input_scale = 0.02 : f32, output_scale = 0.05 : f32, relu} : tensor<1x4x8x8xi8>, tensor<4x4x1x1xi8>, tensor<4xf32> -> tensor<1x4x8x8xi8>
  %b = ge.quantized_conv2d %a, %w, %s {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, input_scale = 0.05 : f32, output_scale = 0.05 : f32, relu} : tensor<1x4x8x8xi8>, tensor<4x4x1x1xi8>, tensor<4xf32> -> tensor<1x4x8x8xi8>
  %c = ge.quantized_conv2d %b, %w, %s residual %a : tensor<1x4x8x8xi8> {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, input_scale = 0.05 : f32, output_scale = 0.05 : f32, residual_scale = 0.05 : f32, relu} : tensor<1x4x8x8xi8>, tensor<4x4x1x1xi8>, tensor<4xf32> -> tensor<1x4x8x8xi8>
  %d = ge.quantized_conv2d %c, %w, %s {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, input_scale = 0.05 : f32} : tensor<1x4x8x8xi8>, tensor<4x4x1x1xi8>, tensor<4xf32> -> tensor<1x4x8x8xf32>
  func.return %d : tensor<1x4x8x8xf32>
}

// -----

// The residual is also the conv's input: its bytes are not taken.
// CHECK-LABEL: func.func @int8_residual_is_input
// CHECK:         %a = ascend.buffer {offset = 0 : i64}
// CHECK:         %c = ascend.buffer {offset = 1024 : i64}
// CHECK-NEXT:    ascend.task "quantized_conv2d_1"
func.func @int8_residual_is_input(%x: tensor<1x4x8x8xi8>) -> tensor<1x4x8x8xf32> {
  %w = ge.const dense<3> : tensor<4x4x1x1xi8>
  %s = ge.const dense<0.01> : tensor<4xf32>
  %a = ge.quantized_conv2d %x, %w, %s {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, input_scale = 0.02 : f32, output_scale = 0.05 : f32, relu} : tensor<1x4x8x8xi8>, tensor<4x4x1x1xi8>, tensor<4xf32> -> tensor<1x4x8x8xi8>
  %c = ge.quantized_conv2d %a, %w, %s residual %a : tensor<1x4x8x8xi8> {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, input_scale = 0.05 : f32, output_scale = 0.05 : f32, residual_scale = 0.05 : f32, relu} : tensor<1x4x8x8xi8>, tensor<4x4x1x1xi8>, tensor<4xf32> -> tensor<1x4x8x8xi8>
  %d = ge.quantized_conv2d %c, %w, %s {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, input_scale = 0.05 : f32} : tensor<1x4x8x8xi8>, tensor<4x4x1x1xi8>, tensor<4xf32> -> tensor<1x4x8x8xf32>
  func.return %d : tensor<1x4x8x8xf32>
}
