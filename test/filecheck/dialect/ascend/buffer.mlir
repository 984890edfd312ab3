// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP

// Two 576-byte buffers fill a 1152-byte arena exactly (1x4x6x6 f32 = 576 bytes).
// CHECK-LABEL: func.func @buffers_fill_arena()
// CHECK-SAME:      attributes {ascend.arena_size = 1152 : i64}
// CHECK-NEXT:    %b0 = ascend.buffer {offset = 0 : i64} : memref<1x4x6x6xf32>
// CHECK-NEXT:    %b1 = ascend.buffer {offset = 576 : i64} : memref<1x4x6x6xf32>
func.func @buffers_fill_arena() attributes {ascend.arena_size = 1152 : i64} {
  %b0 = ascend.buffer {offset = 0 : i64} : memref<1x4x6x6xf32>
  %b1 = ascend.buffer {offset = 576 : i64} : memref<1x4x6x6xf32>
  func.return
}

// Views may overlap: reusing bytes is the memory planner's business.
// Sizes follow the element type: 2x8 f16 is 32 bytes, 16 i8 is 16 bytes.
// CHECK-LABEL: func.func @buffers_overlap_and_types()
// CHECK-SAME:      attributes {ascend.arena_size = 64 : i64}
// CHECK-NEXT:    %a = ascend.buffer {offset = 32 : i64} : memref<2x8xf16>
// CHECK-NEXT:    %b = ascend.buffer {offset = 32 : i64} : memref<8x4xi8>
// CHECK-NEXT:    %c = ascend.buffer {offset = 48 : i64} : memref<16xi8>
func.func @buffers_overlap_and_types() attributes {ascend.arena_size = 64 : i64} {
  %a = ascend.buffer {offset = 32 : i64} : memref<2x8xf16>
  %b = ascend.buffer {offset = 32 : i64} : memref<8x4xi8>
  %c = ascend.buffer {offset = 48 : i64} : memref<16xi8>
  func.return
}

// Without ascend.arena_size there is no bound to check the offset against.
// CHECK-LABEL: func.func @buffer_unbounded()
// CHECK-NEXT:    %b = ascend.buffer {offset = 1048576 : i64} : memref<1x64x56x56xf32>
// CHECK-NEXT:    func.return %b : memref<1x64x56x56xf32>
func.func @buffer_unbounded() -> memref<1x64x56x56xf32> {
  %b = ascend.buffer {offset = 1048576 : i64} : memref<1x64x56x56xf32>
  func.return %b : memref<1x64x56x56xf32>
}
