// --emit-dot=FILE draws the resulting module: Ascend tasks coloured by unit
// (cube orange, vector blue) in one cluster per stream, data edges from the
// task that wrote a buffer to its readers, events as dashed edges.

// RUN: ge-opt %s --emit-dot=%t.dot > /dev/null
// RUN: filecheck %s --input-file %t.dot
// CHECK:      digraph "ge" {
// CHECK:        subgraph cluster_func_0 {
// CHECK-NEXT:     label="@lowered";
// CHECK-NEXT:     subgraph cluster_stream_1 {
// CHECK-NEXT:       label="stream 0";
// CHECK-NEXT:       [[CONV:n[0-9]+]] [label="conv2d_0\ncube: conv2d\n1x4x6x6xf32", shape=box, fillcolor="#f4a261"];
// CHECK-NEXT:     }
// CHECK-NEXT:     subgraph cluster_stream_2 {
// CHECK-NEXT:       label="stream 1";
// CHECK-NEXT:       [[RELU:n[0-9]+]] [label="relu_1\nvector: relu\n1x4x6x6xf32", shape=box, fillcolor="#8ecae6"];
// CHECK-NEXT:     }
// CHECK-NEXT:     [[X:n[0-9]+]] [label="%x\n1x3x8x8xf32", shape=ellipse
// CHECK-NEXT:     [[RET:n[0-9]+]] [label="return", shape=oval
// CHECK-NEXT:   }
// CHECK-NEXT:   [[X]] -> [[CONV]];
// CHECK-NEXT:   [[CONV]] -> [[RELU]];
// CHECK-NEXT:   [[CONV]] -> [[RELU]] [label="event 0", style=dashed];
// CHECK-NEXT:   [[RELU]] -> [[RET]];
// CHECK-NEXT: }

func.func @lowered(%x: memref<1x3x8x8xf32>) -> memref<1x4x6x6xf32> attributes {ascend.arena_size = 1152 : i64} {
  %w = ascend.weight dense<5.000000e-01> : tensor<4x3x3x3xf32> -> memref<4x3x3x3xf32>
  %t0 = ascend.buffer {offset = 0 : i64} : memref<1x4x6x6xf32>
  %t1 = ascend.buffer {offset = 576 : i64} : memref<1x4x6x6xf32>
  ascend.task "conv2d_0" {unit = "cube", stream = 0 : i64} ins(%x, %w : memref<1x3x8x8xf32>, memref<4x3x3x3xf32>) outs(%t0 : memref<1x4x6x6xf32>) {
  ^bb0(%a: tensor<1x3x8x8xf32>, %k: tensor<4x3x3x3xf32>):
    %0 = ge.conv2d %a, %k {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
    ge.yield %0 : tensor<1x4x6x6xf32>
  }
  ascend.record_event {event = 0 : i64, stream = 0 : i64}
  ascend.wait_event {event = 0 : i64, stream = 1 : i64}
  ascend.task "relu_1" {unit = "vector", stream = 1 : i64} ins(%t0 : memref<1x4x6x6xf32>) outs(%t1 : memref<1x4x6x6xf32>) {
  ^bb0(%a: tensor<1x4x6x6xf32>):
    %0 = ge.relu %a : tensor<1x4x6x6xf32>
    ge.yield %0 : tensor<1x4x6x6xf32>
  }
  func.return %t1 : memref<1x4x6x6xf32>
}
