// RUN: ge-opt %s -p dce | filecheck %s

// Dead graph ops and the weights only they used are removed; live ones stay.
// CHECK-LABEL: func.func @dead
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<4xf32>
// CHECK-NEXT:    %[[A:.*]] = ge.add %x, %[[W]]
// CHECK-NEXT:    func.return %[[A]] :
// CHECK-NOT:     ge.mul
func.func @dead(%x: tensor<4xf32>) -> tensor<4xf32> {
  %w = ge.const dense<1.0> : tensor<4xf32>
  %unused_w = ge.const dense<2.0> : tensor<4xf32>
  %a = ge.add %x, %w : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %m = ge.mul %a, %unused_w : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %r = ge.relu %m : tensor<4xf32>
  func.return %a : tensor<4xf32>
}

// Tasks write memory: lowered IR is never dead-code eliminated.
// CHECK-LABEL: func.func @tasks_stay
// CHECK:         ascend.task "relu_0"
func.func @tasks_stay(%x: memref<4xf32>) -> memref<4xf32> attributes {ascend.arena_size = 512 : i64} {
  %b = ascend.buffer {offset = 0 : i64} : memref<4xf32>
  ascend.task "relu_0" {unit = "vector", stream = 0 : i64} ins(%x : memref<4xf32>) outs(%b : memref<4xf32>) {
  ^bb0(%0: tensor<4xf32>):
    %1 = ge.relu %0 : tensor<4xf32>
    ge.yield %1 : tensor<4xf32>
  }
  func.return %x : memref<4xf32>
}
