// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP
// RUN: ge-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// A cube-unit convolution: body arguments are tensor views of the ins.
// CHECK-LABEL: func.func @task_cube(
// CHECK-NEXT:    ascend.task "conv2d_0" {unit = "cube", stream = 0 : i64} ins(%x, %w : memref<1x3x8x8xf32>, memref<4x3x3x3xf32>) outs(%o : memref<1x4x6x6xf32>) {
// CHECK-NEXT:    ^bb0(%a: tensor<1x3x8x8xf32>, %k: tensor<4x3x3x3xf32>):
// CHECK-NEXT:      %0 = ge.conv2d %a, %k {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
// CHECK-NEXT:      ge.yield %0 : tensor<1x4x6x6xf32>
// CHECK-NEXT:    }
// GENERIC-LABEL: "func.func"() <{sym_name = "task_cube"
// GENERIC:         "ascend.task"(%x, %w, %o) <{task_name = "conv2d_0", unit = "cube", stream = 0 : i64, operandSegmentSizes = array<i32: 2, 1>}> ({
// GENERIC-NEXT:    ^bb0(%a: tensor<1x3x8x8xf32>, %k: tensor<4x3x3x3xf32>):
// GENERIC:           "ge.yield"(%0) : (tensor<1x4x6x6xf32>) -> ()
// GENERIC-NEXT:    }) : (memref<1x3x8x8xf32>, memref<4x3x3x3xf32>, memref<1x4x6x6xf32>) -> ()
func.func @task_cube(%x: memref<1x3x8x8xf32>, %w: memref<4x3x3x3xf32>, %o: memref<1x4x6x6xf32>) {
  ascend.task "conv2d_0" {unit = "cube", stream = 0 : i64} ins(%x, %w : memref<1x3x8x8xf32>, memref<4x3x3x3xf32>) outs(%o : memref<1x4x6x6xf32>) {
  ^bb0(%a: tensor<1x3x8x8xf32>, %k: tensor<4x3x3x3xf32>):
    %0 = ge.conv2d %a, %k {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
    ge.yield %0 : tensor<1x4x6x6xf32>
  }
  func.return
}

// A vector-unit task on another stream with two outs.
// CHECK-LABEL: func.func @task_vector_two_outs(
// CHECK-NEXT:    ascend.task "relu_1" {unit = "vector", stream = 1 : i64} ins(%x : memref<8xf32>) outs(%o0, %o1 : memref<8xf32>, memref<8xf32>) {
// CHECK-NEXT:    ^bb0(%a: tensor<8xf32>):
// CHECK-NEXT:      %r = ge.relu %a : tensor<8xf32>
// CHECK-NEXT:      ge.yield %a, %r : tensor<8xf32>, tensor<8xf32>
// CHECK-NEXT:    }
func.func @task_vector_two_outs(%x: memref<8xf32>, %o0: memref<8xf32>, %o1: memref<8xf32>) {
  ascend.task "relu_1" {unit = "vector", stream = 1 : i64} ins(%x : memref<8xf32>) outs(%o0, %o1 : memref<8xf32>, memref<8xf32>) {
  ^bb0(%a: tensor<8xf32>):
    %r = ge.relu %a : tensor<8xf32>
    ge.yield %a, %r : tensor<8xf32>, tensor<8xf32>
  }
  func.return
}

// An AI CPU task without ins: the `ins(...)` group is omitted, the body has no arguments.
// CHECK-LABEL: func.func @task_aicpu_no_ins(
// CHECK-NEXT:    ascend.task "fill_2" {unit = "aicpu", stream = 2 : i64} outs(%o : memref<2x2xf32>) {
// CHECK-NEXT:      %0 = ge.const dense<0.000000e+00> : tensor<2x2xf32>
// CHECK-NEXT:      ge.yield %0 : tensor<2x2xf32>
// CHECK-NEXT:    }
// GENERIC-LABEL: "func.func"() <{sym_name = "task_aicpu_no_ins"
// GENERIC:         "ascend.task"(%o) <{task_name = "fill_2", unit = "aicpu", stream = 2 : i64, operandSegmentSizes = array<i32: 0, 1>}> ({
func.func @task_aicpu_no_ins(%o: memref<2x2xf32>) {
  ascend.task "fill_2" {unit = "aicpu", stream = 2 : i64} outs(%o : memref<2x2xf32>) {
    %0 = ge.const dense<0.0> : tensor<2x2xf32>
    ge.yield %0 : tensor<2x2xf32>
  }
  func.return
}
