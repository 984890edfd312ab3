// RUN: ge-opt %s --split-input-file -p hardware-mapping | filecheck %s
// RUN: ge-opt %s --split-input-file -p 'hardware-mapping{hardware=ascend910b}' | filecheck %s --check-prefix=B
// RUN: ge-opt %s --split-input-file -p hardware-mapping,lower-to-ascend | filecheck %s --check-prefix=TASK

// Units: the matrix op and the group holding one on the cube, the rest on the
// vector unit. Cost (ascend910): a relu of 200704 f32 elements on 32 cores moves
// 1605632 bytes at 1200 GB/s = 1.338 us, plus 3 us launch = 4.338 us.
// On ascend910b (1600 GB/s, 48 vector cores): 1.004 + 3 = 4.004 us.
// Constants become weights, not tasks: no annotation.
// CHECK-LABEL: func.func @units
// CHECK-SAME:    attributes {ge.hardware = "ascend910"}
// CHECK:         ge.const dense<1.000000e+00> : tensor<64x64x1x1xf32>
// CHECK-NEXT:    %c = ge.conv2d %x, %w {ge.unit = "cube", ge.cost_us = {{[0-9.e+]+}} : f64,
// CHECK-NEXT:    %r = ge.relu %c {ge.unit = "vector", ge.cost_us = 4.338000e+00 : f64} :
// CHECK-NEXT:    %f = ge.fused "conv2d_relu"(%r, %w) {ge.unit = "cube", ge.cost_us = {{[0-9.e+]+}} : f64} :
// CHECK-NOT:     ge.unit
// CHECK:         func.return
// B-LABEL:     func.func @units
// B-SAME:        attributes {ge.hardware = "ascend910b"}
// B:             %r = ge.relu %c {ge.unit = "vector", ge.cost_us = 4.004000e+00 : f64} :
// TASK-LABEL:  func.func @units
// TASK:          ascend.task "conv2d_0" {unit = "cube"
// TASK:          ascend.task "relu_0" {unit = "vector"
// The annotation describes the task; its body is clean.
// TASK-NOT:      ge.unit
// TASK:          ascend.task "conv2d_relu_0" {unit = "cube"
func.func @units(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  %w = ge.const dense<1.0> : tensor<64x64x1x1xf32>
  %c = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x64x56x56xf32>, tensor<64x64x1x1xf32> -> tensor<1x64x56x56xf32>
  %r = ge.relu %c : tensor<1x64x56x56xf32>
  %f = ge.fused "conv2d_relu"(%r, %w) : (tensor<1x64x56x56xf32>, tensor<64x64x1x1xf32>) -> tensor<1x64x56x56xf32> {
  ^bb0(%a: tensor<1x64x56x56xf32>, %k: tensor<64x64x1x1xf32>):
    %0 = ge.conv2d %a, %k {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x64x56x56xf32>, tensor<64x64x1x1xf32> -> tensor<1x64x56x56xf32>
    %1 = ge.relu %0 : tensor<1x64x56x56xf32>
    ge.yield %1 : tensor<1x64x56x56xf32>
  }
  func.return %f : tensor<1x64x56x56xf32>
}

// -----

// What the AI Core cannot run goes to the AI CPU: control flow, custom ops
// (host kernels only) and f64 arithmetic. An f32 op stays on the vector unit.
// CHECK-LABEL: func.func @aicpu
// CHECK:         %y = ge.if %p(%x) {ge.unit = "aicpu", ge.cost_us =
// CHECK:         %z = ge.custom(%y) {ge.unit = "aicpu", ge.cost_us =
// CHECK:         %d = ge.relu %x64 {ge.unit = "aicpu", ge.cost_us =
// CHECK:         %n = ge.neg %z {ge.unit = "vector", ge.cost_us =
// TASK-LABEL:  func.func @aicpu
// TASK:          ascend.task "if_0" {unit = "aicpu"
// TASK:          ascend.task "custom_0" {unit = "aicpu"
// TASK:          ascend.task "relu_0" {unit = "aicpu"
// TASK:          ascend.task "neg_0" {unit = "vector"
func.func @aicpu(%x: tensor<4xf32>, %p: tensor<i1>, %x64: tensor<4xf64>) -> (tensor<4xf32>, tensor<4xf64>) {
  %y = ge.if %p(%x) : tensor<i1>, (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %r = ge.relu %a : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>):
    ge.yield %a : tensor<4xf32>
  }
  %z = ge.custom(%y) {name = "aten.cumsum", params = {dim = 0 : i64}} : (tensor<4xf32>) -> tensor<4xf32>
  %d = ge.relu %x64 : tensor<4xf64>
  %n = ge.neg %z : tensor<4xf32>
  func.return %n, %d : tensor<4xf32>, tensor<4xf64>
}

// -----

// lower-to-ascend honors a unit it can run (a relu may go to the AI CPU) and
// refuses one it cannot: a relu on the cube, control flow on the vector unit.
// RUN: ge-opt %s --split-input-file -p lower-to-ascend --verify-diagnostics | filecheck %s --check-prefix=HONOR
// HONOR-LABEL: func.func @by_hand
// HONOR:         ascend.task "relu_0" {unit = "aicpu"
// HONOR:       lower-to-ascend: 'ge.relu' %bad in @on_cube is annotated ge.unit = "cube", which cannot run it; use 'vector' or 'aicpu', or drop the annotation
// HONOR:       lower-to-ascend: 'ge.if' %y in @if_on_vector is annotated ge.unit = "vector", which cannot run it; use 'aicpu', or drop the annotation
func.func @by_hand(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = ge.relu %x {ge.unit = "aicpu"} : tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

func.func @on_cube(%x: tensor<4xf32>) -> tensor<4xf32> {
  %bad = ge.relu %x {ge.unit = "cube"} : tensor<4xf32>
  func.return %bad : tensor<4xf32>
}

// -----

func.func @if_on_vector(%x: tensor<4xf32>, %p: tensor<i1>) -> tensor<4xf32> {
  %y = ge.if %p(%x) {ge.unit = "vector"} : tensor<i1>, (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    ge.yield %a : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>):
    ge.yield %a : tensor<4xf32>
  }
  func.return %y : tensor<4xf32>
}

// A chip outside the cost model's table is an option error: one line, exit 1.
// RUN: not ge-opt %s -p 'hardware-mapping{hardware=ascend310}' 2>&1 | filecheck %s --check-prefix=BADHW
// BADHW: ge-opt: error: hardware-mapping: hardware must be one of ascend910, ascend910b, got 'ascend310'
