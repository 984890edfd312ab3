// Ops with the wrong number of operands or results (generic form lets you
// write them), and values of the wrong type or kind where an op or a function
// signature expects another.

// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK: {{^}}Expected 1 operand, but got 2{{$}}
func.func @relu_two_operands(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = "ge.relu"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: {{^}}Expected 2 operands, but got 1{{$}}
func.func @add_one_operand(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = "ge.add"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: {{^}}Expected 1 result, but got 0{{$}}
func.func @relu_no_result(%x: tensor<4xf32>) -> tensor<4xf32> {
  "ge.relu"(%x) : (tensor<4xf32>) -> ()
  func.return %x : tensor<4xf32>
}

// -----

// CHECK: {{^}}Expected 1 result, but got 2{{$}}
func.func @relu_two_results(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y:2 = "ge.relu"(%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  func.return %y#0 : tensor<4xf32>
}

// -----

// CHECK: {{^}}Expected 5 operands, but got 4{{$}}
func.func @batch_norm_four_operands(%x: tensor<1x4x8x8xf32>, %p: tensor<4xf32>) -> tensor<1x4x8x8xf32> {
  %y = "ge.batch_norm"(%x, %p, %p, %p) <{epsilon = 1.0e-05 : f64}> : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}

// -----

// CHECK: {{^}}Expected operandSegmentSizes property in ge.conv2d operation.{{$}}
func.func @conv_without_segment_sizes(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = "ge.conv2d"(%x, %w) <{stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

// CHECK: {{^}}operand count (2) does not match with the total size (3) specified in attribute 'operandSegmentSizes'{{$}}
func.func @conv_segments_disagree(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = "ge.conv2d"(%x, %w) <{stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

// CHECK: {{^}}Expected 2 operands, but got 3{{$}}
func.func @matmul_three_operands(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %y = "ge.matmul"(%a, %b, %b) : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}

// -----

// CHECK: {{^}}Expected 0 operands, but got 1{{$}}
func.func @const_with_operand(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c = "ge.const"(%x) <{value = dense<1.0> : tensor<2xf32>}> : (tensor<2xf32>) -> tensor<2xf32>
  func.return %c : tensor<2xf32>
}

// -----

// CHECK: {{^}}expected 0 or 1 values for bias, but got 2{{$}}
func.func @linear_two_biases(%x: tensor<1x4xf32>, %w: tensor<2x4xf32>, %b: tensor<2xf32>) -> tensor<1x2xf32> {
  %y = "ge.linear"(%x, %w, %b, %b) <{operandSegmentSizes = array<i32: 1, 1, 2>}> : (tensor<1x4xf32>, tensor<2x4xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2xf32>
  func.return %y : tensor<1x2xf32>
}

// -----

// CHECK: {{^}}Expected arguments to have the same types as the function output types: expected [tensor<4xf32>, tensor<4xf32>], got [tensor<4xf32>]{{$}}
func.func @return_too_few(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  func.return %x : tensor<4xf32>
}

// -----

// CHECK: {{^}}Expected arguments to have the same types as the function output types: expected [tensor<4xf16>], got [tensor<4xf32>]{{$}}
func.func @return_wrong_type(%x: tensor<4xf32>) -> tensor<4xf16> {
  func.return %x : tensor<4xf32>
}

// -----

// CHECK: {{^}}tensor<*xf32> should be of base attribute tensor{{$}}
func.func @unranked_relu(%x: tensor<*xf32>) -> tensor<*xf32> {
  %y = ge.relu %x : tensor<*xf32>
  func.return %y : tensor<*xf32>
}

// -----

// CHECK: {{^}}ge.add: operand element type i32 differs from result element type f32{{$}}
func.func @add_int_and_float(%x: tensor<4xi32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %z = ge.add %x, %y : tensor<4xi32>, tensor<4xf32> -> tensor<4xf32>
  func.return %z : tensor<4xf32>
}

// -----

// CHECK: {{^}}operand 'weight' at position 1 does not verify:{{$}}
// CHECK-NEXT: {{^}}memref<4x3x3x3xf32> should be of base attribute tensor{{$}}
func.func @conv_memref_weight(%x: tensor<1x3x8x8xf32>, %w: memref<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = "ge.conv2d"(%x, %w) <{stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<1x3x8x8xf32>, memref<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

// CHECK: {{^}}Redefinition of symbol "symbol_redefined"{{$}}
func.func @symbol_redefined(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}
func.func @symbol_redefined(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}
