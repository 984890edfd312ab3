// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK: {{^}}Expected attribute i64 but got i32{{$}}
func.func @event_type() {
  ascend.record_event {event = 0 : i32, stream = 0 : i64}
  func.return
}

// -----

// CHECK: {{^}}property 'stream' expected in operation 'ascend.wait_event'{{$}}
func.func @missing_stream() {
  ascend.wait_event {event = 0 : i64}
  func.return
}
