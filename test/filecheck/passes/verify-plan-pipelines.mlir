// RUN: ge-opt %s -p lower-to-ascend,task-parallel,memory-reuse,verify-plan | filecheck %s --check-prefix=STREAMS-FIRST
// RUN: ge-opt %s -p lower-to-ascend,memory-reuse,task-parallel,verify-plan | filecheck %s --check-prefix=REUSE-FIRST

// Plans that the device passes make verify clean, in both pipeline orders
// (ge-opt in lit runs --verify-each, which also checks the plan after each
// of them). Two towers joined by an add.

// Streams first: the towers run on two streams, the join waits for an event,
// and reuse respects the streams (%y writes in place over %a3, which sits on %a2's bytes).
// STREAMS-FIRST-LABEL: func.func @towers
// STREAMS-FIRST:         %a2 = ascend.buffer {offset = 1024 : i64}
// STREAMS-FIRST:         %b = ascend.buffer {offset = 2048 : i64}
// STREAMS-FIRST-NEXT:    ascend.task "sigmoid_0" {unit = "vector", stream = 1 : i64}
// STREAMS-FIRST:         ascend.record_event {event = 0 : i64, stream = 1 : i64}
// STREAMS-FIRST-NEXT:    %y = ascend.buffer {offset = 1024 : i64}
// STREAMS-FIRST-NEXT:    ascend.wait_event {event = 0 : i64, stream = 0 : i64}
// STREAMS-FIRST-NEXT:    ascend.task "add_2" {unit = "vector", stream = 0 : i64}

// Reuse first: the second tower takes the first one's dead bytes (%b over %a),
// so task-parallel keeps the towers in order.
// REUSE-FIRST-LABEL: func.func @towers
// REUSE-FIRST:         %a = ascend.buffer {offset = 0 : i64}
// REUSE-FIRST:         %b = ascend.buffer {offset = 0 : i64}
// REUSE-FIRST-NOT:     stream = 1
func.func @towers(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %a = ge.relu %x : tensor<1x4x8x8xf32>
  %a2 = ge.exp %a : tensor<1x4x8x8xf32>
  %a3 = ge.add %a2, %a : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %b = ge.sigmoid %x : tensor<1x4x8x8xf32>
  %b2 = ge.exp %b : tensor<1x4x8x8xf32>
  %b3 = ge.add %b2, %b : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %y = ge.add %a3, %b3 : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}
