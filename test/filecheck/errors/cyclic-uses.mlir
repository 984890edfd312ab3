// Cycles and uses above the definition. xDSL 0.74 parses and verifies them;
// ge_dialect/verifier.py rejects them as MLIR does, before a pass, the
// evaluator or the lowering can trip over them.

// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK: {{^}}'ge.relu' uses %b, which 'ge.relu' defines further down: values must be defined above their uses (no cycles){{$}}
func.func @two_op_cycle(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.relu %b : tensor<4xf32>
  %b = ge.relu %a : tensor<4xf32>
  func.return %b : tensor<4xf32>
}

// -----

// CHECK: {{^}}'ge.add' uses %a, which it defines itself: values must be defined above their uses (no cycles){{$}}
func.func @self_use(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.add %a, %x : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  func.return %a : tensor<4xf32>
}

// -----

// CHECK: {{^}}'ge.relu' uses %b, which 'ge.relu' defines further down: values must be defined above their uses (no cycles){{$}}
func.func @use_above_definition(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.relu %b : tensor<4xf32>
  %b = ge.relu %x : tensor<4xf32>
  func.return %a : tensor<4xf32>
}

// -----

// CHECK: {{^}}'ge.add' uses %c, which 'ge.const' defines further down: values must be defined above their uses (no cycles){{$}}
func.func @constant_defined_below(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.add %x, %c : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %c = ge.const dense<1.0> : tensor<4xf32>
  func.return %a : tensor<4xf32>
}

// -----

// CHECK: {{^}}'ge.fused' uses %z, which 'ge.relu' defines further down: values must be defined above their uses (no cycles){{$}}
func.func @cycle_through_fused(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.fused "k" (%z) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %r = ge.relu %a : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  %z = ge.relu %y : tensor<4xf32>
  func.return %z : tensor<4xf32>
}

// -----

// CHECK: {{^}}'ge.add' uses %s, which 'ge.relu' defines further down: values must be defined above their uses (no cycles){{$}}
func.func @cycle_inside_fused_body(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.fused "k" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %r = ge.add %a, %s : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    %s = ge.relu %r : tensor<4xf32>
    ge.yield %s : tensor<4xf32>
  }
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: {{^}}'ascend.task' uses %b, which 'ascend.buffer' defines further down: values must be defined above their uses (no cycles){{$}}
func.func @task_reads_buffer_defined_below(%x: memref<4xf32>) -> memref<4xf32> attributes {ascend.arena_size = 512 : i64} {
  ascend.task "relu_0" {unit = "vector", stream = 0 : i64} ins(%x : memref<4xf32>) outs(%b : memref<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    %r = ge.relu %a : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  %b = ascend.buffer {offset = 0 : i64} : memref<4xf32>
  func.return %b : memref<4xf32>
}
