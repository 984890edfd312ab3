// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Verifier errors of the gather, scatter, scan, sort, pad, N-D conv and norm ops.

// An index must be an integer tensor.
// CHECK: {{^}}ge.gather_elements: index must have i32 or i64 elements, got f32{{$}}
func.func @gather_float_index(%x: tensor<2x8xf32>, %i: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = ge.gather_elements %x, %i {dim = 1 : i64} : tensor<2x8xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// -----

// One index tensor per indexed dim.
// CHECK: {{^}}ge.index: 1 index tensors for indexed dims [0, 1]{{$}}
func.func @index_count(%x: tensor<5x6xf32>, %i: tensor<2xi64>) -> tensor<2xf32> {
  %y = ge.index %x, %i {dims = array<i64: 0, 1>} : (tensor<5x6xf32>, tensor<2xi64>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}

// -----

// Index shapes must broadcast together.
// CHECK: {{^}}ge.index: shapes 2 and 3 do not broadcast{{$}}
func.func @index_broadcast(%x: tensor<5x6xf32>, %i: tensor<2xi64>, %j: tensor<3xi64>) -> tensor<2xf32> {
  %y = ge.index %x, %i, %j {dims = array<i64: 0, 1>} : (tensor<5x6xf32>, tensor<2xi64>, tensor<3xi64>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}

// -----

// CHECK: {{^}}ge.topk: k = 9 is out of range for dim -1 of size 8{{$}}
func.func @topk_k(%x: tensor<2x8xf32>) -> (tensor<2x9xf32>, tensor<2x9xi64>) {
  %v, %i = ge.topk %x {k = 9 : i64, dim = -1 : i64, largest = true, sorted = true} : tensor<2x8xf32> -> (tensor<2x9xf32>, tensor<2x9xi64>)
  func.return %v, %i : tensor<2x9xf32>, tensor<2x9xi64>
}

// -----

// CHECK: {{^}}ge.cumsum: dimension 2 is out of range for rank 2{{$}}
func.func @cumsum_dim(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %y = ge.cumsum %x {dim = 2 : i64} : tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

// CHECK: {{^}}ge.argmax: result must have i64 elements, got i32{{$}}
func.func @argmax_type(%x: tensor<2x8xf32>) -> tensor<2xi32> {
  %y = ge.argmax %x {dim = 1 : i64, keepdim = false} : tensor<2x8xf32> -> tensor<2xi32>
  func.return %y : tensor<2xi32>
}

// -----

// CHECK: {{^}}ge.pad: mode must be one of constant, reflect, replicate, circular, got 'mirror'{{$}}
func.func @pad_mode(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x10x10xf32> {
  %y = ge.pad %x {low = array<i64: 0, 0, 1, 1>, high = array<i64: 0, 0, 1, 1>, mode = "mirror", value = 0.0 : f64} : tensor<1x3x8x8xf32> -> tensor<1x3x10x10xf32>
  func.return %y : tensor<1x3x10x10xf32>
}

// -----

// Only constant padding crops.
// CHECK: {{^}}ge.pad: negative pads crop; modes 'constant' and 'replicate' take them{{$}}
func.func @pad_negative_reflect(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x6x8xf32> {
  %y = ge.pad %x {low = array<i64: 0, 0, -1, 0>, high = array<i64: 0, 0, -1, 0>, mode = "reflect", value = 0.0 : f64} : tensor<1x3x8x8xf32> -> tensor<1x3x6x8xf32>
  func.return %y : tensor<1x3x6x8xf32>
}

// -----

// CHECK: {{^}}ge.scatter_elements: reduce must be one of none, sum, prod, mean, amax, amin, got 'max'{{$}}
func.func @scatter_reduce(%x: tensor<4x8xf32>, %i: tensor<2x8xi64>, %s: tensor<2x8xf32>) -> tensor<4x8xf32> {
  %y = ge.scatter_elements %x, %i, %s {dim = 0 : i64, reduce = "max", include_self = true} : (tensor<4x8xf32>, tensor<2x8xi64>, tensor<2x8xf32>) -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}

// -----

// CHECK: {{^}}ge.conv1d: the weight must be 3-D, got 6x4x3x3{{$}}
func.func @conv1d_rank(%x: tensor<1x4x10xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x8xf32> {
  %y = ge.conv1d %x, %w {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>, groups = 1 : i64} : tensor<1x4x10xf32>, tensor<6x4x3x3xf32> -> tensor<1x6x8xf32>
  func.return %y : tensor<1x6x8xf32>
}

// -----

// CHECK: {{^}}ge.group_norm: 6 channels do not split into 4 groups{{$}}
func.func @group_norm_groups(%x: tensor<2x6x5x5xf32>) -> tensor<2x6x5x5xf32> {
  %y = ge.group_norm %x {num_groups = 4 : i64, epsilon = 1.0e-05 : f64} : tensor<2x6x5x5xf32> -> tensor<2x6x5x5xf32>
  func.return %y : tensor<2x6x5x5xf32>
}

// -----

// CHECK: {{^}}ge.isnan: result must have i1 elements, got f32{{$}}
func.func @isnan_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.isnan %x : tensor<4xf32> -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: {{^}}ge.index_put: shapes 2x6 and 3x6 do not broadcast{{$}}
func.func @index_put_values(%x: tensor<5x6xf32>, %v: tensor<3x6xf32>, %i: tensor<2xi64>) -> tensor<5x6xf32> {
  %y = ge.index_put %x, %v, %i {dims = array<i64: 0>, accumulate = false} : (tensor<5x6xf32>, tensor<3x6xf32>, tensor<2xi64>) -> tensor<5x6xf32>
  func.return %y : tensor<5x6xf32>
}
