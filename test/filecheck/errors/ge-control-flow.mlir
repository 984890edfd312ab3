// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK: {{^}}ge.if: condition must be a one-element i1 tensor, got tensor<f32>{{$}}
func.func @if_condition_type(%p: tensor<f32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.if %p(%x) : tensor<f32>, (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    ge.yield %a : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>):
    ge.yield %a : tensor<4xf32>
  }
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: {{^}}ge.if: condition must be a one-element i1 tensor, got tensor<2xi1>{{$}}
func.func @if_condition_size(%p: tensor<2xi1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.if %p(%x) : tensor<2xi1>, (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    ge.yield %a : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>):
    ge.yield %a : tensor<4xf32>
  }
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: {{^}}ge.if: else region must yield tensor<4xf32>{{$}}
func.func @if_else_yield(%p: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.if %p(%x) : tensor<i1>, (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    ge.yield %a : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>):
    ge.yield :
  }
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: {{^}}ge.if: then region block arguments must match the input types{{$}}
func.func @if_block_args(%p: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.if %p(%x) : tensor<i1>, (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<5xf32>):
    %z = ge.const dense<0.0> : tensor<4xf32>
    ge.yield %z : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>):
    ge.yield %a : tensor<4xf32>
  }
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: {{^}}ge.while: the cond region's yield must be a one-element i1 tensor, got tensor<4xf32>{{$}}
func.func @while_cond_yield(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.while (%x) : (tensor<4xf32>) -> (tensor<4xf32>) cond {
  ^bb0(%a: tensor<4xf32>):
    ge.yield %a : tensor<4xf32>
  } do {
  ^bb0(%a: tensor<4xf32>):
    ge.yield %a : tensor<4xf32>
  }
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: {{^}}ge.while: do region must yield tensor<4xf32>{{$}}
func.func @while_body_yield(%x: tensor<4xf32>, %p: tensor<i1>) -> tensor<4xf32> {
  %y = ge.while (%x) : (tensor<4xf32>) -> (tensor<4xf32>) cond {
  ^bb0(%a: tensor<4xf32>):
    %t = ge.const dense<false> : tensor<i1>
    ge.yield %t : tensor<i1>
  } do {
  ^bb0(%a: tensor<4xf32>):
    %r = ge.reduce_sum %a {dims = array<i64>, keepdim = false} : tensor<4xf32> -> tensor<f32>
    ge.yield %r : tensor<f32>
  }
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: {{^}}ge.while: result types must equal the input types{{$}}
func.func @while_result_types(%x: tensor<4xf32>) -> tensor<5xf32> {
  %y = "ge.while"(%x) ({
  ^bb0(%a: tensor<4xf32>):
    %t = ge.const dense<false> : tensor<i1>
    ge.yield %t : tensor<i1>
  }, {
  ^bb0(%a: tensor<4xf32>):
    ge.yield %a : tensor<4xf32>
  }) : (tensor<4xf32>) -> tensor<5xf32>
  func.return %y : tensor<5xf32>
}

// -----

// CHECK: {{^}}ge.custom: name must not be empty{{$}}
func.func @custom_empty_name(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.custom(%x) {name = "", params = {}} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
