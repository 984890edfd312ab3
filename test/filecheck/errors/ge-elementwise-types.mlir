// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK: {{^}}ge.compare: predicate must be one of eq, ne, lt, le, gt, ge, got 'less'{{$}}
func.func @compare_predicate(%x: tensor<4xf32>) -> tensor<4xi1> {
  %y = ge.compare %x, %x {predicate = "less"} : tensor<4xf32>, tensor<4xf32> -> tensor<4xi1>
  func.return %y : tensor<4xi1>
}

// -----

// CHECK: {{^}}ge.compare: result must have i1 elements, got f32{{$}}
func.func @compare_result_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.compare %x, %x {predicate = "lt"} : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: {{^}}ge.compare: operands have different element types f32 and i64{{$}}
func.func @compare_mixed(%x: tensor<4xf32>, %i: tensor<4xi64>) -> tensor<4xi1> {
  %y = ge.compare %x, %i {predicate = "lt"} : tensor<4xf32>, tensor<4xi64> -> tensor<4xi1>
  func.return %y : tensor<4xi1>
}

// -----

// CHECK: {{^}}ge.where: condition must have i1 elements, got f32{{$}}
func.func @where_condition(%c: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.where %c, %x, %x : tensor<4xf32>, tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: {{^}}ge.where: shapes 3 and 4 do not broadcast{{$}}
func.func @where_broadcast(%c: tensor<3xi1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.where %c, %x, %x : tensor<3xi1>, tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: {{^}}ge.logical_and: result must have i1 elements, got f32{{$}}
func.func @logical_and_float(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.logical_and %x, %x : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: {{^}}ge.logical_not: input must have i1 elements, got f32{{$}}
func.func @logical_not_float(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.logical_not %x : tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: {{^}}ge.gelu: approximate must be one of none, tanh, got 'fast'{{$}}
func.func @gelu_mode(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.gelu %x {approximate = "fast"} : tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: {{^}}ge.clamp: min 6.0 is greater than max 0.0{{$}}
func.func @clamp_order(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.clamp %x {min = 6.0 : f64, max = 0.0 : f64} : tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: {{^}}ge.clamp: at least one of min and max must be given{{$}}
func.func @clamp_no_bounds(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.clamp %x : tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: {{^}}ge.cast: result shape 5 does not match the inferred shape 4{{$}}
func.func @cast_shape(%x: tensor<4xi64>) -> tensor<5xf32> {
  %y = ge.cast %x : tensor<4xi64> -> tensor<5xf32>
  func.return %y : tensor<5xf32>
}

// -----

// CHECK: {{^}}ge.reduce_any: input must have i1 elements, got f32{{$}}
func.func @reduce_any_float(%x: tensor<4xf32>) -> tensor<f32> {
  %y = ge.reduce_any %x {dims = array<i64>, keepdim = false} : tensor<4xf32> -> tensor<f32>
  func.return %y : tensor<f32>
}

// -----

// CHECK: {{^}}ge.reduce_sum: dims {{\[}}0, -2{{\]}} name a dimension twice{{$}}
func.func @reduce_duplicate_dims(%x: tensor<4x4xf32>) -> tensor<f32> {
  %y = ge.reduce_sum %x {dims = array<i64: 0, -2>, keepdim = false} : tensor<4x4xf32> -> tensor<f32>
  func.return %y : tensor<f32>
}

// -----

// CHECK: {{^}}ge.reduce_sum: result shape 4 does not match the inferred shape 4x1{{$}}
func.func @reduce_result(%x: tensor<4x4xf32>) -> tensor<4xf32> {
  %y = ge.reduce_sum %x {dims = array<i64: 1>, keepdim = true} : tensor<4x4xf32> -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
