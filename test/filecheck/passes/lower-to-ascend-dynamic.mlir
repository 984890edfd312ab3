// RUN: ge-opt %s --split-input-file -p lower-to-ascend | filecheck %s

// A `?` dim gets no offset: the result becomes an ascend.dyn_buffer that the
// executor places per input shape. Static results keep their static offsets,
// and the arena size counts only them.
// CHECK-LABEL: func.func @dyn(%x: memref<?x4xf32>) -> (memref<?x4xf32>, memref<4xf32>) attributes {ascend.arena_size = 512 : i64} {
// CHECK-NEXT:    %y = ascend.dyn_buffer : memref<?x4xf32>
// CHECK-NEXT:    ascend.task "relu_0" {unit = "vector", stream = 0 : i64} ins(%x : memref<?x4xf32>) outs(%y : memref<?x4xf32>) {
// CHECK-NEXT:    ^bb0(%x_1: tensor<?x4xf32>):
// CHECK-NEXT:      %y_1 = ge.relu %x_1 : tensor<?x4xf32>
// CHECK-NEXT:      ge.yield %y_1 : tensor<?x4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %s = ascend.buffer {offset = 0 : i64} : memref<4xf32>
// CHECK-NEXT:    ascend.task "reduce_sum_0" {unit = "vector", stream = 0 : i64} ins(%y : memref<?x4xf32>) outs(%s : memref<4xf32>) {
// CHECK:         func.return %y, %s : memref<?x4xf32>, memref<4xf32>
func.func @dyn(%x: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<4xf32>) {
  %y = ge.relu %x : tensor<?x4xf32>
  %s = ge.reduce_sum %y {dims = array<i64: 0>, keepdim = false} : tensor<?x4xf32> -> tensor<4xf32>
  func.return %y, %s : tensor<?x4xf32>, tensor<4xf32>
}

// -----

// A dynamic result of a static input.
// CHECK-LABEL: func.func @dyn_inner(%x: memref<4xf32>) -> memref<?xf32> attributes {ascend.arena_size = 0 : i64} {
// CHECK-NEXT:    %y = ascend.dyn_buffer : memref<?xf32>
func.func @dyn_inner(%x: tensor<4xf32>) -> tensor<?xf32> {
  %y = ge.reshape %x : tensor<4xf32> -> tensor<?xf32>
  func.return %y : tensor<?xf32>
}

// -----

// Control flow: the whole ge.if is one AI CPU task whose body holds it.
// CHECK-LABEL: func.func @branch(
// CHECK:         ascend.task "if_0" {unit = "aicpu", stream = 0 : i64} ins(%p, %x : memref<i1>, memref<4xf32>) outs(%y : memref<4xf32>) {
// CHECK-NEXT:    ^bb0(%p_1: tensor<i1>, %x_1: tensor<4xf32>):
// CHECK-NEXT:      %y_1 = ge.if %p_1(%x_1) : tensor<i1>, (tensor<4xf32>) -> tensor<4xf32> {
func.func @branch(%p: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.if %p(%x) : tensor<i1>, (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %r = ge.relu %a : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>):
    ge.yield %a : tensor<4xf32>
  }
  func.return %y : tensor<4xf32>
}
