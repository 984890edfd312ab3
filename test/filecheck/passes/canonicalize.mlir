// RUN: ge-opt %s --split-input-file -p canonicalize | filecheck %s

// x + 0 -> x and x * 1 -> x, from either side.
// CHECK-LABEL: func.func @neutral
// CHECK-NEXT:    func.return %x : tensor<2x4xf32>
func.func @neutral(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %z = ge.const dense<0.0> : tensor<4xf32>
  %one = ge.const dense<1.0> : tensor<2x1xf32>
  %a = ge.add %z, %x : tensor<4xf32>, tensor<2x4xf32> -> tensor<2x4xf32>
  %b = ge.mul %a, %one : tensor<2x4xf32>, tensor<2x1xf32> -> tensor<2x4xf32>
  func.return %b : tensor<2x4xf32>
}

// -----

// Negative: the neutral element broadcasts x to a bigger shape, so the op stays;
// and a non-neutral constant stays.
// CHECK-LABEL: func.func @not_neutral
// CHECK:         ge.add %y, %z : tensor<4xf32>, tensor<2x4xf32> -> tensor<2x4xf32>
// CHECK:         ge.mul %y, %two
func.func @not_neutral(%y: tensor<4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>) {
  %z = ge.const dense<0.0> : tensor<2x4xf32>
  %two = ge.const dense<2.0> : tensor<4xf32>
  %a = ge.add %y, %z : tensor<4xf32>, tensor<2x4xf32> -> tensor<2x4xf32>
  %b = ge.mul %y, %two : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  func.return %a, %b : tensor<2x4xf32>, tensor<4xf32>
}

// -----

// reshape(reshape(x)) -> reshape(x); flatten(x) to its own shape -> x.
// CHECK-LABEL: func.func @reshapes
// CHECK-NEXT:    %[[R:.*]] = ge.reshape %x : tensor<2x3x4xf32> -> tensor<24xf32>
// CHECK-NEXT:    func.return %[[R]], %y
func.func @reshapes(%x: tensor<2x3x4xf32>, %y: tensor<2x8xf32>) -> (tensor<24xf32>, tensor<2x8xf32>) {
  %a = ge.flatten %x {start_dim = 1 : i64, end_dim = -1 : i64} : tensor<2x3x4xf32> -> tensor<2x12xf32>
  %b = ge.reshape %a : tensor<2x12xf32> -> tensor<24xf32>
  %c = ge.flatten %y {start_dim = 1 : i64, end_dim = -1 : i64} : tensor<2x8xf32> -> tensor<2x8xf32>
  func.return %b, %c : tensor<24xf32>, tensor<2x8xf32>
}

// -----

// Negative: a dynamic result shape needs the intermediate shape; the chain stays.
// CHECK-LABEL: func.func @dynamic_chain
// CHECK:         ge.flatten
// CHECK-NEXT:    ge.reshape
func.func @dynamic_chain(%x: tensor<?x3x4xf32>) -> tensor<?x2x2xf32> {
  %a = ge.flatten %x {start_dim = 0 : i64, end_dim = 1 : i64} : tensor<?x3x4xf32> -> tensor<?x4xf32>
  %b = ge.reshape %a : tensor<?x4xf32> -> tensor<?x2x2xf32>
  func.return %b : tensor<?x2x2xf32>
}

// -----

// Back-to-back conversions cancel; a conversion that changes the type stays.
// CHECK-LABEL: func.func @trans_data_pair
// CHECK-NEXT:    %[[A:.*]] = ge.trans_data %x {src_format = "NCHW", dst_format = "NC1HWC0"}
// CHECK-NEXT:    func.return %x, %[[A]]
func.func @trans_data_pair(%x: tensor<1x8x4x4xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x1x4x4x8xf32>) {
  %a = ge.trans_data %x {src_format = "NCHW", dst_format = "NC1HWC0"} : tensor<1x8x4x4xf32> -> tensor<1x1x4x4x8xf32>
  %b = ge.trans_data %a {src_format = "NC1HWC0", dst_format = "NCHW"} : tensor<1x1x4x4x8xf32> -> tensor<1x8x4x4xf32>
  func.return %b, %a : tensor<1x8x4x4xf32>, tensor<1x1x4x4x8xf32>
}

// -----

// NC1HWC0 -> NCHW -> NC1HWC0 restores the same type and, since padding
// channels are zero by the format's invariant, the same data: it cancels too.
// CHECK-LABEL: func.func @trans_data_padded
// CHECK-NEXT:    func.return %x
func.func @trans_data_padded(%x: tensor<1x1x4x4x8xf32>) -> tensor<1x1x4x4x8xf32> {
  %a = ge.trans_data %x {src_format = "NC1HWC0", dst_format = "NCHW"} : tensor<1x1x4x4x8xf32> -> tensor<1x6x4x4xf32>
  %b = ge.trans_data %a {src_format = "NCHW", dst_format = "NC1HWC0"} : tensor<1x6x4x4xf32> -> tensor<1x1x4x4x8xf32>
  func.return %b : tensor<1x1x4x4x8xf32>
}

// -----

// cast(cast(x)) cancels when the inner cast is exact: f16 -> f32 -> f16 gives x
// back, f16 -> f32 -> f64 is f16 -> f64. f32 -> f16 -> f32 rounds: it stays.
// CHECK-LABEL: func.func @cast_pairs
// CHECK-NEXT:    %[[D:[^ ]*]] = ge.cast %h : tensor<4xf16> -> tensor<4xf64>
// CHECK-NEXT:    %[[N:[^ ]*]] = ge.cast %x : tensor<4xf32> -> tensor<4xf16>
// CHECK-NEXT:    %[[R:[^ ]*]] = ge.cast %[[N]] : tensor<4xf16> -> tensor<4xf32>
// CHECK-NEXT:    func.return %h, %[[D]], %[[R]] :
func.func @cast_pairs(%h: tensor<4xf16>, %x: tensor<4xf32>) -> (tensor<4xf16>, tensor<4xf64>, tensor<4xf32>) {
  %w = ge.cast %h : tensor<4xf16> -> tensor<4xf32>
  %back = ge.cast %w : tensor<4xf32> -> tensor<4xf16>
  %wide = ge.cast %w : tensor<4xf32> -> tensor<4xf64>
  %n = ge.cast %x : tensor<4xf32> -> tensor<4xf16>
  %round = ge.cast %n : tensor<4xf16> -> tensor<4xf32>
  func.return %back, %wide, %round : tensor<4xf16>, tensor<4xf64>, tensor<4xf32>
}

// -----

// transpose(transpose(x)) composes into one transpose; when the composition is
// the identity both go, and so does a lone identity transpose.
// CHECK-LABEL: func.func @transposes
// CHECK-NEXT:    %[[T:[^ ]*]] = ge.transpose %x {permutation = array<i64: 0, 2, 3, 1>} : tensor<2x3x4x5xf32> -> tensor<2x4x5x3xf32>
// CHECK-NEXT:    func.return %[[T]], %x, %x :
func.func @transposes(%x: tensor<2x3x4x5xf32>) -> (tensor<2x4x5x3xf32>, tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>) {
  %a = ge.transpose %x {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x3x4x5xf32> -> tensor<2x4x3x5xf32>
  %b = ge.transpose %a {permutation = array<i64: 0, 1, 3, 2>} : tensor<2x4x3x5xf32> -> tensor<2x4x5x3xf32>
  %c = ge.transpose %a {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x4x3x5xf32> -> tensor<2x3x4x5xf32>
  %d = ge.transpose %x {permutation = array<i64: 0, 1, 2, 3>} : tensor<2x3x4x5xf32> -> tensor<2x3x4x5xf32>
  func.return %b, %c, %d : tensor<2x4x5x3xf32>, tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>
}

// -----

// Negative: one real transpose stays; a transpose whose input is not a
// transpose stays even when composed with a later one elsewhere.
// CHECK-LABEL: func.func @one_transpose
// CHECK-NEXT:    %[[A:[^ ]*]] = ge.transpose %x {permutation = array<i64: 1, 0>}
// CHECK-NEXT:    %[[B:[^ ]*]] = ge.relu %[[A]]
// CHECK-NEXT:    %[[C:[^ ]*]] = ge.transpose %[[B]] {permutation = array<i64: 1, 0>}
// CHECK-NEXT:    func.return %[[C]] :
func.func @one_transpose(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = ge.transpose %x {permutation = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %b = ge.relu %a : tensor<3x2xf32>
  %c = ge.transpose %b {permutation = array<i64: 1, 0>} : tensor<3x2xf32> -> tensor<2x3xf32>
  func.return %c : tensor<2x3xf32>
}

// -----

// A cast to the element type the value already has is removed; a real one stays.
// CHECK-LABEL: func.func @casts
// CHECK-NEXT:    %[[C:[^ ]*]] = ge.cast %i : tensor<4xi64> -> tensor<4xf32>
// CHECK-NEXT:    func.return %x, %[[C]] :
func.func @casts(%x: tensor<4xf32>, %i: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = ge.cast %x : tensor<4xf32> -> tensor<4xf32>
  %b = ge.cast %i : tensor<4xi64> -> tensor<4xf32>
  func.return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// -----

// A slice over the whole dim (end at or past its size, or "to the end" on a
// dynamic dim) is removed.
// CHECK-LABEL: func.func @full_slices
// CHECK-NEXT:    func.return %x, %x, %d :
func.func @full_slices(%x: tensor<2x8xf32>, %d: tensor<?x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>, tensor<?x8xf32>) {
  %a = ge.slice %x {dim = 1 : i64, start = 0 : i64, end = 8 : i64, step = 1 : i64} : tensor<2x8xf32> -> tensor<2x8xf32>
  %b = ge.slice %x {dim = -2 : i64, start = 0 : i64, end = 100 : i64, step = 1 : i64} : tensor<2x8xf32> -> tensor<2x8xf32>
  %c = ge.slice %d {dim = 0 : i64, start = 0 : i64, end = 9223372036854775807 : i64, step = 1 : i64} : tensor<?x8xf32> -> tensor<?x8xf32>
  func.return %a, %b, %c : tensor<2x8xf32>, tensor<2x8xf32>, tensor<?x8xf32>
}

// -----

// Negative: slices that drop elements, a step, a finite end on a dynamic dim,
// and a run-time end all stay.
// CHECK-LABEL: func.func @partial_slices
// CHECK-COUNT-4: ge.slice
// CHECK-NOT:     ge.slice
func.func @partial_slices(%x: tensor<2x8xf32>, %d: tensor<?x8xf32>, %t: tensor<i64>) -> (tensor<2x7xf32>, tensor<2x4xf32>, tensor<?x8xf32>, tensor<?x8xf32>) {
  %a = ge.slice %x {dim = 1 : i64, start = 1 : i64, end = 8 : i64, step = 1 : i64} : tensor<2x8xf32> -> tensor<2x7xf32>
  %b = ge.slice %x {dim = 1 : i64, start = 0 : i64, end = 8 : i64, step = 2 : i64} : tensor<2x8xf32> -> tensor<2x4xf32>
  %c = ge.slice %d {dim = 0 : i64, start = 0 : i64, end = 5 : i64, step = 1 : i64} : tensor<?x8xf32> -> tensor<?x8xf32>
  %e = ge.slice %d end(%t : tensor<i64>) {dim = 0 : i64, start = 0 : i64, end = 9223372036854775807 : i64, step = 1 : i64} : tensor<?x8xf32> -> tensor<?x8xf32>
  func.return %a, %b, %c, %e : tensor<2x7xf32>, tensor<2x4xf32>, tensor<?x8xf32>, tensor<?x8xf32>
}

// -----

// RMSNorm written by hand (Llama, T5): x * rsqrt(mean(x ** 2, -1) + eps) * w
// becomes one ge.rms_norm with the weight; x * x works as well as x ** 2.
// CHECK-LABEL: func.func @rms_norm_recomposed
// CHECK:         %[[W:[^ ]*]] = ge.const dense<1.500000e+00> : tensor<8xf32>
// CHECK:         %[[A:[^ ]*]] = ge.rms_norm %x, %[[W]] {normalized_shape = array<i64: 8>, epsilon = 9.9999999747524271e-07 : f64} : tensor<2x3x8xf32>, tensor<8xf32> -> tensor<2x3x8xf32>
// CHECK-NEXT:    %[[B:[^ ]*]] = ge.rms_norm %x {normalized_shape = array<i64: 8>, epsilon = 9.9999999747524271e-07 : f64} : tensor<2x3x8xf32> -> tensor<2x3x8xf32>
// CHECK-NEXT:    func.return %[[A]], %[[B]] :
func.func @rms_norm_recomposed(%x: tensor<2x3x8xf32>) -> (tensor<2x3x8xf32>, tensor<2x3x8xf32>) {
  %two = ge.const dense<2.0> : tensor<f32>
  %eps = ge.const dense<1.0e-06> : tensor<f32>
  %w = ge.const dense<1.5> : tensor<8xf32>
  %sq = ge.pow %x, %two : tensor<2x3x8xf32>, tensor<f32> -> tensor<2x3x8xf32>
  %ms = ge.reduce_mean %sq {dims = array<i64: -1>, keepdim = true} : tensor<2x3x8xf32> -> tensor<2x3x1xf32>
  %v = ge.add %ms, %eps : tensor<2x3x1xf32>, tensor<f32> -> tensor<2x3x1xf32>
  %r = ge.rsqrt %v : tensor<2x3x1xf32>
  %n = ge.mul %x, %r : tensor<2x3x8xf32>, tensor<2x3x1xf32> -> tensor<2x3x8xf32>
  %y = ge.mul %w, %n : tensor<8xf32>, tensor<2x3x8xf32> -> tensor<2x3x8xf32>
  %sq2 = ge.mul %x, %x : tensor<2x3x8xf32>, tensor<2x3x8xf32> -> tensor<2x3x8xf32>
  %ms2 = ge.reduce_mean %sq2 {dims = array<i64: 2>, keepdim = true} : tensor<2x3x8xf32> -> tensor<2x3x1xf32>
  %v2 = ge.add %eps, %ms2 : tensor<f32>, tensor<2x3x1xf32> -> tensor<2x3x1xf32>
  %r2 = ge.rsqrt %v2 : tensor<2x3x1xf32>
  %n2 = ge.mul %r2, %x : tensor<2x3x1xf32>, tensor<2x3x8xf32> -> tensor<2x3x8xf32>
  func.return %y, %n2 : tensor<2x3x8xf32>, tensor<2x3x8xf32>
}

// -----

// Negative: a mean over another dim, of x cubed, or of another tensor is no
// RMS norm of x's rows, and a weight of the wrong size stays a multiply.
// CHECK-LABEL: func.func @rms_norm_lookalikes
// CHECK:         %a = ge.mul %x, %r1
// CHECK:         %b = ge.mul %x, %r2
// CHECK:         %c = ge.mul %x, %r3
// CHECK-NEXT:    %[[N:[^ ]*]] = ge.rms_norm %x {normalized_shape
// CHECK-NEXT:    %d = ge.mul %[[N]], %wrong
// CHECK-NEXT:    func.return %a, %b, %c, %d :
func.func @rms_norm_lookalikes(%x: tensor<2x3x8xf32>, %z: tensor<2x3x8xf32>, %wrong: tensor<3x1xf32>) -> (tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>) {
  %two = ge.const dense<2.0> : tensor<f32>
  %three = ge.const dense<3.0> : tensor<f32>
  %eps = ge.const dense<1.0e-06> : tensor<f32>
  %sq = ge.pow %x, %two : tensor<2x3x8xf32>, tensor<f32> -> tensor<2x3x8xf32>
  %ms1 = ge.reduce_mean %sq {dims = array<i64: 1>, keepdim = true} : tensor<2x3x8xf32> -> tensor<2x1x8xf32>
  %v1 = ge.add %ms1, %eps : tensor<2x1x8xf32>, tensor<f32> -> tensor<2x1x8xf32>
  %r1 = ge.rsqrt %v1 : tensor<2x1x8xf32>
  %a = ge.mul %x, %r1 : tensor<2x3x8xf32>, tensor<2x1x8xf32> -> tensor<2x3x8xf32>
  %cube = ge.pow %x, %three : tensor<2x3x8xf32>, tensor<f32> -> tensor<2x3x8xf32>
  %ms2 = ge.reduce_mean %cube {dims = array<i64: -1>, keepdim = true} : tensor<2x3x8xf32> -> tensor<2x3x1xf32>
  %v2 = ge.add %ms2, %eps : tensor<2x3x1xf32>, tensor<f32> -> tensor<2x3x1xf32>
  %r2 = ge.rsqrt %v2 : tensor<2x3x1xf32>
  %b = ge.mul %x, %r2 : tensor<2x3x8xf32>, tensor<2x3x1xf32> -> tensor<2x3x8xf32>
  %sqz = ge.pow %z, %two : tensor<2x3x8xf32>, tensor<f32> -> tensor<2x3x8xf32>
  %ms3 = ge.reduce_mean %sqz {dims = array<i64: -1>, keepdim = true} : tensor<2x3x8xf32> -> tensor<2x3x1xf32>
  %v3 = ge.add %ms3, %eps : tensor<2x3x1xf32>, tensor<f32> -> tensor<2x3x1xf32>
  %r3 = ge.rsqrt %v3 : tensor<2x3x1xf32>
  %c = ge.mul %x, %r3 : tensor<2x3x8xf32>, tensor<2x3x1xf32> -> tensor<2x3x8xf32>
  %ms4 = ge.reduce_mean %sq {dims = array<i64: -1>, keepdim = true} : tensor<2x3x8xf32> -> tensor<2x3x1xf32>
  %v4 = ge.add %ms4, %eps : tensor<2x3x1xf32>, tensor<f32> -> tensor<2x3x1xf32>
  %r4 = ge.rsqrt %v4 : tensor<2x3x1xf32>
  %n4 = ge.mul %x, %r4 : tensor<2x3x8xf32>, tensor<2x3x1xf32> -> tensor<2x3x8xf32>
  %d = ge.mul %n4, %wrong : tensor<2x3x8xf32>, tensor<3x1xf32> -> tensor<2x3x8xf32>
  func.return %a, %b, %c, %d : tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>
}

// -----

// quantize computes in f32, so a widening cast before it (bf16 -> f32, as
// precision-mode leaves between a bf16 op and a quantize) goes; a narrowing
// one (f64 -> f32 rounds) and a quantize with a zero point stay.
// CHECK-LABEL: func.func @quantize_of_cast
// CHECK-NEXT:    %{{.*}} = ge.quantize %b, %s {axis = 1 : i64} : tensor<4x8xbf16>, tensor<f32> -> tensor<4x8xi8>
// CHECK-NEXT:    %[[D:.*]] = ge.cast %d : tensor<4x8xf64> -> tensor<4x8xf32>
// CHECK-NEXT:    %{{.*}} = ge.quantize %[[D]], %s {axis = 1 : i64}
// CHECK-NEXT:    %[[Z:.*]] = ge.cast %b : tensor<4x8xbf16> -> tensor<4x8xf32>
// CHECK-NEXT:    %{{.*}} = ge.quantize %[[Z]], %s, %z
func.func @quantize_of_cast(%b: tensor<4x8xbf16>, %d: tensor<4x8xf64>, %s: tensor<f32>, %z: tensor<i8>) -> (tensor<4x8xi8>, tensor<4x8xi8>, tensor<4x8xi8>) {
  %bf = ge.cast %b : tensor<4x8xbf16> -> tensor<4x8xf32>
  %qb = ge.quantize %bf, %s {axis = 1 : i64} : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xi8>
  %df = ge.cast %d : tensor<4x8xf64> -> tensor<4x8xf32>
  %qd = ge.quantize %df, %s {axis = 1 : i64} : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xi8>
  %bz = ge.cast %b : tensor<4x8xbf16> -> tensor<4x8xf32>
  %qz = ge.quantize %bz, %s, %z {axis = 1 : i64} : tensor<4x8xf32>, tensor<f32>, tensor<i8> -> tensor<4x8xi8>
  func.return %qb, %qd, %qz : tensor<4x8xi8>, tensor<4x8xi8>, tensor<4x8xi8>
}

// -----

// A dequantize and a quantize with the same scale and zero point return the
// int8 value itself (an imported QDQ model's pair left beside a max-pool);
// another scale, another zero point or a scale that is not a constant stay.
// CHECK-LABEL: func.func @quantize_of_dequantize
// CHECK-NOT:     %same =
// CHECK:         %other_scale = ge.quantize
// CHECK:         %other_zero = ge.quantize
// CHECK:         %unknown = ge.quantize
// CHECK:         func.return %x, %other_scale, %other_zero, %unknown
func.func @quantize_of_dequantize(%x: tensor<4x8xi8>, %t: tensor<f32>) -> (tensor<4x8xi8>, tensor<4x8xi8>, tensor<4x8xi8>, tensor<4x8xi8>) {
  %s = ge.const dense<0.05> : tensor<f32>
  %s2 = ge.const dense<0.05> : tensor<f32>
  %s3 = ge.const dense<0.1> : tensor<f32>
  %z = ge.const dense<-128> : tensor<i8>
  %z2 = ge.const dense<-128> : tensor<i8>
  %z3 = ge.const dense<3> : tensor<i8>
  %d = ge.dequantize %x, %s, %z {axis = 1 : i64} : tensor<4x8xi8>, tensor<f32>, tensor<i8> -> tensor<4x8xf32>
  %same = ge.quantize %d, %s2, %z2 {axis = 1 : i64} : tensor<4x8xf32>, tensor<f32>, tensor<i8> -> tensor<4x8xi8>
  %other_scale = ge.quantize %d, %s3, %z {axis = 1 : i64} : tensor<4x8xf32>, tensor<f32>, tensor<i8> -> tensor<4x8xi8>
  %other_zero = ge.quantize %d, %s, %z3 {axis = 1 : i64} : tensor<4x8xf32>, tensor<f32>, tensor<i8> -> tensor<4x8xi8>
  %dt = ge.dequantize %x, %t, %z {axis = 1 : i64} : tensor<4x8xi8>, tensor<f32>, tensor<i8> -> tensor<4x8xf32>
  %unknown = ge.quantize %dt, %t, %z {axis = 1 : i64} : tensor<4x8xf32>, tensor<f32>, tensor<i8> -> tensor<4x8xi8>
  func.return %same, %other_scale, %other_zero, %unknown : tensor<4x8xi8>, tensor<4x8xi8>, tensor<4x8xi8>, tensor<4x8xi8>
}
