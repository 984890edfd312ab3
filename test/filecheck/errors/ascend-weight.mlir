// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK: {{^}}ascend.weight: result memref<64x3x3xf32> does not hold tensor<64x3x3x3xf32>{{$}}
func.func @shape_mismatch() {
  %w = ascend.weight dense<5.0e-01> : tensor<64x3x3x3xf32> -> memref<64x3x3xf32>
  func.return
}

// -----

// CHECK: {{^}}ascend.weight: result memref<4xf16> does not hold tensor<4xf32>{{$}}
func.func @element_type_mismatch() {
  %w = ascend.weight dense<1.0> : tensor<4xf32> -> memref<4xf16>
  func.return
}

// -----

// CHECK: {{^}}result 'output' at position 0 does not verify:{{$}}
// CHECK-NEXT: {{^}}tensor<4xf32> should be of base attribute memref{{$}}
func.func @tensor_result() {
  %w = "ascend.weight"() <{value = dense<1.0> : tensor<4xf32>}> : () -> tensor<4xf32>
  func.return
}
