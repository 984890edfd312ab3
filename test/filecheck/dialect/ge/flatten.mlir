// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP

// The classifier-head default: keep the batch, merge the rest.
// CHECK-LABEL: func.func @flatten_head(
// CHECK-NEXT:    %y = ge.flatten %x {start_dim = 1 : i64, end_dim = -1 : i64} : tensor<1x512x1x1xf32> -> tensor<1x512xf32>
func.func @flatten_head(%x: tensor<1x512x1x1xf32>) -> tensor<1x512xf32> {
  %y = ge.flatten %x {start_dim = 1 : i64, end_dim = -1 : i64} : tensor<1x512x1x1xf32> -> tensor<1x512xf32>
  func.return %y : tensor<1x512xf32>
}

// CHECK-LABEL: func.func @flatten_all(
// CHECK-NEXT:    %y = ge.flatten %x {start_dim = 0 : i64, end_dim = -1 : i64} : tensor<2x3x4xf32> -> tensor<24xf32>
func.func @flatten_all(%x: tensor<2x3x4xf32>) -> tensor<24xf32> {
  %y = ge.flatten %x {start_dim = 0 : i64, end_dim = -1 : i64} : tensor<2x3x4xf32> -> tensor<24xf32>
  func.return %y : tensor<24xf32>
}

// A middle range with a negative end: dims 1..2 of 2x3x4x5.
// CHECK-LABEL: func.func @flatten_middle(
// CHECK-NEXT:    %y = ge.flatten %x {start_dim = 1 : i64, end_dim = -2 : i64} : tensor<2x3x4x5xf32> -> tensor<2x12x5xf32>
func.func @flatten_middle(%x: tensor<2x3x4x5xf32>) -> tensor<2x12x5xf32> {
  %y = ge.flatten %x {start_dim = 1 : i64, end_dim = -2 : i64} : tensor<2x3x4x5xf32> -> tensor<2x12x5xf32>
  func.return %y : tensor<2x12x5xf32>
}

// A dynamic dim inside the merged range makes the merged dim dynamic.
// CHECK-LABEL: func.func @flatten_dynamic(
// CHECK-NEXT:    %y = ge.flatten %x {start_dim = 1 : i64, end_dim = -1 : i64} : tensor<?x3x4xf32> -> tensor<?x12xf32>
// CHECK-NEXT:    %z = ge.flatten %h {start_dim = 1 : i64, end_dim = -1 : i64} : tensor<2x?x4xf32> -> tensor<2x?xf32>
func.func @flatten_dynamic(%x: tensor<?x3x4xf32>, %h: tensor<2x?x4xf32>) -> (tensor<?x12xf32>, tensor<2x?xf32>) {
  %y = ge.flatten %x {start_dim = 1 : i64, end_dim = -1 : i64} : tensor<?x3x4xf32> -> tensor<?x12xf32>
  %z = ge.flatten %h {start_dim = 1 : i64, end_dim = -1 : i64} : tensor<2x?x4xf32> -> tensor<2x?xf32>
  func.return %y, %z : tensor<?x12xf32>, tensor<2x?xf32>
}
