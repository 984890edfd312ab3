// RUN: ge-opt %s --split-input-file -p 'precision-mode{mode=must_keep_origin_dtype}' | filecheck %s --check-prefix=KEEP
// RUN: ge-opt %s --split-input-file -p 'precision-mode{mode=allow_fp32_to_bf16},canonicalize,cse,dce' | filecheck %s --check-prefix=BF16
// RUN: ge-opt %s --split-input-file -p 'precision-mode{mode=allow_mix_precision_bf16},canonicalize,cse,dce' | filecheck %s --check-prefix=MIX

// must_keep_origin_dtype (the default): nothing moves.
// allow_fp32_to_bf16: only the cube op (linear) computes in bf16, its
// weights converted at compile time; relu, reshape, exp, softmax stay fp32.
// allow_mix_precision_bf16: relu (trustlist) and reshape (graylist after a
// bf16 producer) join it; exp and softmax (blocklist) stay fp32.
// KEEP-LABEL: func.func @mlp
// KEEP-NOT:     ge.cast
// KEEP-NOT:     bf16
// The linear and the two casts only it touches are one group (one task).
// BF16-LABEL: func.func @mlp
// BF16-NEXT:    %[[W:[^ ]*]] = ge.const dense<5.000000e-01> : tensor<4x8xbf16>
// BF16-NEXT:    %[[B:[^ ]*]] = ge.const dense<2.500000e-01> : tensor<4xbf16>
// BF16-NEXT:    %[[G:[^ ]*]] = ge.fused "linear"(%x, %[[W]], %[[B]]) : (tensor<2x8xf32>, tensor<4x8xbf16>, tensor<4xbf16>) -> tensor<2x4xf32> {
// BF16-NEXT:    ^bb0(%[[XA:[^ ]*]]: tensor<2x8xf32>, %[[WA:[^ ]*]]: tensor<4x8xbf16>, %[[BA:[^ ]*]]: tensor<4xbf16>):
// BF16-NEXT:      %[[X:[^ ]*]] = ge.cast %[[XA]] : tensor<2x8xf32> -> tensor<2x8xbf16>
// BF16-NEXT:      %[[L:[^ ]*]] = ge.linear %[[X]], %[[WA]], %[[BA]] : tensor<2x8xbf16>, tensor<4x8xbf16>, tensor<4xbf16> -> tensor<2x4xbf16>
// BF16-NEXT:      %[[L32:[^ ]*]] = ge.cast %[[L]] : tensor<2x4xbf16> -> tensor<2x4xf32>
// BF16-NEXT:      ge.yield %[[L32]] : tensor<2x4xf32>
// BF16-NEXT:    }
// BF16-NEXT:    %[[R:[^ ]*]] = ge.relu %[[G]] : tensor<2x4xf32>
// BF16-NEXT:    %[[S:[^ ]*]] = ge.reshape %[[R]] : tensor<2x4xf32> -> tensor<8xf32>
// BF16-NEXT:    %[[E:[^ ]*]] = ge.exp %[[S]] : tensor<8xf32>
// BF16-NEXT:    ge.softmax %[[E]] {dim = 0 : i64} : tensor<8xf32>
// MIX-LABEL: func.func @mlp
// MIX-NEXT:    ge.const {{.*}} : tensor<4x8xbf16>
// MIX-NEXT:    ge.const {{.*}} : tensor<4xbf16>
// MIX-NEXT:    %[[L:[^ ]*]] = ge.fused "linear"(%x, {{.*}}) : (tensor<2x8xf32>, {{.*}}) -> tensor<2x4xbf16> {
// MIX:           ge.cast %{{[^ ]*}} : tensor<2x8xf32> -> tensor<2x8xbf16>
// MIX-NEXT:      %[[L1:[^ ]*]] = ge.linear {{.*}} -> tensor<2x4xbf16>
// MIX-NEXT:      ge.yield %[[L1]] : tensor<2x4xbf16>
// MIX-NEXT:    }
// MIX-NEXT:    %[[R:[^ ]*]] = ge.relu %[[L]] : tensor<2x4xbf16>
// MIX-NEXT:    %[[S:[^ ]*]] = ge.reshape %[[R]] : tensor<2x4xbf16> -> tensor<8xbf16>
// MIX-NEXT:    %[[S32:[^ ]*]] = ge.cast %[[S]] : tensor<8xbf16> -> tensor<8xf32>
// MIX-NEXT:    %[[E:[^ ]*]] = ge.exp %[[S32]] : tensor<8xf32>
// MIX-NEXT:    %[[P:[^ ]*]] = ge.softmax %[[E]] {dim = 0 : i64} : tensor<8xf32>
// MIX-NEXT:    func.return %[[P]] : tensor<8xf32>
func.func @mlp(%x: tensor<2x8xf32>) -> tensor<8xf32> {
  %w = ge.const dense<0.5> : tensor<4x8xf32>
  %b = ge.const dense<0.25> : tensor<4xf32>
  %l = ge.linear %x, %w, %b : tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32> -> tensor<2x4xf32>
  %r = ge.relu %l : tensor<2x4xf32>
  %s = ge.reshape %r : tensor<2x4xf32> -> tensor<8xf32>
  %e = ge.exp %s : tensor<8xf32>
  %p = ge.softmax %e {dim = 0 : i64} : tensor<8xf32>
  func.return %p : tensor<8xf32>
}

// -----

// Two fused groups in a row: no cast task between them. The first group
// yields bf16 (allow_fp32_to_bf16: its fp32 relu's result is cast inside the
// group; mix: the relu itself is bf16) and the second takes it as is. The
// second group's reader (sigmoid) is fp32, so it yields fp32: the cast back
// is inside the group, where the runtime makes it the kernel's output type.
// BF16-LABEL: func.func @groups
// BF16:         %[[F:[^ ]*]] = ge.fused "conv2d_relu"(%x, %{{[^ ]*}}) : (tensor<1x3x4x4xf32>, tensor<4x3x1x1xbf16>) -> tensor<1x4x4x4xbf16> {
// BF16:           ge.cast %{{[^ ]*}} : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xbf16>
// BF16:           ge.conv2d {{.*}} -> tensor<1x4x4x4xbf16>
// BF16-NEXT:      ge.cast %{{[^ ]*}} : tensor<1x4x4x4xbf16> -> tensor<1x4x4x4xf32>
// BF16-NEXT:      %[[R:[^ ]*]] = ge.relu %{{[^ ]*}} : tensor<1x4x4x4xf32>
// BF16-NEXT:      %[[R16:[^ ]*]] = ge.cast %[[R]] : tensor<1x4x4x4xf32> -> tensor<1x4x4x4xbf16>
// BF16-NEXT:      ge.yield %[[R16]] : tensor<1x4x4x4xbf16>
// BF16-NEXT:    }
// BF16-NEXT:    %[[G:[^ ]*]] = ge.fused "conv2d_relu"(%[[F]], %{{[^ ]*}}) : (tensor<1x4x4x4xbf16>, tensor<4x4x1x1xbf16>) -> tensor<1x4x4x4xf32> {
// BF16-NEXT:    ^bb0(%[[A:[^ ]*]]: tensor<1x4x4x4xbf16>, %{{[^ ]*}}: tensor<4x4x1x1xbf16>):
// BF16-NEXT:      ge.conv2d %[[A]], {{.*}} -> tensor<1x4x4x4xbf16>
// BF16-NEXT:      ge.cast %{{[^ ]*}} : tensor<1x4x4x4xbf16> -> tensor<1x4x4x4xf32>
// BF16-NEXT:      %[[R2:[^ ]*]] = ge.relu %{{[^ ]*}} : tensor<1x4x4x4xf32>
// BF16-NEXT:      ge.yield %[[R2]] : tensor<1x4x4x4xf32>
// BF16-NEXT:    }
// BF16-NEXT:    ge.sigmoid %[[G]] : tensor<1x4x4x4xf32>
// MIX-LABEL: func.func @groups
// MIX:           %[[F:[^ ]*]] = ge.fused "conv2d_relu"{{.*}} -> tensor<1x4x4x4xbf16> {
// MIX:             %[[R:[^ ]*]] = ge.relu %{{[^ ]*}} : tensor<1x4x4x4xbf16>
// MIX-NEXT:        ge.yield %[[R]] : tensor<1x4x4x4xbf16>
// MIX-NEXT:      }
// MIX-NEXT:      %[[G:[^ ]*]] = ge.fused "conv2d_relu"(%[[F]], %{{[^ ]*}}) : (tensor<1x4x4x4xbf16>, tensor<4x4x1x1xbf16>) -> tensor<1x4x4x4xf32> {
// MIX-NOT:         ge.cast {{.*}} -> tensor<1x4x4x4xbf16>
// MIX:             %[[R2:[^ ]*]] = ge.relu %{{[^ ]*}} : tensor<1x4x4x4xbf16>
// MIX-NEXT:        %[[R32:[^ ]*]] = ge.cast %[[R2]] : tensor<1x4x4x4xbf16> -> tensor<1x4x4x4xf32>
// MIX-NEXT:        ge.yield %[[R32]] : tensor<1x4x4x4xf32>
// MIX-NEXT:      }
// MIX-NEXT:      ge.sigmoid %[[G]] : tensor<1x4x4x4xf32>
func.func @groups(%x: tensor<1x3x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %w = ge.const dense<0.5> : tensor<4x3x1x1xf32>
  %v = ge.const dense<0.25> : tensor<4x4x1x1xf32>
  %f = ge.fused "conv2d_relu"(%x, %w) : (tensor<1x3x4x4xf32>, tensor<4x3x1x1xf32>) -> tensor<1x4x4x4xf32> {
  ^bb0(%a: tensor<1x3x4x4xf32>, %k: tensor<4x3x1x1xf32>):
    %c = ge.conv2d %a, %k {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x4x4xf32>, tensor<4x3x1x1xf32> -> tensor<1x4x4x4xf32>
    %r = ge.relu %c : tensor<1x4x4x4xf32>
    ge.yield %r : tensor<1x4x4x4xf32>
  }
  %g = ge.fused "conv2d_relu"(%f, %v) : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32> {
  ^bb0(%a: tensor<1x4x4x4xf32>, %k: tensor<4x4x1x1xf32>):
    %c = ge.conv2d %a, %k {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32> -> tensor<1x4x4x4xf32>
    %r = ge.relu %c : tensor<1x4x4x4xf32>
    ge.yield %r : tensor<1x4x4x4xf32>
  }
  %s = ge.sigmoid %g : tensor<1x4x4x4xf32>
  func.return %s : tensor<1x4x4x4xf32>
}

// -----

// bf16 constants print and parse back: a splat, and a dense list that needs
// bf16 rounding (1.1 is 1.1015625 in bf16).
// KEEP-LABEL: func.func @consts
// KEEP-NEXT:    ge.const dense<1.000000e+00> : tensor<4xbf16>
// KEEP-NEXT:    ge.const dense<[1.101560e+00, -2.500000e+00, 3.389530e+38]> : tensor<3xbf16>
func.func @consts() -> (tensor<4xbf16>, tensor<3xbf16>) {
  %a = ge.const dense<1.0> : tensor<4xbf16>
  %b = ge.const dense<[1.1, -2.5, 3.3895e38]> : tensor<3xbf16>
  func.return %a, %b : tensor<4xbf16>, tensor<3xbf16>
}

// -----

// The graylist follows a producer across a group boundary: the slices that
// split a bf16 linear's result into q and k, inside the attention group,
// take the bf16 value (no cast pair around the group boundary, the linear
// yields bf16). After a blocklist op (exp, fp32) they stay fp32 and are
// cast for the matmul; allow_fp32_to_bf16 moves no graylist op.
// MIX-LABEL: func.func @heads
// MIX:         %[[L:[^ ]*]] = ge.fused "linear"{{.*}} -> tensor<4x16xbf16> {
// MIX:         ge.fused "attention"(%[[L]]) : (tensor<4x16xbf16>) -> tensor<4x4xf32> {
// MIX-NEXT:    ^bb0(%[[A:[^ ]*]]: tensor<4x16xbf16>):
// MIX-NEXT:      %[[Q:[^ ]*]] = ge.slice %[[A]] {{.*}} : tensor<4x16xbf16> -> tensor<4x8xbf16>
// MIX-NEXT:      %[[K:[^ ]*]] = ge.slice %[[A]] {{.*}} : tensor<4x16xbf16> -> tensor<4x8xbf16>
// MIX-NEXT:      %[[KT:[^ ]*]] = ge.transpose %[[K]] {{.*}} -> tensor<8x4xbf16>
// MIX-NEXT:      ge.matmul %[[Q]], %[[KT]] : tensor<4x8xbf16>, tensor<8x4xbf16> -> tensor<4x4xbf16>
// MIX:         %[[E:[^ ]*]] = ge.exp %y : tensor<4x16xf32>
// MIX-NEXT:    ge.fused "attention"(%[[E]]) : (tensor<4x16xf32>) -> tensor<4x4xf32> {
// MIX-NEXT:    ^bb0(%[[A2:[^ ]*]]: tensor<4x16xf32>):
// MIX-NEXT:      %[[Q2:[^ ]*]] = ge.slice %[[A2]] {{.*}} : tensor<4x16xf32> -> tensor<4x8xf32>
// MIX-NEXT:      ge.cast %[[Q2]] : tensor<4x8xf32> -> tensor<4x8xbf16>
// BF16-LABEL: func.func @heads
// BF16:         %[[L:[^ ]*]] = ge.fused "linear"{{.*}} -> tensor<4x16xf32> {
// BF16:         ge.fused "attention"(%[[L]]) : (tensor<4x16xf32>) -> tensor<4x4xf32> {
// BF16-NEXT:    ^bb0(%[[A:[^ ]*]]: tensor<4x16xf32>):
// BF16-NEXT:      %[[Q:[^ ]*]] = ge.slice %[[A]] {{.*}} : tensor<4x16xf32> -> tensor<4x8xf32>
// BF16-NEXT:      ge.cast %[[Q]] : tensor<4x8xf32> -> tensor<4x8xbf16>
func.func @heads(%x: tensor<4x8xf32>, %y: tensor<4x16xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %w = ge.const dense<0.5> : tensor<16x8xf32>
  %b = ge.const dense<0.25> : tensor<16xf32>
  %l = ge.fused "linear"(%x, %w, %b) : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32> {
  ^bb0(%a: tensor<4x8xf32>, %k: tensor<16x8xf32>, %c: tensor<16xf32>):
    %r = ge.linear %a, %k, %c : tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32> -> tensor<4x16xf32>
    ge.yield %r : tensor<4x16xf32>
  }
  %g = ge.fused "attention"(%l) : (tensor<4x16xf32>) -> tensor<4x4xf32> {
  ^bb0(%a: tensor<4x16xf32>):
    %q = ge.slice %a {dim = 1 : i64, start = 0 : i64, end = 8 : i64, step = 1 : i64} : tensor<4x16xf32> -> tensor<4x8xf32>
    %k = ge.slice %a {dim = 1 : i64, start = 8 : i64, end = 16 : i64, step = 1 : i64} : tensor<4x16xf32> -> tensor<4x8xf32>
    %kt = ge.transpose %k {permutation = array<i64: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
    %s = ge.matmul %q, %kt : tensor<4x8xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
    ge.yield %s : tensor<4x4xf32>
  }
  %e = ge.exp %y : tensor<4x16xf32>
  %h = ge.fused "attention"(%e) : (tensor<4x16xf32>) -> tensor<4x4xf32> {
  ^bb0(%a: tensor<4x16xf32>):
    %q = ge.slice %a {dim = 1 : i64, start = 0 : i64, end = 8 : i64, step = 1 : i64} : tensor<4x16xf32> -> tensor<4x8xf32>
    %k = ge.slice %a {dim = 1 : i64, start = 8 : i64, end = 16 : i64, step = 1 : i64} : tensor<4x16xf32> -> tensor<4x8xf32>
    %kt = ge.transpose %k {permutation = array<i64: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
    %s = ge.matmul %q, %kt : tensor<4x8xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
    ge.yield %s : tensor<4x4xf32>
  }
  func.return %g, %h : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// A layer norm read only in bf16 (by the linears, which round their input
// anyway) is a group that stores bf16: the runtime's kernel rounds its
// result once, and the linear takes it without converting. One also read
// in fp32 (exp) stays a plain fp32 op.
// MIX-LABEL: func.func @norms
// MIX:         %[[N:[^ ]*]] = ge.fused "layer_norm"(%x, {{.*}}) : ({{.*}}) -> tensor<4x8xbf16> {
// MIX:           %[[N1:[^ ]*]] = ge.layer_norm {{.*}} -> tensor<4x8xf32>
// MIX-NEXT:      %[[N16:[^ ]*]] = ge.cast %[[N1]] : tensor<4x8xf32> -> tensor<4x8xbf16>
// MIX-NEXT:      ge.yield %[[N16]] : tensor<4x8xbf16>
// MIX:         ge.fused "linear"(%[[N]], {{.*}}) : (tensor<4x8xbf16>, tensor<8x8xbf16>) -> tensor<4x8xf32>
// MIX:         %[[M:[^ ]*]] = ge.layer_norm {{.*}} -> tensor<4x8xf32>
// MIX-NEXT:    ge.exp %[[M]] : tensor<4x8xf32>
// BF16-LABEL: func.func @norms
// BF16:         %[[N:[^ ]*]] = ge.fused "layer_norm"(%x, {{.*}}) : ({{.*}}) -> tensor<4x8xbf16> {
// BF16:         ge.fused "linear"(%[[N]], {{.*}}) : (tensor<4x8xbf16>, tensor<8x8xbf16>) -> tensor<4x8xf32>
// BF16:         %[[M:[^ ]*]] = ge.layer_norm {{.*}} -> tensor<4x8xf32>
// BF16-NEXT:    ge.exp %[[M]] : tensor<4x8xf32>
func.func @norms(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %g = ge.const dense<1.0> : tensor<8xf32>
  %b = ge.const dense<0.0> : tensor<8xf32>
  %w = ge.const dense<0.5> : tensor<8x8xf32>
  %n = ge.layer_norm %x, %g, %b {normalized_shape = array<i64: 8>, epsilon = 1.000000e-05 : f64} : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %l = ge.linear %n, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %m = ge.layer_norm %l, %g, %b {normalized_shape = array<i64: 8>, epsilon = 1.000000e-05 : f64} : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %e = ge.exp %m : tensor<4x8xf32>
  %k = ge.linear %m, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  func.return %e, %k : tensor<4x8xf32>, tensor<4x8xf32>
}
