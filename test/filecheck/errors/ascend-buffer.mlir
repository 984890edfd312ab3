// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// 1x4x6x6 f32 is 576 bytes: the second buffer ends at 1152 > 1024.
// CHECK: {{^}}ascend.buffer: bytes [576, 1152) exceed the arena of 1024 bytes{{$}}
func.func @exceeds_arena() attributes {ascend.arena_size = 1024 : i64} {
  %b0 = ascend.buffer {offset = 0 : i64} : memref<1x4x6x6xf32>
  %b1 = ascend.buffer {offset = 576 : i64} : memref<1x4x6x6xf32>
  func.return
}

// -----

// Checked even without ascend.arena_size.
// CHECK: {{^}}ascend.buffer: offset -16 is negative{{$}}
func.func @negative_offset() {
  %b = ascend.buffer {offset = -16 : i64} : memref<4xf32>
  func.return
}

// -----

// CHECK: {{^}}ascend.buffer: buffers must have a static shape{{$}}
func.func @dynamic_shape() attributes {ascend.arena_size = 1024 : i64} {
  %b = ascend.buffer {offset = 0 : i64} : memref<?x4xf32>
  func.return
}

// -----

// Sizes use the element width: 2x8 f16 is 32 bytes, so offset 2 overruns by 2.
// CHECK: {{^}}ascend.buffer: bytes [2, 34) exceed the arena of 32 bytes{{$}}
func.func @f16_size() attributes {ascend.arena_size = 32 : i64} {
  %b = ascend.buffer {offset = 2 : i64} : memref<2x8xf16>
  func.return
}

// -----

// CHECK: {{^}}result 'output' at position 0 does not verify:{{$}}
// CHECK-NEXT: {{^}}tensor<4xf32> should be of base attribute memref{{$}}
func.func @tensor_result() {
  %b = "ascend.buffer"() <{offset = 0 : i64}> : () -> tensor<4xf32>
  func.return
}

// -----

// CHECK: {{^}}Expected attribute i64 but got i32{{$}}
func.func @offset_type() {
  %b = ascend.buffer {offset = 0 : i32} : memref<4xf32>
  func.return
}

// -----

// CHECK: {{^}}ascend.dyn_buffer: the shape is static; use ascend.buffer with an offset in the static arena{{$}}
func.func @static_dyn_buffer() -> memref<4xf32> {
  %b = ascend.dyn_buffer : memref<4xf32>
  func.return %b : memref<4xf32>
}
