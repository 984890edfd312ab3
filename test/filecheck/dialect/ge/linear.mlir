// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP

// The weight is [out, in] as in torch.nn.Linear.
// CHECK-LABEL: func.func @linear_bias(
// CHECK-NEXT:    %y = ge.linear %x, %w, %b : tensor<1x512xf32>, tensor<10x512xf32>, tensor<10xf32> -> tensor<1x10xf32>
func.func @linear_bias(%x: tensor<1x512xf32>, %w: tensor<10x512xf32>, %b: tensor<10xf32>) -> tensor<1x10xf32> {
  %y = ge.linear %x, %w, %b : tensor<1x512xf32>, tensor<10x512xf32>, tensor<10xf32> -> tensor<1x10xf32>
  func.return %y : tensor<1x10xf32>
}

// CHECK-LABEL: func.func @linear_no_bias(
// CHECK-NEXT:    %y = ge.linear %x, %w : tensor<1x512xf32>, tensor<10x512xf32> -> tensor<1x10xf32>
func.func @linear_no_bias(%x: tensor<1x512xf32>, %w: tensor<10x512xf32>) -> tensor<1x10xf32> {
  %y = ge.linear %x, %w : tensor<1x512xf32>, tensor<10x512xf32> -> tensor<1x10xf32>
  func.return %y : tensor<1x10xf32>
}

// Leading dims pass through; a 1-D input gives a 1-D output.
// CHECK-LABEL: func.func @linear_ranks(
// CHECK-NEXT:    %y = ge.linear %x, %w, %b : tensor<2x7x16xf32>, tensor<32x16xf32>, tensor<32xf32> -> tensor<2x7x32xf32>
// CHECK-NEXT:    %z = ge.linear %v, %w : tensor<16xf32>, tensor<32x16xf32> -> tensor<32xf32>
func.func @linear_ranks(%x: tensor<2x7x16xf32>, %v: tensor<16xf32>, %w: tensor<32x16xf32>, %b: tensor<32xf32>) -> (tensor<2x7x32xf32>, tensor<32xf32>) {
  %y = ge.linear %x, %w, %b : tensor<2x7x16xf32>, tensor<32x16xf32>, tensor<32xf32> -> tensor<2x7x32xf32>
  %z = ge.linear %v, %w : tensor<16xf32>, tensor<32x16xf32> -> tensor<32xf32>
  func.return %y, %z : tensor<2x7x32xf32>, tensor<32xf32>
}

// CHECK-LABEL: func.func @linear_dynamic(
// CHECK-NEXT:    %y = ge.linear %x, %w, %b : tensor<?x?xf32>, tensor<10x512xf32>, tensor<10xf32> -> tensor<?x10xf32>
func.func @linear_dynamic(%x: tensor<?x?xf32>, %w: tensor<10x512xf32>, %b: tensor<10xf32>) -> tensor<?x10xf32> {
  %y = ge.linear %x, %w, %b : tensor<?x?xf32>, tensor<10x512xf32>, tensor<10xf32> -> tensor<?x10xf32>
  func.return %y : tensor<?x10xf32>
}
