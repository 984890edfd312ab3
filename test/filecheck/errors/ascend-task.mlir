// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK: {{^}}ascend.task: unit must be one of cube, vector, aicpu, got 'gpu'{{$}}
func.func @bad_unit(%x: memref<8xf32>, %o: memref<8xf32>) {
  ascend.task "relu_0" {unit = "gpu", stream = 0 : i64} ins(%x : memref<8xf32>) outs(%o : memref<8xf32>) {
  ^bb0(%a: tensor<8xf32>):
    %r = ge.relu %a : tensor<8xf32>
    ge.yield %r : tensor<8xf32>
  }
  func.return
}

// -----

// CHECK: {{^}}ascend.task: stream must be >= 0{{$}}
func.func @negative_stream(%x: memref<8xf32>, %o: memref<8xf32>) {
  ascend.task "relu_0" {unit = "vector", stream = -1 : i64} ins(%x : memref<8xf32>) outs(%o : memref<8xf32>) {
  ^bb0(%a: tensor<8xf32>):
    %r = ge.relu %a : tensor<8xf32>
    ge.yield %r : tensor<8xf32>
  }
  func.return
}

// -----

// Body arguments are tensor views of the ins, not the memrefs themselves.
// CHECK: {{^}}ascend.task: body arguments must be tensors matching the ins buffers{{$}}
func.func @body_arg_type(%x: memref<8xf32>, %o: memref<8xf32>) {
  ascend.task "relu_0" {unit = "vector", stream = 0 : i64} ins(%x : memref<8xf32>) outs(%o : memref<8xf32>) {
  ^bb0(%a: memref<8xf32>):
    %r = ge.const dense<0.0> : tensor<8xf32>
    ge.yield %r : tensor<8xf32>
  }
  func.return
}

// -----

// Two ins, one body argument.
// CHECK: {{^}}ascend.task: body arguments must be tensors matching the ins buffers{{$}}
func.func @body_arg_count(%x: memref<8xf32>, %y: memref<8xf32>, %o: memref<8xf32>) {
  ascend.task "add_0" {unit = "vector", stream = 0 : i64} ins(%x, %y : memref<8xf32>, memref<8xf32>) outs(%o : memref<8xf32>) {
  ^bb0(%a: tensor<8xf32>):
    ge.yield %a : tensor<8xf32>
  }
  func.return
}

// -----

// Same element count, different shape.
// CHECK: {{^}}ascend.task: body arguments must be tensors matching the ins buffers{{$}}
func.func @body_arg_shape(%x: memref<8xf32>, %o: memref<8xf32>) {
  ascend.task "relu_0" {unit = "vector", stream = 0 : i64} ins(%x : memref<8xf32>) outs(%o : memref<8xf32>) {
  ^bb0(%a: tensor<2x4xf32>):
    %r = ge.reshape %a : tensor<2x4xf32> -> tensor<8xf32>
    ge.yield %r : tensor<8xf32>
  }
  func.return
}

// -----

// One out, two yielded values.
// CHECK: {{^}}ascend.task: yielded tensors must match the outs buffers in number and type{{$}}
func.func @yield_count(%x: memref<8xf32>, %o: memref<8xf32>) {
  ascend.task "relu_0" {unit = "vector", stream = 0 : i64} ins(%x : memref<8xf32>) outs(%o : memref<8xf32>) {
  ^bb0(%a: tensor<8xf32>):
    %r = ge.relu %a : tensor<8xf32>
    ge.yield %r, %a : tensor<8xf32>, tensor<8xf32>
  }
  func.return
}

// -----

// CHECK: {{^}}ascend.task: yielded tensors must match the outs buffers in number and type{{$}}
func.func @yield_type(%x: memref<8xf32>, %o: memref<4xf32>) {
  ascend.task "relu_0" {unit = "vector", stream = 0 : i64} ins(%x : memref<8xf32>) outs(%o : memref<4xf32>) {
  ^bb0(%a: tensor<8xf32>):
    %r = ge.relu %a : tensor<8xf32>
    ge.yield %r : tensor<8xf32>
  }
  func.return
}

// -----

// CHECK: {{^}}Operation ge.relu terminates block in single-block region but is not a terminator{{$}}
func.func @no_yield(%x: memref<8xf32>, %o: memref<8xf32>) {
  ascend.task "relu_0" {unit = "vector", stream = 0 : i64} ins(%x : memref<8xf32>) outs(%o : memref<8xf32>) {
  ^bb0(%a: tensor<8xf32>):
    %r = ge.relu %a : tensor<8xf32>
  }
  func.return
}

// -----

// CHECK: {{^}}operand 'ins' at position 0 does not verify:{{$}}
// CHECK-NEXT: {{^}}tensor<8xf32> should be of base attribute memref{{$}}
func.func @tensor_operand(%x: tensor<8xf32>, %o: memref<8xf32>) {
  "ascend.task"(%x, %o) <{task_name = "relu_0", unit = "vector", stream = 0 : i64, operandSegmentSizes = array<i32: 1, 1>}> ({
  ^bb0(%a: tensor<8xf32>):
    ge.yield %a : tensor<8xf32>
  }) : (tensor<8xf32>, memref<8xf32>) -> ()
  func.return
}

// -----

// Constants a task needs must be built inside its body.
// CHECK: {{^}}Operation using value defined out of its IsolatedFromAbove parent: YieldOp(ge.yield %c : tensor<8xf32>){{$}}
func.func @captures_from_above(%x: memref<8xf32>, %o: memref<8xf32>) {
  %c = ge.const dense<1.0> : tensor<8xf32>
  ascend.task "fill_0" {unit = "aicpu", stream = 0 : i64} outs(%o : memref<8xf32>) {
    ge.yield %c : tensor<8xf32>
  }
  func.return
}
