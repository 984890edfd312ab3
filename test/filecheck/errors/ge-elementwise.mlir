// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Trailing dims 3 and 4 differ; the message shows the rank-aligned shapes.
// CHECK: {{^}}ge.add: shapes 4x3 and 1x4 do not broadcast{{$}}
func.func @add_no_broadcast(%x: tensor<4x3xf32>, %y: tensor<4xf32>) -> tensor<4x3xf32> {
  %z = ge.add %x, %y : tensor<4x3xf32>, tensor<4xf32> -> tensor<4x3xf32>
  func.return %z : tensor<4x3xf32>
}

// -----

// CHECK: {{^}}ge.add: result shape 8x8 does not match the inferred shape 4x8{{$}}
func.func @add_result_shape(%x: tensor<4x8xf32>, %y: tensor<8xf32>) -> tensor<8x8xf32> {
  %z = ge.add %x, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<8x8xf32>
  func.return %z : tensor<8x8xf32>
}

// -----

// Same element count, wrong rank.
// CHECK: {{^}}ge.add: result shape 32 does not match the inferred shape 4x8{{$}}
func.func @add_result_rank(%x: tensor<4x8xf32>, %y: tensor<8xf32>) -> tensor<32xf32> {
  %z = ge.add %x, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<32xf32>
  func.return %z : tensor<32xf32>
}

// -----

// CHECK: {{^}}ge.mul: operand element type f16 differs from result element type f32{{$}}
func.func @mul_element_type(%x: tensor<4xf32>, %y: tensor<4xf16>) -> tensor<4xf32> {
  %z = ge.mul %x, %y : tensor<4xf32>, tensor<4xf16> -> tensor<4xf32>
  func.return %z : tensor<4xf32>
}

// -----

// A dynamic dim broadcast against 3 can only give 3.
// CHECK: {{^}}ge.mul: result shape 5x4 does not match the inferred shape 3x4{{$}}
func.func @mul_dynamic_conflict(%x: tensor<?x4xf32>, %y: tensor<3x1xf32>) -> tensor<5x4xf32> {
  %z = ge.mul %x, %y : tensor<?x4xf32>, tensor<3x1xf32> -> tensor<5x4xf32>
  func.return %z : tensor<5x4xf32>
}

// -----

// Unary ops tie the result type to the input type (only expressible in generic form).
// CHECK: {{^}}result 'output' at position 0 does not verify:{{$}}
// CHECK-NEXT: {{^}}attribute tensor<4xf32> expected from variable 'T', but got tensor<5xf32>{{$}}
func.func @relu_result_type(%x: tensor<4xf32>) -> tensor<5xf32> {
  %y = "ge.relu"(%x) : (tensor<4xf32>) -> tensor<5xf32>
  func.return %y : tensor<5xf32>
}

// -----

// GE ops take tensors only; memrefs belong to ascend tasks.
// CHECK: {{^}}operand 'lhs' at position 0 does not verify:{{$}}
// CHECK-NEXT: {{^}}memref<4xf32> should be of base attribute tensor{{$}}
func.func @add_memref(%x: memref<4xf32>) -> memref<4xf32> {
  %z = "ge.add"(%x, %x) : (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
  func.return %z : memref<4xf32>
}
