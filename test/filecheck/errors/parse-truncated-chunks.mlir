// Files that end too early, cut at every kind of place. With
// --split-input-file each chunk is a file of its own that stops where the
// next separator starts, so the error is reported there, at the end of input.

// RUN: ge-opt %s --split-input-file --parsing-diagnostics | filecheck %s

// CHECK: {{^}}{{.*}}parse-truncated-chunks.mlir:[[# @LINE + 4]]:1{{$}}
// CHECK: {{^ *}}type expected{{$}}
func.func @in_result_types(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.add %x, %x : tensor<4xf32>, tensor<4xf32> ->
// -----

// CHECK: {{^}}{{.*}}parse-truncated-chunks.mlir:[[# @LINE + 3]]:1{{$}}
// CHECK: {{^ *}}Expected 'x' in shape delimiter, got EOF{{$}}
func.func @in_tensor_type(%x: tensor<4x
// -----

// CHECK: {{^}}{{.*}}parse-truncated-chunks.mlir:[[# @LINE + 4]]:1{{$}}
// CHECK: {{^ *}}Expected integer literal{{$}}
func.func @in_properties(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = ge.conv2d %x, %w {stride = array<i64: 1,
// -----

// CHECK: {{^}}{{.*}}parse-truncated-chunks.mlir:[[# @LINE + 4]]:1{{$}}
// CHECK: {{^ *}}']' expected{{$}}
func.func @in_dense_list() -> tensor<4xf32> {
  %c = ge.const dense<[1.0, 2.0
// -----

// CHECK: {{^}}{{.*}}parse-truncated-chunks.mlir:[[# @LINE + 3]]:23{{$}}
// CHECK: {{^ *}}End of file reached before closing string literal.{{$}}
func.func @in_hex_dense() -> tensor<2xf32> {
  %c = ge.const dense<"0x0000803F
// -----

// CHECK: {{^}}{{.*}}parse-truncated-chunks.mlir:[[# @LINE + 3]]:17{{$}}
// CHECK: {{^ *}}End of file reached before closing string literal.{{$}}
func.func @in_fusion_kind(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.fused "conv2d_re
// -----

// xDSL's message for a block cut off before its closing brace has no head.
// CHECK: {{^}}{{.*}}parse-truncated-chunks.mlir:[[# @LINE + 6]]:1{{$}}
// CHECK: {{^ *}}in block definition{{$}}
func.func @in_region(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.fused "k" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    ge.yield %a : tensor<4xf32>
// -----

// CHECK: {{^}}{{.*}}parse-truncated-chunks.mlir:[[# @LINE + 3]]:1{{$}}
// CHECK: {{^ *}}Expected argument or type{{$}}
func.func @in_signature(%x: tensor<4xf32>,
// -----

// CHECK: {{^}}{{.*}}parse-truncated-chunks.mlir:[[# @LINE + 4]]:1{{$}}
// CHECK: {{^ *}}Expected ':'{{$}}
func.func @after_operand(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.relu %x
// -----

// CHECK: {{^}}{{.*}}parse-truncated-chunks.mlir:[[# @LINE + 4]]:1{{$}}
// CHECK: {{^ *}}Expected ':'{{$}}
func.func @in_task_outs(%x: memref<4xf32>, %o: memref<4xf32>) {
  ascend.task "t" {unit = "vector", stream = 0 : i64} ins(%x : memref<4xf32>) outs(
