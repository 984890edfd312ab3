// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP
// RUN: ge-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// A middle stage of a pipeline: it receives its input from stage 0 before its
// first task and sends its result to stage 2 after its last task.
// CHECK-LABEL: func.func @main_stage1()
// CHECK:         %x = ascend.buffer {offset = 0 : i64} : memref<1x4xf32>
// CHECK-NEXT:    ascend.recv %x {peer = 0 : i64, tag = 0 : i64} : memref<1x4xf32>
// CHECK:         ascend.task "relu_0"
// CHECK:         ascend.send %y {peer = 2 : i64, tag = 1 : i64} : memref<1x4xf32>
// CHECK-NEXT:    func.return
// GENERIC:       "ascend.recv"(%x) <{peer = 0 : i64, tag = 0 : i64}> : (memref<1x4xf32>) -> ()
// GENERIC:       "ascend.send"(%y) <{peer = 2 : i64, tag = 1 : i64}> : (memref<1x4xf32>) -> ()
func.func @main_stage1() attributes {ascend.arena_size = 1024 : i64, ascend.stage = 1 : i64, ascend.stages = 3 : i64} {
  %x = ascend.buffer {offset = 0 : i64} : memref<1x4xf32>
  ascend.recv %x {peer = 0 : i64, tag = 0 : i64} : memref<1x4xf32>
  %y = ascend.buffer {offset = 512 : i64} : memref<1x4xf32>
  ascend.task "relu_0" {unit = "vector", stream = 0 : i64} ins(%x : memref<1x4xf32>) outs(%y : memref<1x4xf32>) {
  ^bb0(%a: tensor<1x4xf32>):
    %r = ge.relu %a : tensor<1x4xf32>
    ge.yield %r : tensor<1x4xf32>
  }
  ascend.send %y {peer = 2 : i64, tag = 1 : i64} : memref<1x4xf32>
  func.return
}
