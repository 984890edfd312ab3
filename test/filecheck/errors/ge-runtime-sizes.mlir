// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK: {{^}}ge.reshape: 1 sizes given for 2 dynamic result dims{{$}}
func.func @reshape_size_count(%h: tensor<?x32xf32>, %t: tensor<i64>) -> tensor<?x?x8xf32> {
  %y = ge.reshape %h sizes(%t : tensor<i64>) : tensor<?x32xf32> -> tensor<?x?x8xf32>
  func.return %y : tensor<?x?x8xf32>
}

// -----

// CHECK: {{^}}ge.expand: each size must be a 0-d integer tensor, got tensor<f32>{{$}}
func.func @expand_float_size(%x: tensor<f32>, %t: tensor<f32>) -> tensor<?xf32> {
  %y = ge.expand %x sizes(%t : tensor<f32>) : tensor<f32> -> tensor<?xf32>
  func.return %y : tensor<?xf32>
}

// -----

// CHECK: {{^}}ge.slice: end must be a 0-d integer tensor, got tensor<2xi64>{{$}}
func.func @slice_end_shape(%x: tensor<8xf32>, %t: tensor<2xi64>) -> tensor<?xf32> {
  %y = ge.slice %x end(%t : tensor<2xi64>) {dim = 0 : i64, start = 0 : i64, end = 8 : i64, step = 1 : i64} : tensor<8xf32> -> tensor<?xf32>
  func.return %y : tensor<?xf32>
}

// -----

// CHECK: {{^}}ge.dim: dimension 2 is out of range for rank 2{{$}}
func.func @dim_range(%x: tensor<?x8xf32>) -> tensor<i64> {
  %y = ge.dim %x {dim = 2 : i64} : tensor<?x8xf32> -> tensor<i64>
  func.return %y : tensor<i64>
}

// -----

// CHECK: {{^}}ge.arange: step must be >= 1, got 0{{$}}
func.func @arange_step(%t: tensor<i64>) -> tensor<?xi64> {
  %y = ge.arange %t {start = 0 : i64, step = 0 : i64} : tensor<i64> -> tensor<?xi64>
  func.return %y : tensor<?xi64>
}

// -----

// CHECK: {{^}}ge.dynamic_slice: start must be a 0-d integer tensor, got tensor<f32>{{$}}
func.func @dynamic_slice_float_start(%x: tensor<1x?xi64>, %s: tensor<f32>, %e: tensor<i64>) -> tensor<1x?xi64> {
  %y = ge.dynamic_slice %x[%s, %e] {dim = 1 : i64, step = 1 : i64} : tensor<1x?xi64>, tensor<f32>, tensor<i64> -> tensor<1x?xi64>
  func.return %y : tensor<1x?xi64>
}

// -----

// CHECK: {{^}}ge.dynamic_slice: step must be >= 1, got 0{{$}}
func.func @dynamic_slice_step(%x: tensor<8xf32>, %s: tensor<i64>, %e: tensor<i64>) -> tensor<?xf32> {
  %y = ge.dynamic_slice %x[%s, %e] {dim = 0 : i64, step = 0 : i64} : tensor<8xf32>, tensor<i64>, tensor<i64> -> tensor<?xf32>
  func.return %y : tensor<?xf32>
}
