// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP

// ge.yield ends ge.fused and ascend.task bodies; these cover its arity.

// Several values, including a block argument passed straight through.
// CHECK-LABEL: func.func @yield_two(
// CHECK-NEXT:    %y, %y_1 = ge.fused "split"(%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
// CHECK-NEXT:    ^bb0(%a: tensor<4xf32>):
// CHECK-NEXT:      %r = ge.relu %a : tensor<4xf32>
// CHECK-NEXT:      ge.yield %a, %r : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %y, %y_1 : tensor<4xf32>, tensor<4xf32>
func.func @yield_two(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %y:2 = ge.fused "split" (%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    %r = ge.relu %a : tensor<4xf32>
    ge.yield %a, %r : tensor<4xf32>, tensor<4xf32>
  }
  func.return %y#0, %y#1 : tensor<4xf32>, tensor<4xf32>
}

// No values: the type list after `:` is empty.
// CHECK-LABEL: func.func @yield_none(
// CHECK-NEXT:    ge.fused "empty"() : () -> () {
// CHECK-NEXT:      ge.yield :
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @yield_none() {
  ge.fused "empty" () : () -> () {
    ge.yield :
  }
  func.return
}
