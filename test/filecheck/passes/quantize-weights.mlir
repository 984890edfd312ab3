// RUN: ge-opt %s --split-input-file -p quantize-weights | filecheck %s
// RUN: ge-opt %s --split-input-file -p 'quantize-weights{group-size=2}' | filecheck %s --check-prefix=GROUP
// RUN: not ge-opt %s -p 'quantize-weights{group-size=-1}' 2>&1 | filecheck %s --check-prefix=BADGROUP

// W = [[1, -2], [0.5, 0.25]]: s = max|row| / 127 = [2/127, 0.5/127],
// q = round(W / s) = [[64, -127], [127, 64]] (63.5 -> 64: half to even).
// CHECK-LABEL: func.func @linear_const_weight
// CHECK-NOT:     tensor<2x2xf32>
// CHECK-DAG:     %[[Q:.*]] = ge.const dense<{{\[\[}}64, -127], [127, 64]]> : tensor<2x2xi8>
// CHECK-DAG:     %[[S:.*]] = ge.const dense<[0.0157480314, 0.00393700786]> : tensor<2xf32>
// CHECK-NOT:     tensor<2x2xf32>
// CHECK:         %y = ge.weight_quant_linear %x, %[[Q]], %[[S]], %b : tensor<3x2xf32>, tensor<2x2xi8>, tensor<2xf32>, tensor<2xf32> -> tensor<3x2xf32>
// CHECK-NOT:     ge.linear
func.func @linear_const_weight(%x: tensor<3x2xf32>, %b: tensor<2xf32>) -> tensor<3x2xf32> {
  %w = ge.const dense<[[1.0, -2.0], [0.5, 0.25]]> : tensor<2x2xf32>
  %y = ge.linear %x, %w, %b : tensor<3x2xf32>, tensor<2x2xf32>, tensor<2xf32> -> tensor<3x2xf32>
  func.return %y : tensor<3x2xf32>
}

// -----

// matmul's [in, out] constant is transposed into linear's [out, in]; an
// all-zero channel gets scale 1.
// CHECK-LABEL: func.func @matmul_const_rhs
// CHECK-DAG:     %[[Q:.*]] = ge.const dense<{{\[\[}}127, -127], [0, 0]]> : tensor<2x2xi8>
// CHECK-DAG:     %[[S:.*]] = ge.const dense<[0.0236220472, 1.000000e+00]> : tensor<2xf32>
// CHECK:         %y = ge.weight_quant_linear %x, %[[Q]], %[[S]] : tensor<1x4x2xf32>, tensor<2x2xi8>, tensor<2xf32> -> tensor<1x4x2xf32>
func.func @matmul_const_rhs(%x: tensor<1x4x2xf32>) -> tensor<1x4x2xf32> {
  %k = ge.const dense<[[3.0, 0.0], [-3.0, 0.0]]> : tensor<2x2xf32>
  %y = ge.matmul %x, %k : tensor<1x4x2xf32>, tensor<2x2xf32> -> tensor<1x4x2xf32>
  func.return %y : tensor<1x4x2xf32>
}

// -----

// A constant something else reads stays for it; both readers get the int8 form.
// CHECK-LABEL: func.func @shared_weight
// CHECK:         %w = ge.const {{.*}} : tensor<2x2xf32>
// CHECK:         ge.weight_quant_linear
// CHECK:         ge.add %w, %w
func.func @shared_weight(%x: tensor<1x2xf32>) -> (tensor<1x2xf32>, tensor<2x2xf32>) {
  %w = ge.const dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %y = ge.linear %x, %w : tensor<1x2xf32>, tensor<2x2xf32> -> tensor<1x2xf32>
  %e = ge.add %w, %w : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  func.return %y, %e : tensor<1x2xf32>, tensor<2x2xf32>
}

// -----

// A weight that is not a constant (a graph input, or computed) stays float.
// CHECK-LABEL: func.func @non_constant_weight
// CHECK-NEXT:    %y = ge.linear %x, %w : tensor<1x2xf32>, tensor<2x2xf32> -> tensor<1x2xf32>
// CHECK-NEXT:    %k = ge.relu %w
// CHECK-NEXT:    %z = ge.matmul %x, %k
// CHECK-NOT:     ge.weight_quant_linear
func.func @non_constant_weight(%x: tensor<1x2xf32>, %w: tensor<2x2xf32>) -> (tensor<1x2xf32>, tensor<1x2xf32>) {
  %y = ge.linear %x, %w : tensor<1x2xf32>, tensor<2x2xf32> -> tensor<1x2xf32>
  %k = ge.relu %w : tensor<2x2xf32>
  %z = ge.matmul %x, %k : tensor<1x2xf32>, tensor<2x2xf32> -> tensor<1x2xf32>
  func.return %y, %z : tensor<1x2xf32>, tensor<1x2xf32>
}

// -----

// A batched constant (3-D) is not a linear's weight: left alone.
// CHECK-LABEL: func.func @batched_const
// CHECK:         ge.matmul
// CHECK-NOT:     ge.weight_quant_linear
func.func @batched_const(%x: tensor<2x1x2xf32>) -> tensor<2x1x2xf32> {
  %k = ge.const dense<1.0> : tensor<2x2x2xf32>
  %y = ge.matmul %x, %k : tensor<2x1x2xf32>, tensor<2x2x2xf32> -> tensor<2x1x2xf32>
  func.return %y : tensor<2x1x2xf32>
}

// -----

// Groups along the input: with group-size=2 a row of 5 has scales for
// inputs 0-1, 2-3 and 4 (a shorter last group), each max|group| / 127, and
// the op says its group size. Rows no longer than the default 128 keep one
// scale per channel and no attribute.
// CHECK-LABEL: func.func @groups
// CHECK:         ge.weight_quant_linear %x, %{{.*}}, %{{.*}} : tensor<1x5xf32>, tensor<2x5xi8>, tensor<2xf32> -> tensor<1x2xf32>
// GROUP-LABEL:   func.func @groups
// GROUP-DAG:     %[[Q:.*]] = ge.const dense<{{\[\[}}127, 64, -127, 0, 127], [0, 0, 127, 127, -127]]> : tensor<2x5xi8>
// GROUP-DAG:     %[[S:.*]] = ge.const dense<{{\[\[}}0.00787401572, 0.0157480314, 0.0236220472], [1.000000e+00, 0.00787401572, 0.0314960629]]> : tensor<2x3xf32>
// GROUP:         %y = ge.weight_quant_linear %x, %[[Q]], %[[S]] {antiquant_group_size = 2 : i64} : tensor<1x5xf32>, tensor<2x5xi8>, tensor<2x3xf32> -> tensor<1x2xf32>
// BADGROUP:      quantize-weights: group-size=-1 must be an integer >= 0 (0: one scale per output channel)
func.func @groups(%x: tensor<1x5xf32>) -> tensor<1x2xf32> {
  %w = ge.const dense<[[1.0, 0.5, -2.0, 0.0, 3.0], [0.0, 0.0, 1.0, 1.0, -4.0]]> : tensor<2x5xf32>
  %y = ge.linear %x, %w : tensor<1x5xf32>, tensor<2x5xf32> -> tensor<1x2xf32>
  func.return %y : tensor<1x2xf32>
}
