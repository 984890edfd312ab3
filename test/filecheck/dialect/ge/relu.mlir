// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP

// One type: input and result are the same tensor type.
// CHECK-LABEL: func.func @relu(
// CHECK-NEXT:    %y = ge.relu %x : tensor<1x64x56x56xf32>
// CHECK-NEXT:    func.return %y : tensor<1x64x56x56xf32>
func.func @relu(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  %y = ge.relu %x : tensor<1x64x56x56xf32>
  func.return %y : tensor<1x64x56x56xf32>
}

// CHECK-LABEL: func.func @relu_dynamic(
// CHECK-NEXT:    %y = ge.relu %x : tensor<?x?xf32>
func.func @relu_dynamic(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %y = ge.relu %x : tensor<?x?xf32>
  func.return %y : tensor<?x?xf32>
}

// Rank 0 and half precision.
// CHECK-LABEL: func.func @relu_scalar_f16(
// CHECK-NEXT:    %y = ge.relu %x : tensor<f16>
func.func @relu_scalar_f16(%x: tensor<f16>) -> tensor<f16> {
  %y = ge.relu %x : tensor<f16>
  func.return %y : tensor<f16>
}

// Chains keep their order and names.
// CHECK-LABEL: func.func @relu_chain(
// CHECK-NEXT:    %a = ge.relu %x : tensor<8xf32>
// CHECK-NEXT:    %b = ge.relu %a : tensor<8xf32>
// CHECK-NEXT:    func.return %b : tensor<8xf32>
func.func @relu_chain(%x: tensor<8xf32>) -> tensor<8xf32> {
  %a = ge.relu %x : tensor<8xf32>
  %b = ge.relu %a : tensor<8xf32>
  func.return %b : tensor<8xf32>
}
