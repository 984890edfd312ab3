// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// The result type is the value's type (only expressible in generic form).
// CHECK: {{^}}attribute tensor<3xf32> expected from variable 'T', but got tensor<2xf32>{{$}}
func.func @result_type() -> tensor<3xf32> {
  %c = "ge.const"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<3xf32>
  func.return %c : tensor<3xf32>
}

// -----

// CHECK: {{^}}1.000000e+00 : f32 should be of base attribute dense{{$}}
func.func @not_dense() -> tensor<2xf32> {
  %c = "ge.const"() <{value = 1.0 : f32}> : () -> tensor<2xf32>
  func.return %c : tensor<2xf32>
}

// -----

// CHECK: {{^}}property 'value' expected in operation 'ge.const'{{$}}
func.func @missing_value() -> tensor<2xf32> {
  %c = "ge.const"() : () -> tensor<2xf32>
  func.return %c : tensor<2xf32>
}
