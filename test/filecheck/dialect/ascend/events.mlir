// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP
// RUN: ge-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// Stream 1 waits for event 0, recorded on stream 0, and vice versa for event 1.
// CHECK-LABEL: func.func @events()
// CHECK-NEXT:    ascend.record_event {event = 0 : i64, stream = 0 : i64}
// CHECK-NEXT:    ascend.wait_event {event = 0 : i64, stream = 1 : i64}
// CHECK-NEXT:    ascend.record_event {event = 1 : i64, stream = 1 : i64}
// CHECK-NEXT:    ascend.wait_event {event = 1 : i64, stream = 0 : i64}
// CHECK-NEXT:    func.return
// GENERIC:       "ascend.record_event"() <{event = 0 : i64, stream = 0 : i64}> : () -> ()
// GENERIC-NEXT:  "ascend.wait_event"() <{event = 0 : i64, stream = 1 : i64}> : () -> ()
func.func @events() {
  ascend.record_event {event = 0 : i64, stream = 0 : i64}
  ascend.wait_event {event = 0 : i64, stream = 1 : i64}
  ascend.record_event {event = 1 : i64, stream = 1 : i64}
  ascend.wait_event {event = 1 : i64, stream = 0 : i64}
  func.return
}
