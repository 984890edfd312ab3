// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP

// Sizes known only at run time: ge.dim reads one, and reshape, expand, slice and
// arange take them as 0-d integer operands (a transformer with a dynamic
// sequence length needs all four).
// CHECK-LABEL: func.func @runtime_sizes(
// CHECK-NEXT:    %b = ge.dim %ids {dim = 0 : i64} : tensor<?x?xi64> -> tensor<i64>
// CHECK-NEXT:    %t = ge.dim %ids {dim = -1 : i64} : tensor<?x?xi64> -> tensor<i64>
// CHECK-NEXT:    %heads = ge.reshape %h sizes(%b, %t : tensor<i64>, tensor<i64>) : tensor<?x32xf32> -> tensor<?x?x4x8xf32>
// CHECK-NEXT:    %mask = ge.expand %one sizes(%t, %t : tensor<i64>, tensor<i64>) : tensor<f32> -> tensor<?x?xf32>
// CHECK-NEXT:    %p = ge.slice %pos end(%t : tensor<i64>) {dim = 0 : i64, start = 0 : i64, end = 9223372036854775807 : i64, step = 1 : i64} : tensor<32x8xf32> -> tensor<?x8xf32>
// CHECK-NEXT:    %r = ge.arange %t {start = 0 : i64, step = 1 : i64} : tensor<i64> -> tensor<?xi64>
// CHECK-NEXT:    func.return %heads, %mask, %p, %r : tensor<?x?x4x8xf32>, tensor<?x?xf32>, tensor<?x8xf32>, tensor<?xi64>
func.func @runtime_sizes(%ids: tensor<?x?xi64>, %h: tensor<?x32xf32>, %pos: tensor<32x8xf32>, %one: tensor<f32>) -> (tensor<?x?x4x8xf32>, tensor<?x?xf32>, tensor<?x8xf32>, tensor<?xi64>) {
  %b = ge.dim %ids {dim = 0 : i64} : tensor<?x?xi64> -> tensor<i64>
  %t = ge.dim %ids {dim = -1 : i64} : tensor<?x?xi64> -> tensor<i64>
  %heads = ge.reshape %h sizes(%b, %t : tensor<i64>, tensor<i64>) : tensor<?x32xf32> -> tensor<?x?x4x8xf32>
  %mask = ge.expand %one sizes(%t, %t : tensor<i64>, tensor<i64>) : tensor<f32> -> tensor<?x?xf32>
  %p = ge.slice %pos end(%t : tensor<i64>) {dim = 0 : i64, start = 0 : i64, end = 9223372036854775807 : i64, step = 1 : i64} : tensor<32x8xf32> -> tensor<?x8xf32>
  %r = ge.arange %t {start = 0 : i64, step = 1 : i64} : tensor<i64> -> tensor<?xi64>
  func.return %heads, %mask, %p, %r : tensor<?x?x4x8xf32>, tensor<?x?xf32>, tensor<?x8xf32>, tensor<?xi64>
}

// Without size operands a single `?` still follows from the input.
// CHECK-LABEL: func.func @inferred_sizes(
// CHECK-NEXT:    %y = ge.reshape %h : tensor<?x32xf32> -> tensor<?x4x8xf32>
// CHECK-NEXT:    %z = ge.expand %m : tensor<?x1xf32> -> tensor<?x5xf32>
// CHECK-NEXT:    func.return %y, %z : tensor<?x4x8xf32>, tensor<?x5xf32>
func.func @inferred_sizes(%h: tensor<?x32xf32>, %m: tensor<?x1xf32>) -> (tensor<?x4x8xf32>, tensor<?x5xf32>) {
  %y = ge.reshape %h : tensor<?x32xf32> -> tensor<?x4x8xf32>
  %z = ge.expand %m : tensor<?x1xf32> -> tensor<?x5xf32>
  func.return %y, %z : tensor<?x4x8xf32>, tensor<?x5xf32>
}

// A run-time start too (OPT's `position_ids[:, past_seen_tokens:]`): both bounds
// are 0-d integer operands, and the sliced dim becomes `?`.
// CHECK-LABEL: func.func @dynamic_slice(
// CHECK-NEXT:    %past = ge.dim %cache {dim = 2 : i64} : tensor<1x2x?x8xf32> -> tensor<i64>
// CHECK-NEXT:    %p = ge.dynamic_slice %pos[%past, %end] {dim = 1 : i64, step = 1 : i64} : tensor<1x?xi64>, tensor<i64>, tensor<i64> -> tensor<1x?xi64>
// CHECK-NEXT:    func.return %p : tensor<1x?xi64>
func.func @dynamic_slice(%pos: tensor<1x?xi64>, %cache: tensor<1x2x?x8xf32>, %end: tensor<i64>) -> tensor<1x?xi64> {
  %past = ge.dim %cache {dim = 2 : i64} : tensor<1x2x?x8xf32> -> tensor<i64>
  %p = ge.dynamic_slice %pos[%past, %end] {dim = 1 : i64, step = 1 : i64} : tensor<1x?xi64>, tensor<i64>, tensor<i64> -> tensor<1x?xi64>
  func.return %p : tensor<1x?xi64>
}
