// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// ge.fused and its ge.yield terminator.

// CHECK: {{^}}ge.fused: yielded types must match the result types{{$}}
func.func @yield_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.fused "relu" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %s = ge.reshape %a : tensor<4xf32> -> tensor<2x2xf32>
    ge.yield %s : tensor<2x2xf32>
  }
  func.return %y : tensor<4xf32>
}

// -----

// One result, two yielded values.
// CHECK: {{^}}ge.fused: yielded types must match the result types{{$}}
func.func @yield_count(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.fused "relu" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %r = ge.relu %a : tensor<4xf32>
    ge.yield %r, %a : tensor<4xf32>, tensor<4xf32>
  }
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: {{^}}ge.fused: block argument types must match the input types{{$}}
func.func @block_arg_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.fused "relu" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf16>):
    %r = ge.relu %a : tensor<4xf16>
    ge.yield %r : tensor<4xf16>
  }
  func.return %y : tensor<4xf32>
}

// -----

// Two inputs, one block argument.
// CHECK: {{^}}ge.fused: block argument types must match the input types{{$}}
func.func @block_arg_count(%x: tensor<4xf32>, %z: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.fused "add" (%x, %z) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    ge.yield %a : tensor<4xf32>
  }
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: {{^}}Operation ge.relu terminates block in single-block region but is not a terminator{{$}}
func.func @no_yield(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.fused "relu" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %r = ge.relu %a : tensor<4xf32>
  }
  func.return %y : tensor<4xf32>
}

// -----

// The body is isolated from above: inputs come in as block arguments.
// CHECK: {{^}}Operation using value defined out of its IsolatedFromAbove parent: ReluOp(%r = ge.relu %x : tensor<4xf32>){{$}}
func.func @captures_from_above(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.fused "relu" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %r = ge.relu %x : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: {{^}}'ge.yield' must be the last operation in its parent block{{$}}
func.func @yield_not_last(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.fused "relu" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    ge.yield %a : tensor<4xf32>
    %r = ge.relu %a : tensor<4xf32>
  }
  func.return %y : tensor<4xf32>
}

// -----

// Members are verified like any other op.
// CHECK: {{^}}ge.add: result shape 8 does not match the inferred shape 4{{$}}
func.func @member_verifies(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.fused "add" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %r = ge.add %a, %a : tensor<4xf32>, tensor<4xf32> -> tensor<8xf32>
    ge.yield %a : tensor<4xf32>
  }
  func.return %y : tensor<4xf32>
}
