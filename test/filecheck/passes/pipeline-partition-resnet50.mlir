// RUN: ge-opt %s -p 'pipeline-partition{stages=2},task-parallel,memory-reuse' | filecheck %s
// RUN: ge-opt %s -p 'pipeline-partition{stages=4}' | filecheck %s --check-prefix=FOUR

// The zoo's ResNet-50 (batch 1) after ge-O3 and lower-to-ascend, weights as
// zero splats (as in a .npu file's graph.mlir: the cut does not read them).
// Regenerate: ge-import resnet50 | ge-opt -p ge-O3,lower-to-ascend, then
// replace every ascend.weight's value by dense<0.000000e+00>.
//
// Two cards: the cut falls inside layer3, where one 1x1024x14x14 tensor
// (784 KiB) is all that crosses; each stage plans its own arena (both far
// below the whole graph's 43 MiB naive layout).
// CHECK-LABEL: func.func @main_stage0(%x: memref<1x3x224x224xf32>)
// CHECK-SAME:      ascend.stage = 0 : i64, ascend.stages = 2 : i64
// CHECK:         ascend.task "conv2d_relu_0"
// CHECK:         ascend.task "conv2d_add_relu_7"
// CHECK-SAME:      outs(%relu_24 : memref<1x1024x14x14xf32>)
// CHECK:         ascend.send %relu_24 {peer = 1 : i64, tag = 0 : i64} : memref<1x1024x14x14xf32>
// CHECK-NEXT:    func.return{{$}}
// CHECK-LABEL: func.func @main_stage1() -> memref<1x1000xf32>
// CHECK-SAME:      ascend.stage = 1 : i64, ascend.stages = 2 : i64
// CHECK:         %[[IN:.*]] = ascend.buffer {offset = {{[0-9]+}} : i64} : memref<1x1024x14x14xf32>
// CHECK-NEXT:    ascend.recv %[[IN]] {peer = 0 : i64, tag = 0 : i64} : memref<1x1024x14x14xf32>
// CHECK:         ascend.task "conv2d_relu_17" {{.*}} ins(%[[IN]],
// CHECK:         ascend.task "linear_0"
// CHECK:         func.return %linear : memref<1x1000xf32>
// CHECK-NOT:     ascend.send
// Four cards: three cuts, each stage receives from the one before and sends
// to the one after; only stage 3 returns the logits.
// FOUR-LABEL: func.func @main_stage0(
// FOUR:         ascend.send {{.*}} {peer = 1 : i64, tag = 0 : i64}
// FOUR-LABEL: func.func @main_stage1()
// FOUR:         ascend.recv {{.*}} {peer = 0 : i64, tag = 0 : i64}
// FOUR:         ascend.send {{.*}} {peer = 2 : i64, tag = 1 : i64}
// FOUR-LABEL: func.func @main_stage2()
// FOUR:         ascend.recv {{.*}} {peer = 1 : i64, tag = 1 : i64}
// FOUR:         ascend.send {{.*}} {peer = 3 : i64, tag = 2 : i64}
// FOUR-LABEL: func.func @main_stage3() -> memref<1x1000xf32>
// FOUR:         ascend.recv {{.*}} {peer = 2 : i64, tag = 2 : i64}
// FOUR:         func.return %linear
func.func @main(%x: memref<1x3x224x224xf32>) -> memref<1x1000xf32> attributes {ascend.arena_size = 45279232 : i64} {
  %fc_bias = ascend.weight dense<0.000000e+00> : tensor<1000xf32> -> memref<1000xf32>
  %fc_weight = ascend.weight dense<0.000000e+00> : tensor<1000x2048xf32> -> memref<1000x2048xf32>
  %conv1_weight_folded = ascend.weight dense<0.000000e+00> : tensor<64x3x7x7xf32> -> memref<64x3x7x7xf32>
  %conv1_bias_folded = ascend.weight dense<0.000000e+00> : tensor<64xf32> -> memref<64xf32>
  %relu = ascend.buffer {offset = 0 : i64} : memref<1x64x112x112xf32>
  ascend.task "conv2d_relu_0" {unit = "cube", stream = 0 : i64} ins(%x, %conv1_weight_folded, %conv1_bias_folded : memref<1x3x224x224xf32>, memref<64x3x7x7xf32>, memref<64xf32>) outs(%relu : memref<1x64x112x112xf32>) {
  ^bb0(%x_1: tensor<1x3x224x224xf32>, %conv1_weight_folded_1: tensor<64x3x7x7xf32>, %conv1_bias_folded_1: tensor<64xf32>):
    %conv2d = ge.conv2d %x_1, %conv1_weight_folded_1, %conv1_bias_folded_1 {stride = array<i64: 2, 2>, padding = array<i64: 3, 3>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32> -> tensor<1x64x112x112xf32>
    %relu_1 = ge.relu %conv2d : tensor<1x64x112x112xf32>
    ge.yield %relu_1 : tensor<1x64x112x112xf32>
  }
  %max_pool2d = ascend.buffer {offset = 3211264 : i64} : memref<1x64x56x56xf32>
  ascend.task "max_pool2d_0" {unit = "vector", stream = 0 : i64} ins(%relu : memref<1x64x112x112xf32>) outs(%max_pool2d : memref<1x64x56x56xf32>) {
  ^bb0(%relu_1: tensor<1x64x112x112xf32>):
    %max_pool2d_1 = ge.max_pool2d %relu_1 {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, ceil_mode = false} : tensor<1x64x112x112xf32> -> tensor<1x64x56x56xf32>
    ge.yield %max_pool2d_1 : tensor<1x64x56x56xf32>
  }
  %layer1_0_downsample_0_weight_folded = ascend.weight dense<0.000000e+00> : tensor<256x64x1x1xf32> -> memref<256x64x1x1xf32>
  %layer1_0_downsample_0_bias_folded = ascend.weight dense<0.000000e+00> : tensor<256xf32> -> memref<256xf32>
  %conv2d = ascend.buffer {offset = 4014080 : i64} : memref<1x256x56x56xf32>
  ascend.task "conv2d_0" {unit = "cube", stream = 0 : i64} ins(%max_pool2d, %layer1_0_downsample_0_weight_folded, %layer1_0_downsample_0_bias_folded : memref<1x64x56x56xf32>, memref<256x64x1x1xf32>, memref<256xf32>) outs(%conv2d : memref<1x256x56x56xf32>) {
  ^bb0(%max_pool2d_1: tensor<1x64x56x56xf32>, %layer1_0_downsample_0_weight_folded_1: tensor<256x64x1x1xf32>, %layer1_0_downsample_0_bias_folded_1: tensor<256xf32>):
    %conv2d_1 = ge.conv2d %max_pool2d_1, %layer1_0_downsample_0_weight_folded_1, %layer1_0_downsample_0_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x64x56x56xf32>, tensor<256x64x1x1xf32>, tensor<256xf32> -> tensor<1x256x56x56xf32>
    ge.yield %conv2d_1 : tensor<1x256x56x56xf32>
  }
  %layer1_0_conv1_weight_folded = ascend.weight dense<0.000000e+00> : tensor<64x64x1x1xf32> -> memref<64x64x1x1xf32>
  %layer1_0_conv1_bias_folded = ascend.weight dense<0.000000e+00> : tensor<64xf32> -> memref<64xf32>
  %relu_1 = ascend.buffer {offset = 7225344 : i64} : memref<1x64x56x56xf32>
  ascend.task "conv2d_relu_1" {unit = "cube", stream = 0 : i64} ins(%max_pool2d, %layer1_0_conv1_weight_folded, %layer1_0_conv1_bias_folded : memref<1x64x56x56xf32>, memref<64x64x1x1xf32>, memref<64xf32>) outs(%relu_1 : memref<1x64x56x56xf32>) {
  ^bb0(%max_pool2d_1: tensor<1x64x56x56xf32>, %layer1_0_conv1_weight_folded_1: tensor<64x64x1x1xf32>, %layer1_0_conv1_bias_folded_1: tensor<64xf32>):
    %conv2d_1 = ge.conv2d %max_pool2d_1, %layer1_0_conv1_weight_folded_1, %layer1_0_conv1_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x64x56x56xf32>, tensor<64x64x1x1xf32>, tensor<64xf32> -> tensor<1x64x56x56xf32>
    %relu_2 = ge.relu %conv2d_1 : tensor<1x64x56x56xf32>
    ge.yield %relu_2 : tensor<1x64x56x56xf32>
  }
  %layer1_0_conv2_weight_folded = ascend.weight dense<0.000000e+00> : tensor<64x64x3x3xf32> -> memref<64x64x3x3xf32>
  %layer1_0_conv2_bias_folded = ascend.weight dense<0.000000e+00> : tensor<64xf32> -> memref<64xf32>
  %relu_2 = ascend.buffer {offset = 8028160 : i64} : memref<1x64x56x56xf32>
  ascend.task "conv2d_relu_2" {unit = "cube", stream = 0 : i64} ins(%relu_1, %layer1_0_conv2_weight_folded, %layer1_0_conv2_bias_folded : memref<1x64x56x56xf32>, memref<64x64x3x3xf32>, memref<64xf32>) outs(%relu_2 : memref<1x64x56x56xf32>) {
  ^bb0(%relu_3: tensor<1x64x56x56xf32>, %layer1_0_conv2_weight_folded_1: tensor<64x64x3x3xf32>, %layer1_0_conv2_bias_folded_1: tensor<64xf32>):
    %conv2d_1 = ge.conv2d %relu_3, %layer1_0_conv2_weight_folded_1, %layer1_0_conv2_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>, tensor<64xf32> -> tensor<1x64x56x56xf32>
    %relu_4 = ge.relu %conv2d_1 : tensor<1x64x56x56xf32>
    ge.yield %relu_4 : tensor<1x64x56x56xf32>
  }
  %layer1_0_conv3_weight_folded = ascend.weight dense<0.000000e+00> : tensor<256x64x1x1xf32> -> memref<256x64x1x1xf32>
  %layer1_0_conv3_bias_folded = ascend.weight dense<0.000000e+00> : tensor<256xf32> -> memref<256xf32>
  %relu_3 = ascend.buffer {offset = 8830976 : i64} : memref<1x256x56x56xf32>
  ascend.task "conv2d_add_relu_0" {unit = "cube", stream = 0 : i64} ins(%relu_2, %layer1_0_conv3_weight_folded, %layer1_0_conv3_bias_folded, %conv2d : memref<1x64x56x56xf32>, memref<256x64x1x1xf32>, memref<256xf32>, memref<1x256x56x56xf32>) outs(%relu_3 : memref<1x256x56x56xf32>) {
  ^bb0(%relu_4: tensor<1x64x56x56xf32>, %layer1_0_conv3_weight_folded_1: tensor<256x64x1x1xf32>, %layer1_0_conv3_bias_folded_1: tensor<256xf32>, %conv2d_1: tensor<1x256x56x56xf32>):
    %conv2d_2 = ge.conv2d %relu_4, %layer1_0_conv3_weight_folded_1, %layer1_0_conv3_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x64x56x56xf32>, tensor<256x64x1x1xf32>, tensor<256xf32> -> tensor<1x256x56x56xf32>
    %add = ge.add %conv2d_2, %conv2d_1 : tensor<1x256x56x56xf32>, tensor<1x256x56x56xf32> -> tensor<1x256x56x56xf32>
    %relu_5 = ge.relu %add : tensor<1x256x56x56xf32>
    ge.yield %relu_5 : tensor<1x256x56x56xf32>
  }
  %layer1_1_conv1_weight_folded = ascend.weight dense<0.000000e+00> : tensor<64x256x1x1xf32> -> memref<64x256x1x1xf32>
  %layer1_1_conv1_bias_folded = ascend.weight dense<0.000000e+00> : tensor<64xf32> -> memref<64xf32>
  %relu_4 = ascend.buffer {offset = 12042240 : i64} : memref<1x64x56x56xf32>
  ascend.task "conv2d_relu_3" {unit = "cube", stream = 0 : i64} ins(%relu_3, %layer1_1_conv1_weight_folded, %layer1_1_conv1_bias_folded : memref<1x256x56x56xf32>, memref<64x256x1x1xf32>, memref<64xf32>) outs(%relu_4 : memref<1x64x56x56xf32>) {
  ^bb0(%relu_5: tensor<1x256x56x56xf32>, %layer1_1_conv1_weight_folded_1: tensor<64x256x1x1xf32>, %layer1_1_conv1_bias_folded_1: tensor<64xf32>):
    %conv2d_1 = ge.conv2d %relu_5, %layer1_1_conv1_weight_folded_1, %layer1_1_conv1_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x256x56x56xf32>, tensor<64x256x1x1xf32>, tensor<64xf32> -> tensor<1x64x56x56xf32>
    %relu_6 = ge.relu %conv2d_1 : tensor<1x64x56x56xf32>
    ge.yield %relu_6 : tensor<1x64x56x56xf32>
  }
  %layer1_1_conv2_weight_folded = ascend.weight dense<0.000000e+00> : tensor<64x64x3x3xf32> -> memref<64x64x3x3xf32>
  %layer1_1_conv2_bias_folded = ascend.weight dense<0.000000e+00> : tensor<64xf32> -> memref<64xf32>
  %relu_5 = ascend.buffer {offset = 12845056 : i64} : memref<1x64x56x56xf32>
  ascend.task "conv2d_relu_4" {unit = "cube", stream = 0 : i64} ins(%relu_4, %layer1_1_conv2_weight_folded, %layer1_1_conv2_bias_folded : memref<1x64x56x56xf32>, memref<64x64x3x3xf32>, memref<64xf32>) outs(%relu_5 : memref<1x64x56x56xf32>) {
  ^bb0(%relu_6: tensor<1x64x56x56xf32>, %layer1_1_conv2_weight_folded_1: tensor<64x64x3x3xf32>, %layer1_1_conv2_bias_folded_1: tensor<64xf32>):
    %conv2d_1 = ge.conv2d %relu_6, %layer1_1_conv2_weight_folded_1, %layer1_1_conv2_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>, tensor<64xf32> -> tensor<1x64x56x56xf32>
    %relu_7 = ge.relu %conv2d_1 : tensor<1x64x56x56xf32>
    ge.yield %relu_7 : tensor<1x64x56x56xf32>
  }
  %layer1_1_conv3_weight_folded = ascend.weight dense<0.000000e+00> : tensor<256x64x1x1xf32> -> memref<256x64x1x1xf32>
  %layer1_1_conv3_bias_folded = ascend.weight dense<0.000000e+00> : tensor<256xf32> -> memref<256xf32>
  %relu_6 = ascend.buffer {offset = 13647872 : i64} : memref<1x256x56x56xf32>
  ascend.task "conv2d_add_relu_1" {unit = "cube", stream = 0 : i64} ins(%relu_5, %layer1_1_conv3_weight_folded, %layer1_1_conv3_bias_folded, %relu_3 : memref<1x64x56x56xf32>, memref<256x64x1x1xf32>, memref<256xf32>, memref<1x256x56x56xf32>) outs(%relu_6 : memref<1x256x56x56xf32>) {
  ^bb0(%relu_7: tensor<1x64x56x56xf32>, %layer1_1_conv3_weight_folded_1: tensor<256x64x1x1xf32>, %layer1_1_conv3_bias_folded_1: tensor<256xf32>, %relu_8: tensor<1x256x56x56xf32>):
    %conv2d_1 = ge.conv2d %relu_7, %layer1_1_conv3_weight_folded_1, %layer1_1_conv3_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x64x56x56xf32>, tensor<256x64x1x1xf32>, tensor<256xf32> -> tensor<1x256x56x56xf32>
    %add = ge.add %conv2d_1, %relu_8 : tensor<1x256x56x56xf32>, tensor<1x256x56x56xf32> -> tensor<1x256x56x56xf32>
    %relu_9 = ge.relu %add : tensor<1x256x56x56xf32>
    ge.yield %relu_9 : tensor<1x256x56x56xf32>
  }
  %layer1_2_conv1_weight_folded = ascend.weight dense<0.000000e+00> : tensor<64x256x1x1xf32> -> memref<64x256x1x1xf32>
  %layer1_2_conv1_bias_folded = ascend.weight dense<0.000000e+00> : tensor<64xf32> -> memref<64xf32>
  %relu_7 = ascend.buffer {offset = 16859136 : i64} : memref<1x64x56x56xf32>
  ascend.task "conv2d_relu_5" {unit = "cube", stream = 0 : i64} ins(%relu_6, %layer1_2_conv1_weight_folded, %layer1_2_conv1_bias_folded : memref<1x256x56x56xf32>, memref<64x256x1x1xf32>, memref<64xf32>) outs(%relu_7 : memref<1x64x56x56xf32>) {
  ^bb0(%relu_8: tensor<1x256x56x56xf32>, %layer1_2_conv1_weight_folded_1: tensor<64x256x1x1xf32>, %layer1_2_conv1_bias_folded_1: tensor<64xf32>):
    %conv2d_1 = ge.conv2d %relu_8, %layer1_2_conv1_weight_folded_1, %layer1_2_conv1_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x256x56x56xf32>, tensor<64x256x1x1xf32>, tensor<64xf32> -> tensor<1x64x56x56xf32>
    %relu_9 = ge.relu %conv2d_1 : tensor<1x64x56x56xf32>
    ge.yield %relu_9 : tensor<1x64x56x56xf32>
  }
  %layer1_2_conv2_weight_folded = ascend.weight dense<0.000000e+00> : tensor<64x64x3x3xf32> -> memref<64x64x3x3xf32>
  %layer1_2_conv2_bias_folded = ascend.weight dense<0.000000e+00> : tensor<64xf32> -> memref<64xf32>
  %relu_8 = ascend.buffer {offset = 17661952 : i64} : memref<1x64x56x56xf32>
  ascend.task "conv2d_relu_6" {unit = "cube", stream = 0 : i64} ins(%relu_7, %layer1_2_conv2_weight_folded, %layer1_2_conv2_bias_folded : memref<1x64x56x56xf32>, memref<64x64x3x3xf32>, memref<64xf32>) outs(%relu_8 : memref<1x64x56x56xf32>) {
  ^bb0(%relu_9: tensor<1x64x56x56xf32>, %layer1_2_conv2_weight_folded_1: tensor<64x64x3x3xf32>, %layer1_2_conv2_bias_folded_1: tensor<64xf32>):
    %conv2d_1 = ge.conv2d %relu_9, %layer1_2_conv2_weight_folded_1, %layer1_2_conv2_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>, tensor<64xf32> -> tensor<1x64x56x56xf32>
    %relu_10 = ge.relu %conv2d_1 : tensor<1x64x56x56xf32>
    ge.yield %relu_10 : tensor<1x64x56x56xf32>
  }
  %layer1_2_conv3_weight_folded = ascend.weight dense<0.000000e+00> : tensor<256x64x1x1xf32> -> memref<256x64x1x1xf32>
  %layer1_2_conv3_bias_folded = ascend.weight dense<0.000000e+00> : tensor<256xf32> -> memref<256xf32>
  %relu_9 = ascend.buffer {offset = 18464768 : i64} : memref<1x256x56x56xf32>
  ascend.task "conv2d_add_relu_2" {unit = "cube", stream = 0 : i64} ins(%relu_8, %layer1_2_conv3_weight_folded, %layer1_2_conv3_bias_folded, %relu_6 : memref<1x64x56x56xf32>, memref<256x64x1x1xf32>, memref<256xf32>, memref<1x256x56x56xf32>) outs(%relu_9 : memref<1x256x56x56xf32>) {
  ^bb0(%relu_10: tensor<1x64x56x56xf32>, %layer1_2_conv3_weight_folded_1: tensor<256x64x1x1xf32>, %layer1_2_conv3_bias_folded_1: tensor<256xf32>, %relu_11: tensor<1x256x56x56xf32>):
    %conv2d_1 = ge.conv2d %relu_10, %layer1_2_conv3_weight_folded_1, %layer1_2_conv3_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x64x56x56xf32>, tensor<256x64x1x1xf32>, tensor<256xf32> -> tensor<1x256x56x56xf32>
    %add = ge.add %conv2d_1, %relu_11 : tensor<1x256x56x56xf32>, tensor<1x256x56x56xf32> -> tensor<1x256x56x56xf32>
    %relu_12 = ge.relu %add : tensor<1x256x56x56xf32>
    ge.yield %relu_12 : tensor<1x256x56x56xf32>
  }
  %layer2_0_downsample_0_weight_folded = ascend.weight dense<0.000000e+00> : tensor<512x256x1x1xf32> -> memref<512x256x1x1xf32>
  %layer2_0_downsample_0_bias_folded = ascend.weight dense<0.000000e+00> : tensor<512xf32> -> memref<512xf32>
  %conv2d_1 = ascend.buffer {offset = 21676032 : i64} : memref<1x512x28x28xf32>
  ascend.task "conv2d_1" {unit = "cube", stream = 0 : i64} ins(%relu_9, %layer2_0_downsample_0_weight_folded, %layer2_0_downsample_0_bias_folded : memref<1x256x56x56xf32>, memref<512x256x1x1xf32>, memref<512xf32>) outs(%conv2d_1 : memref<1x512x28x28xf32>) {
  ^bb0(%relu_10: tensor<1x256x56x56xf32>, %layer2_0_downsample_0_weight_folded_1: tensor<512x256x1x1xf32>, %layer2_0_downsample_0_bias_folded_1: tensor<512xf32>):
    %conv2d_2 = ge.conv2d %relu_10, %layer2_0_downsample_0_weight_folded_1, %layer2_0_downsample_0_bias_folded_1 {stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x256x56x56xf32>, tensor<512x256x1x1xf32>, tensor<512xf32> -> tensor<1x512x28x28xf32>
    ge.yield %conv2d_2 : tensor<1x512x28x28xf32>
  }
  %layer2_0_conv1_weight_folded = ascend.weight dense<0.000000e+00> : tensor<128x256x1x1xf32> -> memref<128x256x1x1xf32>
  %layer2_0_conv1_bias_folded = ascend.weight dense<0.000000e+00> : tensor<128xf32> -> memref<128xf32>
  %relu_10 = ascend.buffer {offset = 23281664 : i64} : memref<1x128x56x56xf32>
  ascend.task "conv2d_relu_7" {unit = "cube", stream = 0 : i64} ins(%relu_9, %layer2_0_conv1_weight_folded, %layer2_0_conv1_bias_folded : memref<1x256x56x56xf32>, memref<128x256x1x1xf32>, memref<128xf32>) outs(%relu_10 : memref<1x128x56x56xf32>) {
  ^bb0(%relu_11: tensor<1x256x56x56xf32>, %layer2_0_conv1_weight_folded_1: tensor<128x256x1x1xf32>, %layer2_0_conv1_bias_folded_1: tensor<128xf32>):
    %conv2d_2 = ge.conv2d %relu_11, %layer2_0_conv1_weight_folded_1, %layer2_0_conv1_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x256x56x56xf32>, tensor<128x256x1x1xf32>, tensor<128xf32> -> tensor<1x128x56x56xf32>
    %relu_12 = ge.relu %conv2d_2 : tensor<1x128x56x56xf32>
    ge.yield %relu_12 : tensor<1x128x56x56xf32>
  }
  %layer2_0_conv2_weight_folded = ascend.weight dense<0.000000e+00> : tensor<128x128x3x3xf32> -> memref<128x128x3x3xf32>
  %layer2_0_conv2_bias_folded = ascend.weight dense<0.000000e+00> : tensor<128xf32> -> memref<128xf32>
  %relu_11 = ascend.buffer {offset = 24887296 : i64} : memref<1x128x28x28xf32>
  ascend.task "conv2d_relu_8" {unit = "cube", stream = 0 : i64} ins(%relu_10, %layer2_0_conv2_weight_folded, %layer2_0_conv2_bias_folded : memref<1x128x56x56xf32>, memref<128x128x3x3xf32>, memref<128xf32>) outs(%relu_11 : memref<1x128x28x28xf32>) {
  ^bb0(%relu_12: tensor<1x128x56x56xf32>, %layer2_0_conv2_weight_folded_1: tensor<128x128x3x3xf32>, %layer2_0_conv2_bias_folded_1: tensor<128xf32>):
    %conv2d_2 = ge.conv2d %relu_12, %layer2_0_conv2_weight_folded_1, %layer2_0_conv2_bias_folded_1 {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x128x56x56xf32>, tensor<128x128x3x3xf32>, tensor<128xf32> -> tensor<1x128x28x28xf32>
    %relu_13 = ge.relu %conv2d_2 : tensor<1x128x28x28xf32>
    ge.yield %relu_13 : tensor<1x128x28x28xf32>
  }
  %layer2_0_conv3_weight_folded = ascend.weight dense<0.000000e+00> : tensor<512x128x1x1xf32> -> memref<512x128x1x1xf32>
  %layer2_0_conv3_bias_folded = ascend.weight dense<0.000000e+00> : tensor<512xf32> -> memref<512xf32>
  %relu_12 = ascend.buffer {offset = 25288704 : i64} : memref<1x512x28x28xf32>
  ascend.task "conv2d_add_relu_3" {unit = "cube", stream = 0 : i64} ins(%relu_11, %layer2_0_conv3_weight_folded, %layer2_0_conv3_bias_folded, %conv2d_1 : memref<1x128x28x28xf32>, memref<512x128x1x1xf32>, memref<512xf32>, memref<1x512x28x28xf32>) outs(%relu_12 : memref<1x512x28x28xf32>) {
  ^bb0(%relu_13: tensor<1x128x28x28xf32>, %layer2_0_conv3_weight_folded_1: tensor<512x128x1x1xf32>, %layer2_0_conv3_bias_folded_1: tensor<512xf32>, %conv2d_2: tensor<1x512x28x28xf32>):
    %conv2d_3 = ge.conv2d %relu_13, %layer2_0_conv3_weight_folded_1, %layer2_0_conv3_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x128x28x28xf32>, tensor<512x128x1x1xf32>, tensor<512xf32> -> tensor<1x512x28x28xf32>
    %add = ge.add %conv2d_3, %conv2d_2 : tensor<1x512x28x28xf32>, tensor<1x512x28x28xf32> -> tensor<1x512x28x28xf32>
    %relu_14 = ge.relu %add : tensor<1x512x28x28xf32>
    ge.yield %relu_14 : tensor<1x512x28x28xf32>
  }
  %layer2_1_conv1_weight_folded = ascend.weight dense<0.000000e+00> : tensor<128x512x1x1xf32> -> memref<128x512x1x1xf32>
  %layer2_1_conv1_bias_folded = ascend.weight dense<0.000000e+00> : tensor<128xf32> -> memref<128xf32>
  %relu_13 = ascend.buffer {offset = 26894336 : i64} : memref<1x128x28x28xf32>
  ascend.task "conv2d_relu_9" {unit = "cube", stream = 0 : i64} ins(%relu_12, %layer2_1_conv1_weight_folded, %layer2_1_conv1_bias_folded : memref<1x512x28x28xf32>, memref<128x512x1x1xf32>, memref<128xf32>) outs(%relu_13 : memref<1x128x28x28xf32>) {
  ^bb0(%relu_14: tensor<1x512x28x28xf32>, %layer2_1_conv1_weight_folded_1: tensor<128x512x1x1xf32>, %layer2_1_conv1_bias_folded_1: tensor<128xf32>):
    %conv2d_2 = ge.conv2d %relu_14, %layer2_1_conv1_weight_folded_1, %layer2_1_conv1_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x512x28x28xf32>, tensor<128x512x1x1xf32>, tensor<128xf32> -> tensor<1x128x28x28xf32>
    %relu_15 = ge.relu %conv2d_2 : tensor<1x128x28x28xf32>
    ge.yield %relu_15 : tensor<1x128x28x28xf32>
  }
  %layer2_1_conv2_weight_folded = ascend.weight dense<0.000000e+00> : tensor<128x128x3x3xf32> -> memref<128x128x3x3xf32>
  %layer2_1_conv2_bias_folded = ascend.weight dense<0.000000e+00> : tensor<128xf32> -> memref<128xf32>
  %relu_14 = ascend.buffer {offset = 27295744 : i64} : memref<1x128x28x28xf32>
  ascend.task "conv2d_relu_10" {unit = "cube", stream = 0 : i64} ins(%relu_13, %layer2_1_conv2_weight_folded, %layer2_1_conv2_bias_folded : memref<1x128x28x28xf32>, memref<128x128x3x3xf32>, memref<128xf32>) outs(%relu_14 : memref<1x128x28x28xf32>) {
  ^bb0(%relu_15: tensor<1x128x28x28xf32>, %layer2_1_conv2_weight_folded_1: tensor<128x128x3x3xf32>, %layer2_1_conv2_bias_folded_1: tensor<128xf32>):
    %conv2d_2 = ge.conv2d %relu_15, %layer2_1_conv2_weight_folded_1, %layer2_1_conv2_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x128x28x28xf32>, tensor<128x128x3x3xf32>, tensor<128xf32> -> tensor<1x128x28x28xf32>
    %relu_16 = ge.relu %conv2d_2 : tensor<1x128x28x28xf32>
    ge.yield %relu_16 : tensor<1x128x28x28xf32>
  }
  %layer2_1_conv3_weight_folded = ascend.weight dense<0.000000e+00> : tensor<512x128x1x1xf32> -> memref<512x128x1x1xf32>
  %layer2_1_conv3_bias_folded = ascend.weight dense<0.000000e+00> : tensor<512xf32> -> memref<512xf32>
  %relu_15 = ascend.buffer {offset = 27697152 : i64} : memref<1x512x28x28xf32>
  ascend.task "conv2d_add_relu_4" {unit = "cube", stream = 0 : i64} ins(%relu_14, %layer2_1_conv3_weight_folded, %layer2_1_conv3_bias_folded, %relu_12 : memref<1x128x28x28xf32>, memref<512x128x1x1xf32>, memref<512xf32>, memref<1x512x28x28xf32>) outs(%relu_15 : memref<1x512x28x28xf32>) {
  ^bb0(%relu_16: tensor<1x128x28x28xf32>, %layer2_1_conv3_weight_folded_1: tensor<512x128x1x1xf32>, %layer2_1_conv3_bias_folded_1: tensor<512xf32>, %relu_17: tensor<1x512x28x28xf32>):
    %conv2d_2 = ge.conv2d %relu_16, %layer2_1_conv3_weight_folded_1, %layer2_1_conv3_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x128x28x28xf32>, tensor<512x128x1x1xf32>, tensor<512xf32> -> tensor<1x512x28x28xf32>
    %add = ge.add %conv2d_2, %relu_17 : tensor<1x512x28x28xf32>, tensor<1x512x28x28xf32> -> tensor<1x512x28x28xf32>
    %relu_18 = ge.relu %add : tensor<1x512x28x28xf32>
    ge.yield %relu_18 : tensor<1x512x28x28xf32>
  }
  %layer2_2_conv1_weight_folded = ascend.weight dense<0.000000e+00> : tensor<128x512x1x1xf32> -> memref<128x512x1x1xf32>
  %layer2_2_conv1_bias_folded = ascend.weight dense<0.000000e+00> : tensor<128xf32> -> memref<128xf32>
  %relu_16 = ascend.buffer {offset = 29302784 : i64} : memref<1x128x28x28xf32>
  ascend.task "conv2d_relu_11" {unit = "cube", stream = 0 : i64} ins(%relu_15, %layer2_2_conv1_weight_folded, %layer2_2_conv1_bias_folded : memref<1x512x28x28xf32>, memref<128x512x1x1xf32>, memref<128xf32>) outs(%relu_16 : memref<1x128x28x28xf32>) {
  ^bb0(%relu_17: tensor<1x512x28x28xf32>, %layer2_2_conv1_weight_folded_1: tensor<128x512x1x1xf32>, %layer2_2_conv1_bias_folded_1: tensor<128xf32>):
    %conv2d_2 = ge.conv2d %relu_17, %layer2_2_conv1_weight_folded_1, %layer2_2_conv1_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x512x28x28xf32>, tensor<128x512x1x1xf32>, tensor<128xf32> -> tensor<1x128x28x28xf32>
    %relu_18 = ge.relu %conv2d_2 : tensor<1x128x28x28xf32>
    ge.yield %relu_18 : tensor<1x128x28x28xf32>
  }
  %layer2_2_conv2_weight_folded = ascend.weight dense<0.000000e+00> : tensor<128x128x3x3xf32> -> memref<128x128x3x3xf32>
  %layer2_2_conv2_bias_folded = ascend.weight dense<0.000000e+00> : tensor<128xf32> -> memref<128xf32>
  %relu_17 = ascend.buffer {offset = 29704192 : i64} : memref<1x128x28x28xf32>
  ascend.task "conv2d_relu_12" {unit = "cube", stream = 0 : i64} ins(%relu_16, %layer2_2_conv2_weight_folded, %layer2_2_conv2_bias_folded : memref<1x128x28x28xf32>, memref<128x128x3x3xf32>, memref<128xf32>) outs(%relu_17 : memref<1x128x28x28xf32>) {
  ^bb0(%relu_18: tensor<1x128x28x28xf32>, %layer2_2_conv2_weight_folded_1: tensor<128x128x3x3xf32>, %layer2_2_conv2_bias_folded_1: tensor<128xf32>):
    %conv2d_2 = ge.conv2d %relu_18, %layer2_2_conv2_weight_folded_1, %layer2_2_conv2_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x128x28x28xf32>, tensor<128x128x3x3xf32>, tensor<128xf32> -> tensor<1x128x28x28xf32>
    %relu_19 = ge.relu %conv2d_2 : tensor<1x128x28x28xf32>
    ge.yield %relu_19 : tensor<1x128x28x28xf32>
  }
  %layer2_2_conv3_weight_folded = ascend.weight dense<0.000000e+00> : tensor<512x128x1x1xf32> -> memref<512x128x1x1xf32>
  %layer2_2_conv3_bias_folded = ascend.weight dense<0.000000e+00> : tensor<512xf32> -> memref<512xf32>
  %relu_18 = ascend.buffer {offset = 30105600 : i64} : memref<1x512x28x28xf32>
  ascend.task "conv2d_add_relu_5" {unit = "cube", stream = 0 : i64} ins(%relu_17, %layer2_2_conv3_weight_folded, %layer2_2_conv3_bias_folded, %relu_15 : memref<1x128x28x28xf32>, memref<512x128x1x1xf32>, memref<512xf32>, memref<1x512x28x28xf32>) outs(%relu_18 : memref<1x512x28x28xf32>) {
  ^bb0(%relu_19: tensor<1x128x28x28xf32>, %layer2_2_conv3_weight_folded_1: tensor<512x128x1x1xf32>, %layer2_2_conv3_bias_folded_1: tensor<512xf32>, %relu_20: tensor<1x512x28x28xf32>):
    %conv2d_2 = ge.conv2d %relu_19, %layer2_2_conv3_weight_folded_1, %layer2_2_conv3_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x128x28x28xf32>, tensor<512x128x1x1xf32>, tensor<512xf32> -> tensor<1x512x28x28xf32>
    %add = ge.add %conv2d_2, %relu_20 : tensor<1x512x28x28xf32>, tensor<1x512x28x28xf32> -> tensor<1x512x28x28xf32>
    %relu_21 = ge.relu %add : tensor<1x512x28x28xf32>
    ge.yield %relu_21 : tensor<1x512x28x28xf32>
  }
  %layer2_3_conv1_weight_folded = ascend.weight dense<0.000000e+00> : tensor<128x512x1x1xf32> -> memref<128x512x1x1xf32>
  %layer2_3_conv1_bias_folded = ascend.weight dense<0.000000e+00> : tensor<128xf32> -> memref<128xf32>
  %relu_19 = ascend.buffer {offset = 31711232 : i64} : memref<1x128x28x28xf32>
  ascend.task "conv2d_relu_13" {unit = "cube", stream = 0 : i64} ins(%relu_18, %layer2_3_conv1_weight_folded, %layer2_3_conv1_bias_folded : memref<1x512x28x28xf32>, memref<128x512x1x1xf32>, memref<128xf32>) outs(%relu_19 : memref<1x128x28x28xf32>) {
  ^bb0(%relu_20: tensor<1x512x28x28xf32>, %layer2_3_conv1_weight_folded_1: tensor<128x512x1x1xf32>, %layer2_3_conv1_bias_folded_1: tensor<128xf32>):
    %conv2d_2 = ge.conv2d %relu_20, %layer2_3_conv1_weight_folded_1, %layer2_3_conv1_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x512x28x28xf32>, tensor<128x512x1x1xf32>, tensor<128xf32> -> tensor<1x128x28x28xf32>
    %relu_21 = ge.relu %conv2d_2 : tensor<1x128x28x28xf32>
    ge.yield %relu_21 : tensor<1x128x28x28xf32>
  }
  %layer2_3_conv2_weight_folded = ascend.weight dense<0.000000e+00> : tensor<128x128x3x3xf32> -> memref<128x128x3x3xf32>
  %layer2_3_conv2_bias_folded = ascend.weight dense<0.000000e+00> : tensor<128xf32> -> memref<128xf32>
  %relu_20 = ascend.buffer {offset = 32112640 : i64} : memref<1x128x28x28xf32>
  ascend.task "conv2d_relu_14" {unit = "cube", stream = 0 : i64} ins(%relu_19, %layer2_3_conv2_weight_folded, %layer2_3_conv2_bias_folded : memref<1x128x28x28xf32>, memref<128x128x3x3xf32>, memref<128xf32>) outs(%relu_20 : memref<1x128x28x28xf32>) {
  ^bb0(%relu_21: tensor<1x128x28x28xf32>, %layer2_3_conv2_weight_folded_1: tensor<128x128x3x3xf32>, %layer2_3_conv2_bias_folded_1: tensor<128xf32>):
    %conv2d_2 = ge.conv2d %relu_21, %layer2_3_conv2_weight_folded_1, %layer2_3_conv2_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x128x28x28xf32>, tensor<128x128x3x3xf32>, tensor<128xf32> -> tensor<1x128x28x28xf32>
    %relu_22 = ge.relu %conv2d_2 : tensor<1x128x28x28xf32>
    ge.yield %relu_22 : tensor<1x128x28x28xf32>
  }
  %layer2_3_conv3_weight_folded = ascend.weight dense<0.000000e+00> : tensor<512x128x1x1xf32> -> memref<512x128x1x1xf32>
  %layer2_3_conv3_bias_folded = ascend.weight dense<0.000000e+00> : tensor<512xf32> -> memref<512xf32>
  %relu_21 = ascend.buffer {offset = 32514048 : i64} : memref<1x512x28x28xf32>
  ascend.task "conv2d_add_relu_6" {unit = "cube", stream = 0 : i64} ins(%relu_20, %layer2_3_conv3_weight_folded, %layer2_3_conv3_bias_folded, %relu_18 : memref<1x128x28x28xf32>, memref<512x128x1x1xf32>, memref<512xf32>, memref<1x512x28x28xf32>) outs(%relu_21 : memref<1x512x28x28xf32>) {
  ^bb0(%relu_22: tensor<1x128x28x28xf32>, %layer2_3_conv3_weight_folded_1: tensor<512x128x1x1xf32>, %layer2_3_conv3_bias_folded_1: tensor<512xf32>, %relu_23: tensor<1x512x28x28xf32>):
    %conv2d_2 = ge.conv2d %relu_22, %layer2_3_conv3_weight_folded_1, %layer2_3_conv3_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x128x28x28xf32>, tensor<512x128x1x1xf32>, tensor<512xf32> -> tensor<1x512x28x28xf32>
    %add = ge.add %conv2d_2, %relu_23 : tensor<1x512x28x28xf32>, tensor<1x512x28x28xf32> -> tensor<1x512x28x28xf32>
    %relu_24 = ge.relu %add : tensor<1x512x28x28xf32>
    ge.yield %relu_24 : tensor<1x512x28x28xf32>
  }
  %layer3_0_downsample_0_weight_folded = ascend.weight dense<0.000000e+00> : tensor<1024x512x1x1xf32> -> memref<1024x512x1x1xf32>
  %layer3_0_downsample_0_bias_folded = ascend.weight dense<0.000000e+00> : tensor<1024xf32> -> memref<1024xf32>
  %conv2d_2 = ascend.buffer {offset = 34119680 : i64} : memref<1x1024x14x14xf32>
  ascend.task "conv2d_2" {unit = "cube", stream = 0 : i64} ins(%relu_21, %layer3_0_downsample_0_weight_folded, %layer3_0_downsample_0_bias_folded : memref<1x512x28x28xf32>, memref<1024x512x1x1xf32>, memref<1024xf32>) outs(%conv2d_2 : memref<1x1024x14x14xf32>) {
  ^bb0(%relu_22: tensor<1x512x28x28xf32>, %layer3_0_downsample_0_weight_folded_1: tensor<1024x512x1x1xf32>, %layer3_0_downsample_0_bias_folded_1: tensor<1024xf32>):
    %conv2d_3 = ge.conv2d %relu_22, %layer3_0_downsample_0_weight_folded_1, %layer3_0_downsample_0_bias_folded_1 {stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x512x28x28xf32>, tensor<1024x512x1x1xf32>, tensor<1024xf32> -> tensor<1x1024x14x14xf32>
    ge.yield %conv2d_3 : tensor<1x1024x14x14xf32>
  }
  %layer3_0_conv1_weight_folded = ascend.weight dense<0.000000e+00> : tensor<256x512x1x1xf32> -> memref<256x512x1x1xf32>
  %layer3_0_conv1_bias_folded = ascend.weight dense<0.000000e+00> : tensor<256xf32> -> memref<256xf32>
  %relu_22 = ascend.buffer {offset = 34922496 : i64} : memref<1x256x28x28xf32>
  ascend.task "conv2d_relu_15" {unit = "cube", stream = 0 : i64} ins(%relu_21, %layer3_0_conv1_weight_folded, %layer3_0_conv1_bias_folded : memref<1x512x28x28xf32>, memref<256x512x1x1xf32>, memref<256xf32>) outs(%relu_22 : memref<1x256x28x28xf32>) {
  ^bb0(%relu_23: tensor<1x512x28x28xf32>, %layer3_0_conv1_weight_folded_1: tensor<256x512x1x1xf32>, %layer3_0_conv1_bias_folded_1: tensor<256xf32>):
    %conv2d_3 = ge.conv2d %relu_23, %layer3_0_conv1_weight_folded_1, %layer3_0_conv1_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x512x28x28xf32>, tensor<256x512x1x1xf32>, tensor<256xf32> -> tensor<1x256x28x28xf32>
    %relu_24 = ge.relu %conv2d_3 : tensor<1x256x28x28xf32>
    ge.yield %relu_24 : tensor<1x256x28x28xf32>
  }
  %layer3_0_conv2_weight_folded = ascend.weight dense<0.000000e+00> : tensor<256x256x3x3xf32> -> memref<256x256x3x3xf32>
  %layer3_0_conv2_bias_folded = ascend.weight dense<0.000000e+00> : tensor<256xf32> -> memref<256xf32>
  %relu_23 = ascend.buffer {offset = 35725312 : i64} : memref<1x256x14x14xf32>
  ascend.task "conv2d_relu_16" {unit = "cube", stream = 0 : i64} ins(%relu_22, %layer3_0_conv2_weight_folded, %layer3_0_conv2_bias_folded : memref<1x256x28x28xf32>, memref<256x256x3x3xf32>, memref<256xf32>) outs(%relu_23 : memref<1x256x14x14xf32>) {
  ^bb0(%relu_24: tensor<1x256x28x28xf32>, %layer3_0_conv2_weight_folded_1: tensor<256x256x3x3xf32>, %layer3_0_conv2_bias_folded_1: tensor<256xf32>):
    %conv2d_3 = ge.conv2d %relu_24, %layer3_0_conv2_weight_folded_1, %layer3_0_conv2_bias_folded_1 {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x256x28x28xf32>, tensor<256x256x3x3xf32>, tensor<256xf32> -> tensor<1x256x14x14xf32>
    %relu_25 = ge.relu %conv2d_3 : tensor<1x256x14x14xf32>
    ge.yield %relu_25 : tensor<1x256x14x14xf32>
  }
  %layer3_0_conv3_weight_folded = ascend.weight dense<0.000000e+00> : tensor<1024x256x1x1xf32> -> memref<1024x256x1x1xf32>
  %layer3_0_conv3_bias_folded = ascend.weight dense<0.000000e+00> : tensor<1024xf32> -> memref<1024xf32>
  %relu_24 = ascend.buffer {offset = 35926016 : i64} : memref<1x1024x14x14xf32>
  ascend.task "conv2d_add_relu_7" {unit = "cube", stream = 0 : i64} ins(%relu_23, %layer3_0_conv3_weight_folded, %layer3_0_conv3_bias_folded, %conv2d_2 : memref<1x256x14x14xf32>, memref<1024x256x1x1xf32>, memref<1024xf32>, memref<1x1024x14x14xf32>) outs(%relu_24 : memref<1x1024x14x14xf32>) {
  ^bb0(%relu_25: tensor<1x256x14x14xf32>, %layer3_0_conv3_weight_folded_1: tensor<1024x256x1x1xf32>, %layer3_0_conv3_bias_folded_1: tensor<1024xf32>, %conv2d_3: tensor<1x1024x14x14xf32>):
    %conv2d_4 = ge.conv2d %relu_25, %layer3_0_conv3_weight_folded_1, %layer3_0_conv3_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x256x14x14xf32>, tensor<1024x256x1x1xf32>, tensor<1024xf32> -> tensor<1x1024x14x14xf32>
    %add = ge.add %conv2d_4, %conv2d_3 : tensor<1x1024x14x14xf32>, tensor<1x1024x14x14xf32> -> tensor<1x1024x14x14xf32>
    %relu_26 = ge.relu %add : tensor<1x1024x14x14xf32>
    ge.yield %relu_26 : tensor<1x1024x14x14xf32>
  }
  %layer3_1_conv1_weight_folded = ascend.weight dense<0.000000e+00> : tensor<256x1024x1x1xf32> -> memref<256x1024x1x1xf32>
  %layer3_1_conv1_bias_folded = ascend.weight dense<0.000000e+00> : tensor<256xf32> -> memref<256xf32>
  %relu_25 = ascend.buffer {offset = 36728832 : i64} : memref<1x256x14x14xf32>
  ascend.task "conv2d_relu_17" {unit = "cube", stream = 0 : i64} ins(%relu_24, %layer3_1_conv1_weight_folded, %layer3_1_conv1_bias_folded : memref<1x1024x14x14xf32>, memref<256x1024x1x1xf32>, memref<256xf32>) outs(%relu_25 : memref<1x256x14x14xf32>) {
  ^bb0(%relu_26: tensor<1x1024x14x14xf32>, %layer3_1_conv1_weight_folded_1: tensor<256x1024x1x1xf32>, %layer3_1_conv1_bias_folded_1: tensor<256xf32>):
    %conv2d_3 = ge.conv2d %relu_26, %layer3_1_conv1_weight_folded_1, %layer3_1_conv1_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1024x14x14xf32>, tensor<256x1024x1x1xf32>, tensor<256xf32> -> tensor<1x256x14x14xf32>
    %relu_27 = ge.relu %conv2d_3 : tensor<1x256x14x14xf32>
    ge.yield %relu_27 : tensor<1x256x14x14xf32>
  }
  %layer3_1_conv2_weight_folded = ascend.weight dense<0.000000e+00> : tensor<256x256x3x3xf32> -> memref<256x256x3x3xf32>
  %layer3_1_conv2_bias_folded = ascend.weight dense<0.000000e+00> : tensor<256xf32> -> memref<256xf32>
  %relu_26 = ascend.buffer {offset = 36929536 : i64} : memref<1x256x14x14xf32>
  ascend.task "conv2d_relu_18" {unit = "cube", stream = 0 : i64} ins(%relu_25, %layer3_1_conv2_weight_folded, %layer3_1_conv2_bias_folded : memref<1x256x14x14xf32>, memref<256x256x3x3xf32>, memref<256xf32>) outs(%relu_26 : memref<1x256x14x14xf32>) {
  ^bb0(%relu_27: tensor<1x256x14x14xf32>, %layer3_1_conv2_weight_folded_1: tensor<256x256x3x3xf32>, %layer3_1_conv2_bias_folded_1: tensor<256xf32>):
    %conv2d_3 = ge.conv2d %relu_27, %layer3_1_conv2_weight_folded_1, %layer3_1_conv2_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x256x14x14xf32>, tensor<256x256x3x3xf32>, tensor<256xf32> -> tensor<1x256x14x14xf32>
    %relu_28 = ge.relu %conv2d_3 : tensor<1x256x14x14xf32>
    ge.yield %relu_28 : tensor<1x256x14x14xf32>
  }
  %layer3_1_conv3_weight_folded = ascend.weight dense<0.000000e+00> : tensor<1024x256x1x1xf32> -> memref<1024x256x1x1xf32>
  %layer3_1_conv3_bias_folded = ascend.weight dense<0.000000e+00> : tensor<1024xf32> -> memref<1024xf32>
  %relu_27 = ascend.buffer {offset = 37130240 : i64} : memref<1x1024x14x14xf32>
  ascend.task "conv2d_add_relu_8" {unit = "cube", stream = 0 : i64} ins(%relu_26, %layer3_1_conv3_weight_folded, %layer3_1_conv3_bias_folded, %relu_24 : memref<1x256x14x14xf32>, memref<1024x256x1x1xf32>, memref<1024xf32>, memref<1x1024x14x14xf32>) outs(%relu_27 : memref<1x1024x14x14xf32>) {
  ^bb0(%relu_28: tensor<1x256x14x14xf32>, %layer3_1_conv3_weight_folded_1: tensor<1024x256x1x1xf32>, %layer3_1_conv3_bias_folded_1: tensor<1024xf32>, %relu_29: tensor<1x1024x14x14xf32>):
    %conv2d_3 = ge.conv2d %relu_28, %layer3_1_conv3_weight_folded_1, %layer3_1_conv3_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x256x14x14xf32>, tensor<1024x256x1x1xf32>, tensor<1024xf32> -> tensor<1x1024x14x14xf32>
    %add = ge.add %conv2d_3, %relu_29 : tensor<1x1024x14x14xf32>, tensor<1x1024x14x14xf32> -> tensor<1x1024x14x14xf32>
    %relu_30 = ge.relu %add : tensor<1x1024x14x14xf32>
    ge.yield %relu_30 : tensor<1x1024x14x14xf32>
  }
  %layer3_2_conv1_weight_folded = ascend.weight dense<0.000000e+00> : tensor<256x1024x1x1xf32> -> memref<256x1024x1x1xf32>
  %layer3_2_conv1_bias_folded = ascend.weight dense<0.000000e+00> : tensor<256xf32> -> memref<256xf32>
  %relu_28 = ascend.buffer {offset = 37933056 : i64} : memref<1x256x14x14xf32>
  ascend.task "conv2d_relu_19" {unit = "cube", stream = 0 : i64} ins(%relu_27, %layer3_2_conv1_weight_folded, %layer3_2_conv1_bias_folded : memref<1x1024x14x14xf32>, memref<256x1024x1x1xf32>, memref<256xf32>) outs(%relu_28 : memref<1x256x14x14xf32>) {
  ^bb0(%relu_29: tensor<1x1024x14x14xf32>, %layer3_2_conv1_weight_folded_1: tensor<256x1024x1x1xf32>, %layer3_2_conv1_bias_folded_1: tensor<256xf32>):
    %conv2d_3 = ge.conv2d %relu_29, %layer3_2_conv1_weight_folded_1, %layer3_2_conv1_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1024x14x14xf32>, tensor<256x1024x1x1xf32>, tensor<256xf32> -> tensor<1x256x14x14xf32>
    %relu_30 = ge.relu %conv2d_3 : tensor<1x256x14x14xf32>
    ge.yield %relu_30 : tensor<1x256x14x14xf32>
  }
  %layer3_2_conv2_weight_folded = ascend.weight dense<0.000000e+00> : tensor<256x256x3x3xf32> -> memref<256x256x3x3xf32>
  %layer3_2_conv2_bias_folded = ascend.weight dense<0.000000e+00> : tensor<256xf32> -> memref<256xf32>
  %relu_29 = ascend.buffer {offset = 38133760 : i64} : memref<1x256x14x14xf32>
  ascend.task "conv2d_relu_20" {unit = "cube", stream = 0 : i64} ins(%relu_28, %layer3_2_conv2_weight_folded, %layer3_2_conv2_bias_folded : memref<1x256x14x14xf32>, memref<256x256x3x3xf32>, memref<256xf32>) outs(%relu_29 : memref<1x256x14x14xf32>) {
  ^bb0(%relu_30: tensor<1x256x14x14xf32>, %layer3_2_conv2_weight_folded_1: tensor<256x256x3x3xf32>, %layer3_2_conv2_bias_folded_1: tensor<256xf32>):
    %conv2d_3 = ge.conv2d %relu_30, %layer3_2_conv2_weight_folded_1, %layer3_2_conv2_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x256x14x14xf32>, tensor<256x256x3x3xf32>, tensor<256xf32> -> tensor<1x256x14x14xf32>
    %relu_31 = ge.relu %conv2d_3 : tensor<1x256x14x14xf32>
    ge.yield %relu_31 : tensor<1x256x14x14xf32>
  }
  %layer3_2_conv3_weight_folded = ascend.weight dense<0.000000e+00> : tensor<1024x256x1x1xf32> -> memref<1024x256x1x1xf32>
  %layer3_2_conv3_bias_folded = ascend.weight dense<0.000000e+00> : tensor<1024xf32> -> memref<1024xf32>
  %relu_30 = ascend.buffer {offset = 38334464 : i64} : memref<1x1024x14x14xf32>
  ascend.task "conv2d_add_relu_9" {unit = "cube", stream = 0 : i64} ins(%relu_29, %layer3_2_conv3_weight_folded, %layer3_2_conv3_bias_folded, %relu_27 : memref<1x256x14x14xf32>, memref<1024x256x1x1xf32>, memref<1024xf32>, memref<1x1024x14x14xf32>) outs(%relu_30 : memref<1x1024x14x14xf32>) {
  ^bb0(%relu_31: tensor<1x256x14x14xf32>, %layer3_2_conv3_weight_folded_1: tensor<1024x256x1x1xf32>, %layer3_2_conv3_bias_folded_1: tensor<1024xf32>, %relu_32: tensor<1x1024x14x14xf32>):
    %conv2d_3 = ge.conv2d %relu_31, %layer3_2_conv3_weight_folded_1, %layer3_2_conv3_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x256x14x14xf32>, tensor<1024x256x1x1xf32>, tensor<1024xf32> -> tensor<1x1024x14x14xf32>
    %add = ge.add %conv2d_3, %relu_32 : tensor<1x1024x14x14xf32>, tensor<1x1024x14x14xf32> -> tensor<1x1024x14x14xf32>
    %relu_33 = ge.relu %add : tensor<1x1024x14x14xf32>
    ge.yield %relu_33 : tensor<1x1024x14x14xf32>
  }
  %layer3_3_conv1_weight_folded = ascend.weight dense<0.000000e+00> : tensor<256x1024x1x1xf32> -> memref<256x1024x1x1xf32>
  %layer3_3_conv1_bias_folded = ascend.weight dense<0.000000e+00> : tensor<256xf32> -> memref<256xf32>
  %relu_31 = ascend.buffer {offset = 39137280 : i64} : memref<1x256x14x14xf32>
  ascend.task "conv2d_relu_21" {unit = "cube", stream = 0 : i64} ins(%relu_30, %layer3_3_conv1_weight_folded, %layer3_3_conv1_bias_folded : memref<1x1024x14x14xf32>, memref<256x1024x1x1xf32>, memref<256xf32>) outs(%relu_31 : memref<1x256x14x14xf32>) {
  ^bb0(%relu_32: tensor<1x1024x14x14xf32>, %layer3_3_conv1_weight_folded_1: tensor<256x1024x1x1xf32>, %layer3_3_conv1_bias_folded_1: tensor<256xf32>):
    %conv2d_3 = ge.conv2d %relu_32, %layer3_3_conv1_weight_folded_1, %layer3_3_conv1_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1024x14x14xf32>, tensor<256x1024x1x1xf32>, tensor<256xf32> -> tensor<1x256x14x14xf32>
    %relu_33 = ge.relu %conv2d_3 : tensor<1x256x14x14xf32>
    ge.yield %relu_33 : tensor<1x256x14x14xf32>
  }
  %layer3_3_conv2_weight_folded = ascend.weight dense<0.000000e+00> : tensor<256x256x3x3xf32> -> memref<256x256x3x3xf32>
  %layer3_3_conv2_bias_folded = ascend.weight dense<0.000000e+00> : tensor<256xf32> -> memref<256xf32>
  %relu_32 = ascend.buffer {offset = 39337984 : i64} : memref<1x256x14x14xf32>
  ascend.task "conv2d_relu_22" {unit = "cube", stream = 0 : i64} ins(%relu_31, %layer3_3_conv2_weight_folded, %layer3_3_conv2_bias_folded : memref<1x256x14x14xf32>, memref<256x256x3x3xf32>, memref<256xf32>) outs(%relu_32 : memref<1x256x14x14xf32>) {
  ^bb0(%relu_33: tensor<1x256x14x14xf32>, %layer3_3_conv2_weight_folded_1: tensor<256x256x3x3xf32>, %layer3_3_conv2_bias_folded_1: tensor<256xf32>):
    %conv2d_3 = ge.conv2d %relu_33, %layer3_3_conv2_weight_folded_1, %layer3_3_conv2_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x256x14x14xf32>, tensor<256x256x3x3xf32>, tensor<256xf32> -> tensor<1x256x14x14xf32>
    %relu_34 = ge.relu %conv2d_3 : tensor<1x256x14x14xf32>
    ge.yield %relu_34 : tensor<1x256x14x14xf32>
  }
  %layer3_3_conv3_weight_folded = ascend.weight dense<0.000000e+00> : tensor<1024x256x1x1xf32> -> memref<1024x256x1x1xf32>
  %layer3_3_conv3_bias_folded = ascend.weight dense<0.000000e+00> : tensor<1024xf32> -> memref<1024xf32>
  %relu_33 = ascend.buffer {offset = 39538688 : i64} : memref<1x1024x14x14xf32>
  ascend.task "conv2d_add_relu_10" {unit = "cube", stream = 0 : i64} ins(%relu_32, %layer3_3_conv3_weight_folded, %layer3_3_conv3_bias_folded, %relu_30 : memref<1x256x14x14xf32>, memref<1024x256x1x1xf32>, memref<1024xf32>, memref<1x1024x14x14xf32>) outs(%relu_33 : memref<1x1024x14x14xf32>) {
  ^bb0(%relu_34: tensor<1x256x14x14xf32>, %layer3_3_conv3_weight_folded_1: tensor<1024x256x1x1xf32>, %layer3_3_conv3_bias_folded_1: tensor<1024xf32>, %relu_35: tensor<1x1024x14x14xf32>):
    %conv2d_3 = ge.conv2d %relu_34, %layer3_3_conv3_weight_folded_1, %layer3_3_conv3_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x256x14x14xf32>, tensor<1024x256x1x1xf32>, tensor<1024xf32> -> tensor<1x1024x14x14xf32>
    %add = ge.add %conv2d_3, %relu_35 : tensor<1x1024x14x14xf32>, tensor<1x1024x14x14xf32> -> tensor<1x1024x14x14xf32>
    %relu_36 = ge.relu %add : tensor<1x1024x14x14xf32>
    ge.yield %relu_36 : tensor<1x1024x14x14xf32>
  }
  %layer3_4_conv1_weight_folded = ascend.weight dense<0.000000e+00> : tensor<256x1024x1x1xf32> -> memref<256x1024x1x1xf32>
  %layer3_4_conv1_bias_folded = ascend.weight dense<0.000000e+00> : tensor<256xf32> -> memref<256xf32>
  %relu_34 = ascend.buffer {offset = 40341504 : i64} : memref<1x256x14x14xf32>
  ascend.task "conv2d_relu_23" {unit = "cube", stream = 0 : i64} ins(%relu_33, %layer3_4_conv1_weight_folded, %layer3_4_conv1_bias_folded : memref<1x1024x14x14xf32>, memref<256x1024x1x1xf32>, memref<256xf32>) outs(%relu_34 : memref<1x256x14x14xf32>) {
  ^bb0(%relu_35: tensor<1x1024x14x14xf32>, %layer3_4_conv1_weight_folded_1: tensor<256x1024x1x1xf32>, %layer3_4_conv1_bias_folded_1: tensor<256xf32>):
    %conv2d_3 = ge.conv2d %relu_35, %layer3_4_conv1_weight_folded_1, %layer3_4_conv1_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1024x14x14xf32>, tensor<256x1024x1x1xf32>, tensor<256xf32> -> tensor<1x256x14x14xf32>
    %relu_36 = ge.relu %conv2d_3 : tensor<1x256x14x14xf32>
    ge.yield %relu_36 : tensor<1x256x14x14xf32>
  }
  %layer3_4_conv2_weight_folded = ascend.weight dense<0.000000e+00> : tensor<256x256x3x3xf32> -> memref<256x256x3x3xf32>
  %layer3_4_conv2_bias_folded = ascend.weight dense<0.000000e+00> : tensor<256xf32> -> memref<256xf32>
  %relu_35 = ascend.buffer {offset = 40542208 : i64} : memref<1x256x14x14xf32>
  ascend.task "conv2d_relu_24" {unit = "cube", stream = 0 : i64} ins(%relu_34, %layer3_4_conv2_weight_folded, %layer3_4_conv2_bias_folded : memref<1x256x14x14xf32>, memref<256x256x3x3xf32>, memref<256xf32>) outs(%relu_35 : memref<1x256x14x14xf32>) {
  ^bb0(%relu_36: tensor<1x256x14x14xf32>, %layer3_4_conv2_weight_folded_1: tensor<256x256x3x3xf32>, %layer3_4_conv2_bias_folded_1: tensor<256xf32>):
    %conv2d_3 = ge.conv2d %relu_36, %layer3_4_conv2_weight_folded_1, %layer3_4_conv2_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x256x14x14xf32>, tensor<256x256x3x3xf32>, tensor<256xf32> -> tensor<1x256x14x14xf32>
    %relu_37 = ge.relu %conv2d_3 : tensor<1x256x14x14xf32>
    ge.yield %relu_37 : tensor<1x256x14x14xf32>
  }
  %layer3_4_conv3_weight_folded = ascend.weight dense<0.000000e+00> : tensor<1024x256x1x1xf32> -> memref<1024x256x1x1xf32>
  %layer3_4_conv3_bias_folded = ascend.weight dense<0.000000e+00> : tensor<1024xf32> -> memref<1024xf32>
  %relu_36 = ascend.buffer {offset = 40742912 : i64} : memref<1x1024x14x14xf32>
  ascend.task "conv2d_add_relu_11" {unit = "cube", stream = 0 : i64} ins(%relu_35, %layer3_4_conv3_weight_folded, %layer3_4_conv3_bias_folded, %relu_33 : memref<1x256x14x14xf32>, memref<1024x256x1x1xf32>, memref<1024xf32>, memref<1x1024x14x14xf32>) outs(%relu_36 : memref<1x1024x14x14xf32>) {
  ^bb0(%relu_37: tensor<1x256x14x14xf32>, %layer3_4_conv3_weight_folded_1: tensor<1024x256x1x1xf32>, %layer3_4_conv3_bias_folded_1: tensor<1024xf32>, %relu_38: tensor<1x1024x14x14xf32>):
    %conv2d_3 = ge.conv2d %relu_37, %layer3_4_conv3_weight_folded_1, %layer3_4_conv3_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x256x14x14xf32>, tensor<1024x256x1x1xf32>, tensor<1024xf32> -> tensor<1x1024x14x14xf32>
    %add = ge.add %conv2d_3, %relu_38 : tensor<1x1024x14x14xf32>, tensor<1x1024x14x14xf32> -> tensor<1x1024x14x14xf32>
    %relu_39 = ge.relu %add : tensor<1x1024x14x14xf32>
    ge.yield %relu_39 : tensor<1x1024x14x14xf32>
  }
  %layer3_5_conv1_weight_folded = ascend.weight dense<0.000000e+00> : tensor<256x1024x1x1xf32> -> memref<256x1024x1x1xf32>
  %layer3_5_conv1_bias_folded = ascend.weight dense<0.000000e+00> : tensor<256xf32> -> memref<256xf32>
  %relu_37 = ascend.buffer {offset = 41545728 : i64} : memref<1x256x14x14xf32>
  ascend.task "conv2d_relu_25" {unit = "cube", stream = 0 : i64} ins(%relu_36, %layer3_5_conv1_weight_folded, %layer3_5_conv1_bias_folded : memref<1x1024x14x14xf32>, memref<256x1024x1x1xf32>, memref<256xf32>) outs(%relu_37 : memref<1x256x14x14xf32>) {
  ^bb0(%relu_38: tensor<1x1024x14x14xf32>, %layer3_5_conv1_weight_folded_1: tensor<256x1024x1x1xf32>, %layer3_5_conv1_bias_folded_1: tensor<256xf32>):
    %conv2d_3 = ge.conv2d %relu_38, %layer3_5_conv1_weight_folded_1, %layer3_5_conv1_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1024x14x14xf32>, tensor<256x1024x1x1xf32>, tensor<256xf32> -> tensor<1x256x14x14xf32>
    %relu_39 = ge.relu %conv2d_3 : tensor<1x256x14x14xf32>
    ge.yield %relu_39 : tensor<1x256x14x14xf32>
  }
  %layer3_5_conv2_weight_folded = ascend.weight dense<0.000000e+00> : tensor<256x256x3x3xf32> -> memref<256x256x3x3xf32>
  %layer3_5_conv2_bias_folded = ascend.weight dense<0.000000e+00> : tensor<256xf32> -> memref<256xf32>
  %relu_38 = ascend.buffer {offset = 41746432 : i64} : memref<1x256x14x14xf32>
  ascend.task "conv2d_relu_26" {unit = "cube", stream = 0 : i64} ins(%relu_37, %layer3_5_conv2_weight_folded, %layer3_5_conv2_bias_folded : memref<1x256x14x14xf32>, memref<256x256x3x3xf32>, memref<256xf32>) outs(%relu_38 : memref<1x256x14x14xf32>) {
  ^bb0(%relu_39: tensor<1x256x14x14xf32>, %layer3_5_conv2_weight_folded_1: tensor<256x256x3x3xf32>, %layer3_5_conv2_bias_folded_1: tensor<256xf32>):
    %conv2d_3 = ge.conv2d %relu_39, %layer3_5_conv2_weight_folded_1, %layer3_5_conv2_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x256x14x14xf32>, tensor<256x256x3x3xf32>, tensor<256xf32> -> tensor<1x256x14x14xf32>
    %relu_40 = ge.relu %conv2d_3 : tensor<1x256x14x14xf32>
    ge.yield %relu_40 : tensor<1x256x14x14xf32>
  }
  %layer3_5_conv3_weight_folded = ascend.weight dense<0.000000e+00> : tensor<1024x256x1x1xf32> -> memref<1024x256x1x1xf32>
  %layer3_5_conv3_bias_folded = ascend.weight dense<0.000000e+00> : tensor<1024xf32> -> memref<1024xf32>
  %relu_39 = ascend.buffer {offset = 41947136 : i64} : memref<1x1024x14x14xf32>
  ascend.task "conv2d_add_relu_12" {unit = "cube", stream = 0 : i64} ins(%relu_38, %layer3_5_conv3_weight_folded, %layer3_5_conv3_bias_folded, %relu_36 : memref<1x256x14x14xf32>, memref<1024x256x1x1xf32>, memref<1024xf32>, memref<1x1024x14x14xf32>) outs(%relu_39 : memref<1x1024x14x14xf32>) {
  ^bb0(%relu_40: tensor<1x256x14x14xf32>, %layer3_5_conv3_weight_folded_1: tensor<1024x256x1x1xf32>, %layer3_5_conv3_bias_folded_1: tensor<1024xf32>, %relu_41: tensor<1x1024x14x14xf32>):
    %conv2d_3 = ge.conv2d %relu_40, %layer3_5_conv3_weight_folded_1, %layer3_5_conv3_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x256x14x14xf32>, tensor<1024x256x1x1xf32>, tensor<1024xf32> -> tensor<1x1024x14x14xf32>
    %add = ge.add %conv2d_3, %relu_41 : tensor<1x1024x14x14xf32>, tensor<1x1024x14x14xf32> -> tensor<1x1024x14x14xf32>
    %relu_42 = ge.relu %add : tensor<1x1024x14x14xf32>
    ge.yield %relu_42 : tensor<1x1024x14x14xf32>
  }
  %layer4_0_downsample_0_weight_folded = ascend.weight dense<0.000000e+00> : tensor<2048x1024x1x1xf32> -> memref<2048x1024x1x1xf32>
  %layer4_0_downsample_0_bias_folded = ascend.weight dense<0.000000e+00> : tensor<2048xf32> -> memref<2048xf32>
  %conv2d_3 = ascend.buffer {offset = 42749952 : i64} : memref<1x2048x7x7xf32>
  ascend.task "conv2d_3" {unit = "cube", stream = 0 : i64} ins(%relu_39, %layer4_0_downsample_0_weight_folded, %layer4_0_downsample_0_bias_folded : memref<1x1024x14x14xf32>, memref<2048x1024x1x1xf32>, memref<2048xf32>) outs(%conv2d_3 : memref<1x2048x7x7xf32>) {
  ^bb0(%relu_40: tensor<1x1024x14x14xf32>, %layer4_0_downsample_0_weight_folded_1: tensor<2048x1024x1x1xf32>, %layer4_0_downsample_0_bias_folded_1: tensor<2048xf32>):
    %conv2d_4 = ge.conv2d %relu_40, %layer4_0_downsample_0_weight_folded_1, %layer4_0_downsample_0_bias_folded_1 {stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1024x14x14xf32>, tensor<2048x1024x1x1xf32>, tensor<2048xf32> -> tensor<1x2048x7x7xf32>
    ge.yield %conv2d_4 : tensor<1x2048x7x7xf32>
  }
  %layer4_0_conv1_weight_folded = ascend.weight dense<0.000000e+00> : tensor<512x1024x1x1xf32> -> memref<512x1024x1x1xf32>
  %layer4_0_conv1_bias_folded = ascend.weight dense<0.000000e+00> : tensor<512xf32> -> memref<512xf32>
  %relu_40 = ascend.buffer {offset = 43151360 : i64} : memref<1x512x14x14xf32>
  ascend.task "conv2d_relu_27" {unit = "cube", stream = 0 : i64} ins(%relu_39, %layer4_0_conv1_weight_folded, %layer4_0_conv1_bias_folded : memref<1x1024x14x14xf32>, memref<512x1024x1x1xf32>, memref<512xf32>) outs(%relu_40 : memref<1x512x14x14xf32>) {
  ^bb0(%relu_41: tensor<1x1024x14x14xf32>, %layer4_0_conv1_weight_folded_1: tensor<512x1024x1x1xf32>, %layer4_0_conv1_bias_folded_1: tensor<512xf32>):
    %conv2d_4 = ge.conv2d %relu_41, %layer4_0_conv1_weight_folded_1, %layer4_0_conv1_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1024x14x14xf32>, tensor<512x1024x1x1xf32>, tensor<512xf32> -> tensor<1x512x14x14xf32>
    %relu_42 = ge.relu %conv2d_4 : tensor<1x512x14x14xf32>
    ge.yield %relu_42 : tensor<1x512x14x14xf32>
  }
  %layer4_0_conv2_weight_folded = ascend.weight dense<0.000000e+00> : tensor<512x512x3x3xf32> -> memref<512x512x3x3xf32>
  %layer4_0_conv2_bias_folded = ascend.weight dense<0.000000e+00> : tensor<512xf32> -> memref<512xf32>
  %relu_41 = ascend.buffer {offset = 43552768 : i64} : memref<1x512x7x7xf32>
  ascend.task "conv2d_relu_28" {unit = "cube", stream = 0 : i64} ins(%relu_40, %layer4_0_conv2_weight_folded, %layer4_0_conv2_bias_folded : memref<1x512x14x14xf32>, memref<512x512x3x3xf32>, memref<512xf32>) outs(%relu_41 : memref<1x512x7x7xf32>) {
  ^bb0(%relu_42: tensor<1x512x14x14xf32>, %layer4_0_conv2_weight_folded_1: tensor<512x512x3x3xf32>, %layer4_0_conv2_bias_folded_1: tensor<512xf32>):
    %conv2d_4 = ge.conv2d %relu_42, %layer4_0_conv2_weight_folded_1, %layer4_0_conv2_bias_folded_1 {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x512x14x14xf32>, tensor<512x512x3x3xf32>, tensor<512xf32> -> tensor<1x512x7x7xf32>
    %relu_43 = ge.relu %conv2d_4 : tensor<1x512x7x7xf32>
    ge.yield %relu_43 : tensor<1x512x7x7xf32>
  }
  %layer4_0_conv3_weight_folded = ascend.weight dense<0.000000e+00> : tensor<2048x512x1x1xf32> -> memref<2048x512x1x1xf32>
  %layer4_0_conv3_bias_folded = ascend.weight dense<0.000000e+00> : tensor<2048xf32> -> memref<2048xf32>
  %relu_42 = ascend.buffer {offset = 43653120 : i64} : memref<1x2048x7x7xf32>
  ascend.task "conv2d_add_relu_13" {unit = "cube", stream = 0 : i64} ins(%relu_41, %layer4_0_conv3_weight_folded, %layer4_0_conv3_bias_folded, %conv2d_3 : memref<1x512x7x7xf32>, memref<2048x512x1x1xf32>, memref<2048xf32>, memref<1x2048x7x7xf32>) outs(%relu_42 : memref<1x2048x7x7xf32>) {
  ^bb0(%relu_43: tensor<1x512x7x7xf32>, %layer4_0_conv3_weight_folded_1: tensor<2048x512x1x1xf32>, %layer4_0_conv3_bias_folded_1: tensor<2048xf32>, %conv2d_4: tensor<1x2048x7x7xf32>):
    %conv2d_5 = ge.conv2d %relu_43, %layer4_0_conv3_weight_folded_1, %layer4_0_conv3_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x512x7x7xf32>, tensor<2048x512x1x1xf32>, tensor<2048xf32> -> tensor<1x2048x7x7xf32>
    %add = ge.add %conv2d_5, %conv2d_4 : tensor<1x2048x7x7xf32>, tensor<1x2048x7x7xf32> -> tensor<1x2048x7x7xf32>
    %relu_44 = ge.relu %add : tensor<1x2048x7x7xf32>
    ge.yield %relu_44 : tensor<1x2048x7x7xf32>
  }
  %layer4_1_conv1_weight_folded = ascend.weight dense<0.000000e+00> : tensor<512x2048x1x1xf32> -> memref<512x2048x1x1xf32>
  %layer4_1_conv1_bias_folded = ascend.weight dense<0.000000e+00> : tensor<512xf32> -> memref<512xf32>
  %relu_43 = ascend.buffer {offset = 44054528 : i64} : memref<1x512x7x7xf32>
  ascend.task "conv2d_relu_29" {unit = "cube", stream = 0 : i64} ins(%relu_42, %layer4_1_conv1_weight_folded, %layer4_1_conv1_bias_folded : memref<1x2048x7x7xf32>, memref<512x2048x1x1xf32>, memref<512xf32>) outs(%relu_43 : memref<1x512x7x7xf32>) {
  ^bb0(%relu_44: tensor<1x2048x7x7xf32>, %layer4_1_conv1_weight_folded_1: tensor<512x2048x1x1xf32>, %layer4_1_conv1_bias_folded_1: tensor<512xf32>):
    %conv2d_4 = ge.conv2d %relu_44, %layer4_1_conv1_weight_folded_1, %layer4_1_conv1_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x2048x7x7xf32>, tensor<512x2048x1x1xf32>, tensor<512xf32> -> tensor<1x512x7x7xf32>
    %relu_45 = ge.relu %conv2d_4 : tensor<1x512x7x7xf32>
    ge.yield %relu_45 : tensor<1x512x7x7xf32>
  }
  %layer4_1_conv2_weight_folded = ascend.weight dense<0.000000e+00> : tensor<512x512x3x3xf32> -> memref<512x512x3x3xf32>
  %layer4_1_conv2_bias_folded = ascend.weight dense<0.000000e+00> : tensor<512xf32> -> memref<512xf32>
  %relu_44 = ascend.buffer {offset = 44154880 : i64} : memref<1x512x7x7xf32>
  ascend.task "conv2d_relu_30" {unit = "cube", stream = 0 : i64} ins(%relu_43, %layer4_1_conv2_weight_folded, %layer4_1_conv2_bias_folded : memref<1x512x7x7xf32>, memref<512x512x3x3xf32>, memref<512xf32>) outs(%relu_44 : memref<1x512x7x7xf32>) {
  ^bb0(%relu_45: tensor<1x512x7x7xf32>, %layer4_1_conv2_weight_folded_1: tensor<512x512x3x3xf32>, %layer4_1_conv2_bias_folded_1: tensor<512xf32>):
    %conv2d_4 = ge.conv2d %relu_45, %layer4_1_conv2_weight_folded_1, %layer4_1_conv2_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x512x7x7xf32>, tensor<512x512x3x3xf32>, tensor<512xf32> -> tensor<1x512x7x7xf32>
    %relu_46 = ge.relu %conv2d_4 : tensor<1x512x7x7xf32>
    ge.yield %relu_46 : tensor<1x512x7x7xf32>
  }
  %layer4_1_conv3_weight_folded = ascend.weight dense<0.000000e+00> : tensor<2048x512x1x1xf32> -> memref<2048x512x1x1xf32>
  %layer4_1_conv3_bias_folded = ascend.weight dense<0.000000e+00> : tensor<2048xf32> -> memref<2048xf32>
  %relu_45 = ascend.buffer {offset = 44255232 : i64} : memref<1x2048x7x7xf32>
  ascend.task "conv2d_add_relu_14" {unit = "cube", stream = 0 : i64} ins(%relu_44, %layer4_1_conv3_weight_folded, %layer4_1_conv3_bias_folded, %relu_42 : memref<1x512x7x7xf32>, memref<2048x512x1x1xf32>, memref<2048xf32>, memref<1x2048x7x7xf32>) outs(%relu_45 : memref<1x2048x7x7xf32>) {
  ^bb0(%relu_46: tensor<1x512x7x7xf32>, %layer4_1_conv3_weight_folded_1: tensor<2048x512x1x1xf32>, %layer4_1_conv3_bias_folded_1: tensor<2048xf32>, %relu_47: tensor<1x2048x7x7xf32>):
    %conv2d_4 = ge.conv2d %relu_46, %layer4_1_conv3_weight_folded_1, %layer4_1_conv3_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x512x7x7xf32>, tensor<2048x512x1x1xf32>, tensor<2048xf32> -> tensor<1x2048x7x7xf32>
    %add = ge.add %conv2d_4, %relu_47 : tensor<1x2048x7x7xf32>, tensor<1x2048x7x7xf32> -> tensor<1x2048x7x7xf32>
    %relu_48 = ge.relu %add : tensor<1x2048x7x7xf32>
    ge.yield %relu_48 : tensor<1x2048x7x7xf32>
  }
  %layer4_2_conv1_weight_folded = ascend.weight dense<0.000000e+00> : tensor<512x2048x1x1xf32> -> memref<512x2048x1x1xf32>
  %layer4_2_conv1_bias_folded = ascend.weight dense<0.000000e+00> : tensor<512xf32> -> memref<512xf32>
  %relu_46 = ascend.buffer {offset = 44656640 : i64} : memref<1x512x7x7xf32>
  ascend.task "conv2d_relu_31" {unit = "cube", stream = 0 : i64} ins(%relu_45, %layer4_2_conv1_weight_folded, %layer4_2_conv1_bias_folded : memref<1x2048x7x7xf32>, memref<512x2048x1x1xf32>, memref<512xf32>) outs(%relu_46 : memref<1x512x7x7xf32>) {
  ^bb0(%relu_47: tensor<1x2048x7x7xf32>, %layer4_2_conv1_weight_folded_1: tensor<512x2048x1x1xf32>, %layer4_2_conv1_bias_folded_1: tensor<512xf32>):
    %conv2d_4 = ge.conv2d %relu_47, %layer4_2_conv1_weight_folded_1, %layer4_2_conv1_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x2048x7x7xf32>, tensor<512x2048x1x1xf32>, tensor<512xf32> -> tensor<1x512x7x7xf32>
    %relu_48 = ge.relu %conv2d_4 : tensor<1x512x7x7xf32>
    ge.yield %relu_48 : tensor<1x512x7x7xf32>
  }
  %layer4_2_conv2_weight_folded = ascend.weight dense<0.000000e+00> : tensor<512x512x3x3xf32> -> memref<512x512x3x3xf32>
  %layer4_2_conv2_bias_folded = ascend.weight dense<0.000000e+00> : tensor<512xf32> -> memref<512xf32>
  %relu_47 = ascend.buffer {offset = 44756992 : i64} : memref<1x512x7x7xf32>
  ascend.task "conv2d_relu_32" {unit = "cube", stream = 0 : i64} ins(%relu_46, %layer4_2_conv2_weight_folded, %layer4_2_conv2_bias_folded : memref<1x512x7x7xf32>, memref<512x512x3x3xf32>, memref<512xf32>) outs(%relu_47 : memref<1x512x7x7xf32>) {
  ^bb0(%relu_48: tensor<1x512x7x7xf32>, %layer4_2_conv2_weight_folded_1: tensor<512x512x3x3xf32>, %layer4_2_conv2_bias_folded_1: tensor<512xf32>):
    %conv2d_4 = ge.conv2d %relu_48, %layer4_2_conv2_weight_folded_1, %layer4_2_conv2_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x512x7x7xf32>, tensor<512x512x3x3xf32>, tensor<512xf32> -> tensor<1x512x7x7xf32>
    %relu_49 = ge.relu %conv2d_4 : tensor<1x512x7x7xf32>
    ge.yield %relu_49 : tensor<1x512x7x7xf32>
  }
  %layer4_2_conv3_weight_folded = ascend.weight dense<0.000000e+00> : tensor<2048x512x1x1xf32> -> memref<2048x512x1x1xf32>
  %layer4_2_conv3_bias_folded = ascend.weight dense<0.000000e+00> : tensor<2048xf32> -> memref<2048xf32>
  %relu_48 = ascend.buffer {offset = 44857344 : i64} : memref<1x2048x7x7xf32>
  ascend.task "conv2d_add_relu_15" {unit = "cube", stream = 0 : i64} ins(%relu_47, %layer4_2_conv3_weight_folded, %layer4_2_conv3_bias_folded, %relu_45 : memref<1x512x7x7xf32>, memref<2048x512x1x1xf32>, memref<2048xf32>, memref<1x2048x7x7xf32>) outs(%relu_48 : memref<1x2048x7x7xf32>) {
  ^bb0(%relu_49: tensor<1x512x7x7xf32>, %layer4_2_conv3_weight_folded_1: tensor<2048x512x1x1xf32>, %layer4_2_conv3_bias_folded_1: tensor<2048xf32>, %relu_50: tensor<1x2048x7x7xf32>):
    %conv2d_4 = ge.conv2d %relu_49, %layer4_2_conv3_weight_folded_1, %layer4_2_conv3_bias_folded_1 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x512x7x7xf32>, tensor<2048x512x1x1xf32>, tensor<2048xf32> -> tensor<1x2048x7x7xf32>
    %add = ge.add %conv2d_4, %relu_50 : tensor<1x2048x7x7xf32>, tensor<1x2048x7x7xf32> -> tensor<1x2048x7x7xf32>
    %relu_51 = ge.relu %add : tensor<1x2048x7x7xf32>
    ge.yield %relu_51 : tensor<1x2048x7x7xf32>
  }
  %adaptive_avg_pool2d = ascend.buffer {offset = 45258752 : i64} : memref<1x2048x1x1xf32>
  ascend.task "adaptive_avg_pool2d_0" {unit = "vector", stream = 0 : i64} ins(%relu_48 : memref<1x2048x7x7xf32>) outs(%adaptive_avg_pool2d : memref<1x2048x1x1xf32>) {
  ^bb0(%relu_49: tensor<1x2048x7x7xf32>):
    %adaptive_avg_pool2d_1 = ge.adaptive_avg_pool2d %relu_49 {output_size = array<i64: 1, 1>} : tensor<1x2048x7x7xf32> -> tensor<1x2048x1x1xf32>
    ge.yield %adaptive_avg_pool2d_1 : tensor<1x2048x1x1xf32>
  }
  %flatten = ascend.buffer {offset = 45266944 : i64} : memref<1x2048xf32>
  ascend.task "flatten_0" {unit = "vector", stream = 0 : i64} ins(%adaptive_avg_pool2d : memref<1x2048x1x1xf32>) outs(%flatten : memref<1x2048xf32>) {
  ^bb0(%adaptive_avg_pool2d_1: tensor<1x2048x1x1xf32>):
    %flatten_1 = ge.flatten %adaptive_avg_pool2d_1 {start_dim = 1 : i64, end_dim = -1 : i64} : tensor<1x2048x1x1xf32> -> tensor<1x2048xf32>
    ge.yield %flatten_1 : tensor<1x2048xf32>
  }
  %linear = ascend.buffer {offset = 45275136 : i64} : memref<1x1000xf32>
  ascend.task "linear_0" {unit = "cube", stream = 0 : i64} ins(%flatten, %fc_weight, %fc_bias : memref<1x2048xf32>, memref<1000x2048xf32>, memref<1000xf32>) outs(%linear : memref<1x1000xf32>) {
  ^bb0(%flatten_1: tensor<1x2048xf32>, %fc_weight_1: tensor<1000x2048xf32>, %fc_bias_1: tensor<1000xf32>):
    %linear_1 = ge.linear %flatten_1, %fc_weight_1, %fc_bias_1 : tensor<1x2048xf32>, tensor<1000x2048xf32>, tensor<1000xf32> -> tensor<1x1000xf32>
    ge.yield %linear_1 : tensor<1x1000xf32>
  }
  func.return %linear : memref<1x1000xf32>
}
