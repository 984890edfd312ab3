// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP

// CHECK-LABEL: func.func @reshape(
// CHECK-NEXT:    %a = ge.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
// CHECK-NEXT:    %b = ge.reshape %x : tensor<2x3x4xf32> -> tensor<24xf32>
// CHECK-NEXT:    %c = ge.reshape %b : tensor<24xf32> -> tensor<1x2x3x4xf32>
func.func @reshape(%x: tensor<2x3x4xf32>) -> tensor<1x2x3x4xf32> {
  %a = ge.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %b = ge.reshape %x : tensor<2x3x4xf32> -> tensor<24xf32>
  %c = ge.reshape %b : tensor<24xf32> -> tensor<1x2x3x4xf32>
  func.return %c : tensor<1x2x3x4xf32>
}

// To and from rank 0.
// CHECK-LABEL: func.func @reshape_scalar(
// CHECK-NEXT:    %s = ge.reshape %x : tensor<1x1xf32> -> tensor<f32>
// CHECK-NEXT:    %y = ge.reshape %s : tensor<f32> -> tensor<1xf32>
func.func @reshape_scalar(%x: tensor<1x1xf32>) -> tensor<1xf32> {
  %s = ge.reshape %x : tensor<1x1xf32> -> tensor<f32>
  %y = ge.reshape %s : tensor<f32> -> tensor<1xf32>
  func.return %y : tensor<1xf32>
}

// Element counts are only compared when both are static.
// CHECK-LABEL: func.func @reshape_dynamic(
// CHECK-NEXT:    %y = ge.reshape %x : tensor<?x4xf32> -> tensor<?xf32>
// CHECK-NEXT:    %z = ge.reshape %y : tensor<?xf32> -> tensor<2x8xf32>
func.func @reshape_dynamic(%x: tensor<?x4xf32>) -> tensor<2x8xf32> {
  %y = ge.reshape %x : tensor<?x4xf32> -> tensor<?xf32>
  %z = ge.reshape %y : tensor<?xf32> -> tensor<2x8xf32>
  func.return %z : tensor<2x8xf32>
}
