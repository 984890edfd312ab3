// Input that lower-to-ascend must refuse with a diagnostic (it used to emit
// invalid IR or crash): IR that is lowered already, control flow, ops that are
// not GE. Dynamic shapes: passes/lower-to-ascend-dynamic.mlir.

// RUN: ge-opt %s --split-input-file -p lower-to-ascend --verify-diagnostics | filecheck %s

// CHECK: {{^}}lower-to-ascend: @already_lowered has a memref<4xf32> in its signature; only functions on tensors can be lowered (is it lowered already?){{$}}
func.func @already_lowered(%x: memref<4xf32>) -> memref<4xf32> attributes {ascend.arena_size = 512 : i64} {
  %b = ascend.buffer {offset = 0 : i64} : memref<4xf32>
  ascend.task "relu_0" {unit = "vector", stream = 0 : i64} ins(%x : memref<4xf32>) outs(%b : memref<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    %r = ge.relu %a : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  func.return %b : memref<4xf32>
}

// -----

// CHECK: {{^}}lower-to-ascend: @control_flow has 2 blocks; only single-block functions (no control flow) can be lowered{{$}}
func.func @control_flow(%x: tensor<4xf32>) -> tensor<4xf32> {
  cf.br ^next
^next:
  %y = ge.relu %x : tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: {{^}}lower-to-ascend: cannot lower 'arith.constant' in @non_ge_op; only GE ops become Ascend tasks{{$}}
func.func @non_ge_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant dense<1.0> : tensor<4xf32>
  %y = ge.add %x, %c : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: {{^}}lower-to-ascend: cannot lower 'func.call' in @caller; only GE ops become Ascend tasks{{$}}
func.func @callee(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}
func.func @caller(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @callee(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
