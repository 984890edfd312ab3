// Malformed IR that the parser rejects, each with its diagnostic at its
// line and column (an unknown op at its name). (parse-unknown-op.mlir and parse-bad-syntax.mlir have more.)

// RUN: ge-opt %s --split-input-file --parsing-diagnostics | filecheck %s

// CHECK: {{^}}{{.*}}parse-malformed.mlir:[[# @LINE + 3]]:8{{$}}
// CHECK: {{^ *}}Operation foo.bar is not registered{{$}}
func.func @unknown_dialect(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = foo.bar %x : tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// The generic form does not get around registration.
// CHECK: {{^}}{{.*}}parse-malformed.mlir:[[# @LINE + 3]]:8{{$}}
// CHECK: {{^ *}}Operation ge.no_such_op is not registered{{$}}
func.func @unknown_generic_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = "ge.no_such_op"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: {{^}}{{.*}}parse-malformed.mlir:[[# @LINE + 3]]:3{{$}}
// CHECK: {{^ *}}Operation ascend.launch is not registered{{$}}
func.func @unknown_ascend_op() {
  ascend.launch {stream = 0 : i64}
  func.return
}

// -----

// CHECK: {{^}}{{.*}}parse-malformed.mlir:[[# @LINE + 2]]:39{{$}}
// CHECK: {{^ *}}'ge.tensor' is not registered{{$}}
func.func @unknown_type(%x: !ge.tensor<4>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}

// -----

// CHECK: {{^}}{{.*}}parse-malformed.mlir:[[# @LINE + 3]]:3{{$}}
// CHECK: {{^ *}}Operation has 1 results, but was given 2 to bind.{{$}}
func.func @too_many_names(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a, %b = ge.relu %x : tensor<4xf32>
  func.return %a : tensor<4xf32>
}

// -----

// The type is part of ge.relu's syntax; the parser notices at the next line.
// CHECK: {{^}}{{.*}}parse-malformed.mlir:[[# @LINE + 4]]:3{{$}}
// CHECK: {{^ *}}Expected ':'{{$}}
func.func @missing_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.relu %x
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: {{^}}{{.*}}parse-malformed.mlir:[[# @LINE + 3]]:16{{$}}
// CHECK: {{^ *}}operand is used with type tensor<8xf32>, but has been previously used or defined with type tensor<4xf32>{{$}}
func.func @type_differs_from_definition(%x: tensor<4xf32>) -> tensor<8xf32> {
  %y = ge.relu %x : tensor<8xf32>
  func.return %y : tensor<8xf32>
}

// -----

// CHECK: {{^ *}}values used but not defined: [%nope]{{$}}
func.func @undefined_in_fused_body(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.fused "k" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %r = ge.relu %nope : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  }
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: {{^}}{{.*}}parse-malformed.mlir:[[# @LINE + 3]]:128{{$}}
// CHECK: {{^ *}}Floating point value is not valid for integer type.{{$}}
func.func @float_groups(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1.5 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

// CHECK: {{^}}{{.*}}parse-malformed.mlir:[[# @LINE + 3]]:35{{$}}
// CHECK: {{^ *}}Unexpected character: ${{$}}
func.func @stray_character(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.relu %x : tensor<4xf32> $
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: {{^ *}}Shape mismatch in dense literal. Expected [4] shape from the type, but got [2] shape.{{$}}
func.func @dense_wrong_count() -> tensor<4xf32> {
  %a = ge.const dense<[1.0, 2.0]> : tensor<4xf32>
  func.return %a : tensor<4xf32>
}

// -----

// Five bytes are not two f32s.
// CHECK: {{^ *}}Shape mismatch in dense literal. Expected 2 elements from the type, but got 1 elements.{{$}}
func.func @hex_wrong_size() -> tensor<2xf32> {
  %a = ge.const dense<"0x0000803F00"> : tensor<2xf32>
  func.return %a : tensor<2xf32>
}
