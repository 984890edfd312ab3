// RUN: ge-opt %s --split-input-file -p 'precision-mode{mode=force_fp32}' | filecheck %s --check-prefix=F32
// RUN: ge-opt %s --split-input-file -p 'precision-mode{mode=allow_fp32_to_fp16}' | filecheck %s --check-prefix=FP16
// RUN: ge-opt %s --split-input-file -p 'precision-mode{mode=allow_mix_precision},canonicalize' | filecheck %s --check-prefix=MIX

// An fp32 graph. force_fp32: unchanged.
// allow_fp32_to_fp16: the cube op (linear) in fp16, its weights converted at
// compile time, its result cast back; the vector ops stay fp32.
// allow_mix_precision: relu (trustlist) and reshape (graylist, its producer is
// fp16) join it; softmax (blocklist) stays fp32; no cast pair is left between
// fp16 ops.
// F32-LABEL: func.func @mlp
// F32-NOT:     ge.cast
// F32:         ge.linear %x, %w, %b : tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32> -> tensor<2x4xf32>
// F32-NOT:     ge.cast
// The cube op and the casts only it reads or feeds become one group (one task
// whose kernel converts its input and stores its output type).
// FP16-LABEL: func.func @mlp
// FP16-NEXT:    %[[W:[^ ]*]] = ge.const dense<5.000000e-01> : tensor<4x8xf16>
// FP16-NEXT:    %[[B:[^ ]*]] = ge.const dense<2.500000e-01> : tensor<4xf16>
// FP16-NEXT:    %[[G:[^ ]*]] = ge.fused "linear"(%x, %[[W]], %[[B]]) : (tensor<2x8xf32>, tensor<4x8xf16>, tensor<4xf16>) -> tensor<2x4xf32> {
// FP16-NEXT:    ^bb0(%[[XA:[^ ]*]]: tensor<2x8xf32>, %[[WA:[^ ]*]]: tensor<4x8xf16>, %[[BA:[^ ]*]]: tensor<4xf16>):
// FP16-NEXT:      %[[X:[^ ]*]] = ge.cast %[[XA]] : tensor<2x8xf32> -> tensor<2x8xf16>
// FP16-NEXT:      %[[L:[^ ]*]] = ge.linear %[[X]], %[[WA]], %[[BA]] : tensor<2x8xf16>, tensor<4x8xf16>, tensor<4xf16> -> tensor<2x4xf16>
// FP16-NEXT:      %[[L32:[^ ]*]] = ge.cast %[[L]] : tensor<2x4xf16> -> tensor<2x4xf32>
// FP16-NEXT:      ge.yield %[[L32]] : tensor<2x4xf32>
// FP16-NEXT:    }
// FP16-NEXT:    %[[R:[^ ]*]] = ge.relu %[[G]] : tensor<2x4xf32>
// FP16-NEXT:    %[[S:[^ ]*]] = ge.reshape %[[R]] : tensor<2x4xf32> -> tensor<8xf32>
// FP16-NEXT:    ge.softmax %[[S]] {dim = 0 : i64} : tensor<8xf32>
// MIX-LABEL: func.func @mlp
// MIX-NEXT:    ge.const
// MIX-NEXT:    ge.const
// MIX-NEXT:    %[[L:[^ ]*]] = ge.fused "linear"(%x, {{.*}}) -> tensor<2x4xf16> {
// MIX:           ge.cast %{{[^ ]*}} : tensor<2x8xf32> -> tensor<2x8xf16>
// MIX-NEXT:      %[[L1:[^ ]*]] = ge.linear {{.*}} -> tensor<2x4xf16>
// MIX-NEXT:      ge.yield %[[L1]] : tensor<2x4xf16>
// MIX-NEXT:    }
// MIX-NEXT:    %[[R:[^ ]*]] = ge.relu %[[L]] : tensor<2x4xf16>
// MIX-NEXT:    %[[S:[^ ]*]] = ge.reshape %[[R]] : tensor<2x4xf16> -> tensor<8xf16>
// MIX-NEXT:    %[[S32:[^ ]*]] = ge.cast %[[S]] : tensor<8xf16> -> tensor<8xf32>
// MIX-NEXT:    %[[P:[^ ]*]] = ge.softmax %[[S32]] {dim = 0 : i64} : tensor<8xf32>
// MIX-NEXT:    func.return %[[P]] : tensor<8xf32>
func.func @mlp(%x: tensor<2x8xf32>) -> tensor<8xf32> {
  %w = ge.const dense<0.5> : tensor<4x8xf32>
  %b = ge.const dense<0.25> : tensor<4xf32>
  %l = ge.linear %x, %w, %b : tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32> -> tensor<2x4xf32>
  %r = ge.relu %l : tensor<2x4xf32>
  %s = ge.reshape %r : tensor<2x4xf32> -> tensor<8xf32>
  %p = ge.softmax %s {dim = 0 : i64} : tensor<8xf32>
  func.return %p : tensor<8xf32>
}

// -----

// After op-fusion: the casts go inside the group (one kernel), and the group
// takes its constant weights already in fp16 instead of the fp32 ones.
// F32-LABEL: func.func @fused
// F32-NOT:     ge.cast
// FP16-LABEL: func.func @fused
// FP16-NEXT:    %[[W:[^ ]*]] = ge.const dense<5.000000e-01> : tensor<4x3x1x1xf16>
// FP16-NEXT:    ge.fused "conv2d_relu"(%x, %[[W]]) : (tensor<1x3x4x4xf32>, tensor<4x3x1x1xf16>) -> tensor<1x4x4x4xf32> {
// FP16-NEXT:    ^bb0(%[[A:[^ ]*]]: tensor<1x3x4x4xf32>, %[[K:[^ ]*]]: tensor<4x3x1x1xf16>):
// FP16-NEXT:      %[[A16:[^ ]*]] = ge.cast %[[A]] : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf16>
// FP16-NEXT:      %[[C:[^ ]*]] = ge.conv2d %[[A16]], %[[K]] {{.*}} -> tensor<1x4x4x4xf16>
// FP16-NEXT:      %[[C32:[^ ]*]] = ge.cast %[[C]] : tensor<1x4x4x4xf16> -> tensor<1x4x4x4xf32>
// FP16-NEXT:      %[[R:[^ ]*]] = ge.relu %[[C32]] : tensor<1x4x4x4xf32>
// FP16-NEXT:      ge.yield %[[R]] : tensor<1x4x4x4xf32>
// MIX-LABEL: func.func @fused
// MIX:           %[[R:[^ ]*]] = ge.relu %{{[^ ]*}} : tensor<1x4x4x4xf16>
// MIX-NEXT:      %[[R32:[^ ]*]] = ge.cast %[[R]] : tensor<1x4x4x4xf16> -> tensor<1x4x4x4xf32>
// MIX-NEXT:      ge.yield %[[R32]] : tensor<1x4x4x4xf32>
func.func @fused(%x: tensor<1x3x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %w = ge.const dense<0.5> : tensor<4x3x1x1xf32>
  %f = ge.fused "conv2d_relu"(%x, %w) : (tensor<1x3x4x4xf32>, tensor<4x3x1x1xf32>) -> tensor<1x4x4x4xf32> {
  ^bb0(%a: tensor<1x3x4x4xf32>, %k: tensor<4x3x1x1xf32>):
    %c = ge.conv2d %a, %k {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x4x4xf32>, tensor<4x3x1x1xf32> -> tensor<1x4x4x4xf32>
    %r = ge.relu %c : tensor<1x4x4x4xf32>
    ge.yield %r : tensor<1x4x4x4xf32>
  }
  func.return %f : tensor<1x4x4x4xf32>
}

// -----

// An fp16 graph. force_fp32 computes every op in fp32: the input is cast up
// once, the weights are converted at compile time, the matmul's result stays
// fp32 into the add (no fp16 rounding between them), one cast back at the end.
// The fp32 modes leave an fp16 graph alone.
// F32-LABEL: func.func @half
// F32-NEXT:    %[[W:[^ ]*]] = ge.const dense<5.000000e-01> : tensor<8x4xf32>
// F32-NEXT:    %[[M:[^ ]*]] = ge.fused "matmul"(%x, %[[W]]) : (tensor<2x8xf16>, tensor<8x4xf32>) -> tensor<2x4xf32> {
// F32-NEXT:    ^bb0(%[[XA:[^ ]*]]: tensor<2x8xf16>, %[[WA:[^ ]*]]: tensor<8x4xf32>):
// F32-NEXT:      %[[X:[^ ]*]] = ge.cast %[[XA]] : tensor<2x8xf16> -> tensor<2x8xf32>
// F32-NEXT:      %[[M1:[^ ]*]] = ge.matmul %[[X]], %[[WA]] : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
// F32-NEXT:      ge.yield %[[M1]] : tensor<2x4xf32>
// F32-NEXT:    }
// F32-NEXT:    %[[A:[^ ]*]] = ge.add %[[M]], %[[M]] : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<2x4xf32>
// F32-NEXT:    %[[A16:[^ ]*]] = ge.cast %[[A]] : tensor<2x4xf32> -> tensor<2x4xf16>
// F32-NEXT:    func.return %[[A16]] : tensor<2x4xf16>
// FP16-LABEL: func.func @half
// FP16-NOT:    ge.cast
// MIX-LABEL: func.func @half
// MIX-NOT:     ge.cast
func.func @half(%x: tensor<2x8xf16>) -> tensor<2x4xf16> {
  %w = ge.const dense<0.5> : tensor<8x4xf16>
  %m = ge.matmul %x, %w : tensor<2x8xf16>, tensor<8x4xf16> -> tensor<2x4xf16>
  %a = ge.add %m, %m : tensor<2x4xf16>, tensor<2x4xf16> -> tensor<2x4xf16>
  func.return %a : tensor<2x4xf16>
}

// -----

// Negative: integer arithmetic, blocklisted ops, a graylist op whose producer
// is fp32, and ops inside control flow are never touched.
// F32-LABEL: func.func @untouched
// F32-NOT:     ge.cast
// FP16-LABEL: func.func @untouched
// FP16-NOT:    ge.cast
// MIX-LABEL: func.func @untouched
// MIX-NEXT:    ge.add %i, %i : tensor<4xi64>, tensor<4xi64> -> tensor<4xi64>
// MIX-NEXT:    ge.exp %x : tensor<4xf32>
// MIX-NEXT:    ge.reshape %{{[^ ]*}} : tensor<4xf32> -> tensor<2x2xf32>
// MIX-NEXT:    ge.if
// MIX-NEXT:    ^bb0
// MIX-NEXT:      ge.relu %{{[^ ]*}} : tensor<4xf32>
// MIX-NOT:     ge.cast
func.func @untouched(%x: tensor<4xf32>, %i: tensor<4xi64>, %p: tensor<i1>) -> (tensor<4xi64>, tensor<2x2xf32>, tensor<4xf32>) {
  %j = ge.add %i, %i : tensor<4xi64>, tensor<4xi64> -> tensor<4xi64>
  %e = ge.exp %x : tensor<4xf32>
  %s = ge.reshape %e : tensor<4xf32> -> tensor<2x2xf32>
  %y = ge.if %p(%x) : tensor<i1>, (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %r = ge.relu %a : tensor<4xf32>
    ge.yield %r : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>):
    ge.yield %a : tensor<4xf32>
  }
  func.return %j, %s, %y : tensor<4xi64>, tensor<2x2xf32>, tensor<4xf32>
}

// A mode GE does not have is an option error: one line, exit 1.
// RUN: not ge-opt %s -p 'precision-mode{mode=force_fp16}' 2>&1 | filecheck %s --check-prefix=BAD
// BAD: ge-opt: error: precision-mode: mode must be one of must_keep_origin_dtype, force_fp32, allow_fp32_to_fp16, allow_mix_precision, allow_fp32_to_bf16, allow_mix_precision_bf16, got 'force_fp16'
