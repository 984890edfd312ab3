// RUN: ge-opt %s --split-input-file --parsing-diagnostics | filecheck %s

// Custom-format mistakes. --parsing-diagnostics reports each chunk's error with
// its file-global line:column and goes on with the next chunk.

// ge.add spells out all three types; the parser notices at the next line.
// CHECK: {{^}}{{.*}}parse-bad-syntax.mlir:[[# @LINE + 4]]:3{{$}}
// CHECK: {{^ *}}Expected ','{{$}}
func.func @add_one_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.add %x, %x : tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// outs(...) is mandatory, ins(...) is not.
// CHECK: {{^}}{{.*}}parse-bad-syntax.mlir:[[# @LINE + 3]]:79{{$}}
// CHECK: {{^ *}}Expected 'outs'{{$}}
func.func @task_without_outs(%x: memref<8xf32>) {
  ascend.task "t" {unit = "vector", stream = 0 : i64} ins(%x : memref<8xf32>) {
  ^bb0(%a: tensor<8xf32>):
    ge.yield :
  }
  func.return
}

// -----

// The fusion kind string is not optional.
// CHECK: {{^}}{{.*}}parse-bad-syntax.mlir:[[# @LINE + 3]]:18{{$}}
// CHECK: {{^ *}}type expected{{$}}
func.func @fused_without_kind(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.fused (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    ge.yield %a : tensor<4xf32>
  }
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: {{^}}{{.*}}parse-bad-syntax.mlir:[[# @LINE + 4]]:3{{$}}
// CHECK: {{^ *}}SSA value %b is already defined{{$}}
func.func @buffer_redefined() {
  %b = ascend.buffer {offset = 0 : i64} : memref<4xf32>
  %b = ascend.buffer {offset = 16 : i64} : memref<4xf32>
  func.return
}
