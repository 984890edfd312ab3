// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK: {{^}}ge.linear: result shape 1x512 does not match the inferred shape 1x10{{$}}
func.func @result_shape(%x: tensor<1x512xf32>, %w: tensor<10x512xf32>) -> tensor<1x512xf32> {
  %y = ge.linear %x, %w : tensor<1x512xf32>, tensor<10x512xf32> -> tensor<1x512xf32>
  func.return %y : tensor<1x512xf32>
}

// -----

// CHECK: {{^}}ge.linear: input features 256 do not match weight in_features 512{{$}}
func.func @in_features(%x: tensor<1x256xf32>, %w: tensor<10x512xf32>) -> tensor<1x10xf32> {
  %y = ge.linear %x, %w : tensor<1x256xf32>, tensor<10x512xf32> -> tensor<1x10xf32>
  func.return %y : tensor<1x10xf32>
}

// -----

// The weight is [out, in], not [in, out].
// CHECK: {{^}}ge.linear: input features 512 do not match weight in_features 10{{$}}
func.func @transposed_weight(%x: tensor<1x512xf32>, %w: tensor<512x10xf32>) -> tensor<1x10xf32> {
  %y = ge.linear %x, %w : tensor<1x512xf32>, tensor<512x10xf32> -> tensor<1x10xf32>
  func.return %y : tensor<1x10xf32>
}

// -----

// CHECK: {{^}}ge.linear: bias must have shape 10, got 512{{$}}
func.func @bias_shape(%x: tensor<1x512xf32>, %w: tensor<10x512xf32>, %b: tensor<512xf32>) -> tensor<1x10xf32> {
  %y = ge.linear %x, %w, %b : tensor<1x512xf32>, tensor<10x512xf32>, tensor<512xf32> -> tensor<1x10xf32>
  func.return %y : tensor<1x10xf32>
}

// -----

// CHECK: {{^}}ge.linear: linear weight must be 2-D [out, in], got 512{{$}}
func.func @weight_rank(%x: tensor<1x512xf32>, %w: tensor<512xf32>) -> tensor<1xf32> {
  %y = ge.linear %x, %w : tensor<1x512xf32>, tensor<512xf32> -> tensor<1xf32>
  func.return %y : tensor<1xf32>
}

// -----

// CHECK: {{^}}ge.linear: operand element type f16 differs from result element type f32{{$}}
func.func @element_type(%x: tensor<1x512xf16>, %w: tensor<10x512xf16>) -> tensor<1x10xf32> {
  %y = ge.linear %x, %w : tensor<1x512xf16>, tensor<10x512xf16> -> tensor<1x10xf32>
  func.return %y : tensor<1x10xf32>
}
