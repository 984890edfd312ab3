// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP

// ge.if: two isolated regions over the same inputs, chosen by a one-element i1 tensor.
// CHECK-LABEL: func.func @if(
// CHECK-NEXT:    %y = ge.if %p(%x) : tensor<i1>, (tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    ^bb0(%a: tensor<4xf32>):
// CHECK-NEXT:      %r = ge.relu %a : tensor<4xf32>
// CHECK-NEXT:      ge.yield %r : tensor<4xf32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:    ^bb0(%a_1: tensor<4xf32>):
// CHECK-NEXT:      %n = ge.neg %a_1 : tensor<4xf32>
// CHECK-NEXT:      ge.yield %n : tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %y : tensor<4xf32>
func.func @if(%p: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.if %p(%x) : tensor<i1>, (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %r = ge.relu %a : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>):
    %n = ge.neg %a : tensor<4xf32>
    ge.yield %n : tensor<4xf32>
  }
  func.return %y : tensor<4xf32>
}

// Regions hold their own constants; several results; a [1]-shaped predicate.
// CHECK-LABEL: func.func @if_two_results(
// CHECK-NEXT:    %a, %b = ge.if %p(%x, %y) : tensor<1xi1>, (tensor<2x4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>) {
// CHECK-NEXT:    ^bb0(%u: tensor<2x4xf32>, %v: tensor<4xf32>):
// CHECK-NEXT:      %two = ge.const dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT:      %m = ge.mul %u, %two : tensor<2x4xf32>, tensor<f32> -> tensor<2x4xf32>
// CHECK-NEXT:      ge.yield %m, %v : tensor<2x4xf32>, tensor<4xf32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:    ^bb0(%u_1: tensor<2x4xf32>, %v_1: tensor<4xf32>):
// CHECK-NEXT:      ge.yield %u_1, %v_1 : tensor<2x4xf32>, tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %a, %b : tensor<2x4xf32>, tensor<4xf32>
func.func @if_two_results(%p: tensor<1xi1>, %x: tensor<2x4xf32>, %y: tensor<4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>) {
  %a, %b = ge.if %p(%x, %y) : tensor<1xi1>, (tensor<2x4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>) {
  ^bb0(%u: tensor<2x4xf32>, %v: tensor<4xf32>):
    %two = ge.const dense<2.0> : tensor<f32>
    %m = ge.mul %u, %two : tensor<2x4xf32>, tensor<f32> -> tensor<2x4xf32>
    ge.yield %m, %v : tensor<2x4xf32>, tensor<4xf32>
  } else {
  ^bb0(%u: tensor<2x4xf32>, %v: tensor<4xf32>):
    ge.yield %u, %v : tensor<2x4xf32>, tensor<4xf32>
  }
  func.return %a, %b : tensor<2x4xf32>, tensor<4xf32>
}

// ge.while: `cond` yields the loop test, `do` yields the next carried values.
// CHECK-LABEL: func.func @while(
// CHECK-NEXT:    %n, %y = ge.while(%i, %x) : (tensor<i64>, tensor<4xf32>) -> (tensor<i64>, tensor<4xf32>) cond {
// CHECK-NEXT:    ^bb0(%c: tensor<i64>, %a: tensor<4xf32>):
// CHECK-NEXT:      %five = ge.const dense<5> : tensor<i64>
// CHECK-NEXT:      %p = ge.compare %c, %five {predicate = "lt"} : tensor<i64>, tensor<i64> -> tensor<i1>
// CHECK-NEXT:      ge.yield %p : tensor<i1>
// CHECK-NEXT:    } do {
// CHECK-NEXT:    ^bb0(%c_1: tensor<i64>, %a_1: tensor<4xf32>):
// CHECK-NEXT:      %one = ge.const dense<1> : tensor<i64>
// CHECK-NEXT:      %c1 = ge.add %c_1, %one : tensor<i64>, tensor<i64> -> tensor<i64>
// CHECK-NEXT:      %a1 = ge.add %a_1, %a_1 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:      ge.yield %c1, %a1 : tensor<i64>, tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %n, %y : tensor<i64>, tensor<4xf32>
func.func @while(%i: tensor<i64>, %x: tensor<4xf32>) -> (tensor<i64>, tensor<4xf32>) {
  %n, %y = ge.while (%i, %x) : (tensor<i64>, tensor<4xf32>) -> (tensor<i64>, tensor<4xf32>) cond {
  ^bb0(%c: tensor<i64>, %a: tensor<4xf32>):
    %five = ge.const dense<5> : tensor<i64>
    %p = ge.compare %c, %five {predicate = "lt"} : tensor<i64>, tensor<i64> -> tensor<i1>
    ge.yield %p : tensor<i1>
  } do {
  ^bb0(%c: tensor<i64>, %a: tensor<4xf32>):
    %one = ge.const dense<1> : tensor<i64>
    %c1 = ge.add %c, %one : tensor<i64>, tensor<i64> -> tensor<i64>
    %a1 = ge.add %a, %a : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    ge.yield %c1, %a1 : tensor<i64>, tensor<4xf32>
  }
  func.return %n, %y : tensor<i64>, tensor<4xf32>
}
