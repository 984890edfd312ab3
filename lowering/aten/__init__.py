"""The ATen -> GE table: one entry per ATen overload, builders grouped by family.

    math.py     elementwise ops, comparisons, casts, reductions, scans, sorting,
                tensor creation
    nn.py       convolutions, normalization, pooling, resizing, embedding, matmuls
    shape.py    views, permutations, broadcasts, slices, concatenation, pads,
                gathers and scatters
    control.py  torch.cond, while_loop, custom ops and FX plumbing

Adding an op is one builder (often a one-line factory call) plus one line here.
Ops missing from the table can still run through `npu_graph.custom_op`.
"""

from __future__ import annotations

import operator
from typing import Any

import torch

from ge_dialect import ge
from lowering.aten import control, math, nn, shape
from lowering.aten.common import Builder, in_place

aten = torch.ops.aten
higher_order = torch.ops.higher_order

ATEN_TO_GE: dict[Any, Builder] = {
    # ---- elementwise (core ATen)
    aten.relu.default: math.unary(ge.ReluOp),
    aten.sigmoid.default: math.unary(ge.SigmoidOp),
    aten.tanh.default: math.unary(ge.TanhOp),
    aten.exp.default: math.unary(ge.ExpOp),
    aten.log.default: math.unary(ge.LogOp),
    aten.sqrt.default: math.unary(ge.SqrtOp),
    aten.rsqrt.default: math.unary(ge.RsqrtOp),
    aten.neg.default: math.unary(ge.NegOp),
    aten.abs.default: math.unary(ge.AbsOp),
    aten.erf.default: math.unary(ge.ErfOp),
    aten.sin.default: math.unary(ge.SinOp),
    aten.cos.default: math.unary(ge.CosOp),
    aten.tan.default: math.unary(ge.TanOp),
    aten.asin.default: math.unary(ge.AsinOp),
    aten.acos.default: math.unary(ge.AcosOp),
    aten.atan.default: math.unary(ge.AtanOp),
    aten.sinh.default: math.unary(ge.SinhOp),
    aten.cosh.default: math.unary(ge.CoshOp),
    aten.asinh.default: math.unary(ge.AsinhOp),
    aten.acosh.default: math.unary(ge.AcoshOp),
    aten.atanh.default: math.unary(ge.AtanhOp),
    aten.log1p.default: math.unary(ge.Log1pOp),
    aten.expm1.default: math.unary(ge.Expm1Op),
    aten.log2.default: math.unary(ge.Log2Op),
    aten.log10.default: math.unary(ge.Log10Op),
    aten.exp2.default: math.unary(ge.Exp2Op),
    aten.reciprocal.default: math.unary(ge.ReciprocalOp),
    aten.sign.default: math.unary(ge.SignOp),
    aten.floor.default: math.unary(ge.FloorOp),
    aten.ceil.default: math.unary(ge.CeilOp),
    aten.trunc.default: math.unary(ge.TruncOp),
    aten.erfc.default: math.unary(ge.ErfcOp),
    aten.erfinv.default: math.unary(ge.ErfinvOp),
    aten.lgamma.default: math.unary(ge.LgammaOp),
    aten.digamma.default: math.unary(ge.DigammaOp),
    aten.mish.default: math.unary(ge.MishOp),
    aten.sgn.default: math.unary(ge.SignOp),                # real tensors: sign
    aten.round.default: math.round_,
    aten.round.decimals: math.round_,
    aten.log_sigmoid_forward.default: math.log_sigmoid,
    aten.leaky_relu.default: math.leaky_relu,
    aten.elu.default: math.elu,                             # also SELU, CELU
    aten.softplus.default: math.softplus,
    aten.isnan.default: math.predicate(ge.IsNanOp),
    aten.isinf.default: math.predicate(ge.IsInfOp),
    aten.atan2.default: math.binary(ge.Atan2Op),
    aten.hypot.default: math.binary(ge.HypotOp),
    aten.copysign.Tensor: math.binary(ge.CopysignOp),
    aten.copysign.Scalar: math.binary(ge.CopysignOp),
    aten.fmod.Tensor: math.binary(ge.FmodOp),
    aten.fmod.Scalar: math.binary(ge.FmodOp),
    aten.remainder.Tensor: math.binary(ge.RemainderOp),
    aten.remainder.Scalar: math.binary(ge.RemainderOp),
    aten.div.Tensor_mode: math.div_mode,                    # floor / trunc division
    aten.div.Scalar_mode: math.div_mode,
    aten.floor_divide.default: lambda g, a: math.div_mode(g, {**a, "rounding_mode": "floor"}),
    aten.clamp.Tensor: math.clamp_tensor,
    aten.clamp_min.default: math.clamp_min,
    aten.clamp_min.Tensor: math.clamp_min,
    aten.clamp_max.default: math.clamp_max,
    aten.clamp_max.Tensor: math.clamp_max,
    aten.logical_xor.default: math.logical(ge.LogicalXorOp),
    aten.bitwise_xor.Tensor: math.logical(ge.LogicalXorOp),
    aten.gelu.default: math.gelu,
    aten.clamp.default: math.clamp,
    aten.hardtanh.default: math.hardtanh,                   # relu6 = hardtanh(0, 6)
    aten.add.Tensor: math.add,                              # x + alpha * y
    aten.add.Scalar: math.add,
    aten.sub.Tensor: math.sub,                              # x - alpha * y
    aten.sub.Scalar: math.sub,
    aten.rsub.Scalar: math.rsub,                            # other - alpha * x
    aten.rsub.Tensor: math.rsub,
    aten.mul.Tensor: math.binary(ge.MulOp),
    aten.mul.Scalar: math.binary(ge.MulOp),
    aten.div.Tensor: math.binary(ge.DivOp),
    aten.div.Scalar: math.binary(ge.DivOp),
    aten.pow.Tensor_Scalar: math.binary(ge.PowOp, "self", "exponent"),
    aten.pow.Tensor_Tensor: math.binary(ge.PowOp, "self", "exponent"),
    aten.maximum.default: math.binary(ge.MaximumOp),
    aten.minimum.default: math.binary(ge.MinimumOp),
    aten.eq.Scalar: math.compare("eq"),
    aten.eq.Tensor: math.compare("eq"),
    aten.ne.Scalar: math.compare("ne"),
    aten.ne.Tensor: math.compare("ne"),
    aten.lt.Scalar: math.compare("lt"),
    aten.lt.Tensor: math.compare("lt"),
    aten.le.Scalar: math.compare("le"),
    aten.le.Tensor: math.compare("le"),
    aten.gt.Scalar: math.compare("gt"),
    aten.gt.Tensor: math.compare("gt"),
    aten.ge.Scalar: math.compare("ge"),
    aten.ge.Tensor: math.compare("ge"),
    aten.logical_not.default: math.logical_not,
    aten.bitwise_not.default: math.logical_not,             # booleans only
    aten.logical_and.default: math.logical(ge.LogicalAndOp),
    aten.bitwise_and.Tensor: math.logical(ge.LogicalAndOp),
    aten.logical_or.default: math.logical(ge.LogicalOrOp),
    aten.bitwise_or.Tensor: math.logical(ge.LogicalOrOp),
    aten.where.self: math.where,
    aten._to_copy.default: math.to_copy,                    # a dtype change -> ge.cast
    # ---- reductions
    aten.sum.dim_IntList: math.reduction(ge.ReduceSumOp),
    aten.sum.default: math.reduction(ge.ReduceSumOp),
    aten.mean.dim: math.mean,                               # over H, W: global avg pool
    aten.mean.default: math.mean,
    aten.linalg_vector_norm.default: math.vector_norm,      # decomposed
    aten.amax.default: math.reduction(ge.ReduceMaxOp),
    aten.amin.default: math.reduction(ge.ReduceMinOp),
    aten.any.dim: math.reduction(ge.ReduceAnyOp),
    aten.any.dims: math.reduction(ge.ReduceAnyOp),
    aten.any.default: math.reduction(ge.ReduceAnyOp),
    aten.max.default: math.reduction(ge.ReduceMaxOp),       # of all elements
    aten.min.default: math.reduction(ge.ReduceMinOp),
    aten.max.dim: math.max_min_dim(ge.ReduceMaxOp, ge.ArgMaxOp),
    aten.min.dim: math.max_min_dim(ge.ReduceMinOp, ge.ArgMinOp),
    aten.prod.dim_int: math.reduction(ge.ReduceProdOp),
    aten.prod.default: math.reduction(ge.ReduceProdOp),
    aten.var.correction: math.var,                          # decomposed
    aten.std.correction: math.std,
    aten.var.dim: math.var,
    aten.std.dim: math.std,
    aten.argmax.default: math.arg_reduction(ge.ArgMaxOp),
    aten.argmin.default: math.arg_reduction(ge.ArgMinOp),
    # ---- scans and sorting
    aten.cumsum.default: math.cumulative(ge.CumsumOp),
    aten.cumprod.default: math.cumulative(ge.CumprodOp),
    aten.topk.default: math.topk,
    aten.sort.default: math.sort,
    aten.sort.stable: math.sort,
    # ---- tensor creation: evaluated at import, kept as (splat) constants
    aten.full.default: math.create,
    aten.scalar_tensor.default: math.create,
    aten.arange.start_step: math.arange,                    # symbolic end: ge.arange
    aten.arange.default: math.arange,
    aten.arange.start: math.arange,
    aten.full_like.default: math.full_like,
    # ---- neural network layers
    aten.convolution.default: nn.convolution,               # also transposed
    aten._native_batch_norm_legit_no_training.default: nn.batch_norm,
    aten.native_layer_norm.default: nn.layer_norm,          # output 0 only
    aten._softmax.default: nn.softmax,
    aten._safe_softmax.default: nn.safe_softmax,
    aten._log_softmax.default: math.log_softmax,
    aten.log_softmax.int: math.log_softmax,
    aten.embedding.default: nn.embedding,
    aten.max_pool2d_with_indices.default: nn.max_pool2d,    # output 0 only
    aten.max_pool3d_with_indices.default: nn.max_pool3d,    # output 0 only
    aten.avg_pool3d.default: nn.avg_pool3d,
    aten.native_group_norm.default: nn.group_norm,          # output 0 only
    aten.avg_pool2d.default: nn.avg_pool2d,
    aten._adaptive_avg_pool2d.default: nn.adaptive_avg_pool2d,
    aten.adaptive_max_pool2d.default: nn.adaptive_max_pool2d,  # output 0 only
    aten.upsample_nearest2d.vec: nn.upsample("nearest"),
    aten.upsample_bilinear2d.vec: nn.upsample("bilinear"),
    aten.addmm.default: nn.addmm,                           # b + x @ w.T -> ge.linear
    aten.mm.default: nn.mm,
    aten.bmm.default: nn.matmul("self", "mat2"),
    # ---- shapes and data movement
    aten.view.default: shape.reshape,
    aten._unsafe_view.default: shape.reshape,
    aten.reshape.default: shape.reshape,
    aten.squeeze.dim: shape.reshape,
    aten.squeeze.dims: shape.reshape,
    aten.unsqueeze.default: shape.reshape,
    aten.permute.default: shape.permute,                    # of a constant: folded
    aten.expand.default: shape.expand,
    aten.slice.Tensor: shape.slice_,
    aten.select.int: shape.select,
    aten.split_with_sizes.default: shape.split_with_sizes,
    aten.split.Tensor: shape.split,
    aten.cat.default: shape.cat,
    aten.flip.default: shape.flip,
    aten.repeat.default: shape.repeat,
    aten.index.Tensor: shape.index,                         # advanced indexing
    aten.index_put.default: shape.index_put,
    aten.index_select.default: shape.index_select,
    aten.gather.default: shape.gather,
    aten.scatter.src: shape.scatter(),
    aten.scatter.value: shape.scatter(),
    aten.scatter.reduce: shape.scatter(),
    aten.scatter.value_reduce: shape.scatter(),
    aten.scatter_add.default: shape.scatter("sum"),
    aten.scatter_reduce.two: shape.scatter(),
    aten.constant_pad_nd.default: shape.pad("constant"),
    aten.reflection_pad1d.default: shape.pad("reflect"),
    aten.reflection_pad2d.default: shape.pad("reflect"),
    aten.reflection_pad3d.default: shape.pad("reflect"),
    aten.replication_pad1d.default: shape.pad("replicate"),
    aten.replication_pad2d.default: shape.pad("replicate"),
    aten.replication_pad3d.default: shape.pad("replicate"),
    aten.clone.default: shape.identity,
    aten.alias.default: shape.identity,
    aten.detach.default: shape.identity,
    aten.lift_fresh_copy.default: shape.identity,
    # ---- control flow and plumbing
    higher_order.cond: control.cond,
    higher_order.while_loop: control.while_loop,
    operator.getitem: control.getitem,
    aten.sym_size.int: control.symbolic,                    # sizes come from node.meta
    operator.mul: control.symbolic,
    operator.add: control.symbolic,
    operator.sub: control.symbolic,
    operator.floordiv: control.symbolic,
    aten._assert_scalar.default: control.no_result,
    aten.sym_constrain_range_for_size.default: control.no_result,
    aten._assert_tensor_metadata.default: control.no_result,
    # ---- training IR (torch.export.export without run_decompositions)
    aten.conv2d.default: nn.convolution,
    aten.conv1d.default: nn.convolution,
    aten.conv3d.default: nn.convolution,
    aten.group_norm.default: nn.group_norm,
    aten.instance_norm.default: nn.instance_norm,
    aten.rms_norm.default: nn.rms_norm,
    aten.pad.default: shape.pad(),
    aten.max_pool3d.default: nn.max_pool3d,
    aten.conv_transpose2d.input: nn.conv_transpose2d,
    aten.batch_norm.default: nn.batch_norm,
    aten.layer_norm.default: nn.layer_norm,
    aten.softmax.int: nn.softmax,
    aten.max_pool2d.default: nn.max_pool2d,
    aten.adaptive_avg_pool2d.default: nn.adaptive_avg_pool2d,
    aten.flatten.using_ints: shape.flatten,
    aten.linear.default: nn.linear,
    aten.matmul.default: nn.matmul(),
    aten.t.default: shape.t,
    aten.transpose.int: shape.transpose,
    aten.contiguous.default: shape.identity,
    aten.dropout.default: nn.dropout,
    aten.relu6.default: math.relu6,
    aten.silu.default: math.unary(ge.SiluOp),
    aten.hardswish.default: math.unary(ge.HardswishOp),
    aten.hardsigmoid.default: math.unary(ge.HardsigmoidOp),
    aten.masked_fill.Scalar: math.masked_fill,
    aten.to.dtype: math.to_copy,
    aten.to.dtype_layout: math.to_copy,                     # .to(device): the dtype part
    aten.type_as.default: math.to_copy,
    aten.where.ScalarOther: math.where,
    aten.where.ScalarSelf: math.where,
    aten.where.Scalar: math.where,
    aten.min.other: math.binary(ge.MinimumOp),
    aten.max.other: math.binary(ge.MaximumOp),
    aten.adaptive_avg_pool1d.default: nn.adaptive_avg_pool1d,
    aten._weight_norm.default: math.fold,                   # of weights: computed at import
    aten.to.device: math.to_copy,
    aten.detach_.default: shape.identity,
    aten.add_.Tensor: in_place(math.add),                   # on intermediates only
    aten.mul_.Tensor: in_place(math.binary(ge.MulOp)),
    aten.zeros.default: math.create,
    aten.ones.default: math.create,
    aten.zeros_like.default: math.filled_like(0.0),
    aten.ones_like.default: math.filled_like(1.0),
    aten.tril.default: math.fold,                           # of constants only
    aten.triu.default: math.fold,
    aten.chunk.default: shape.chunk,
    aten.scaled_dot_product_attention.default: nn.scaled_dot_product_attention,
}

# Why some ops without an entry show up, so the user knows what to change.
HINTS = {
    aten._native_batch_norm_legit_functional.default:
        "batch norm in training mode; call model.eval() first",
    aten._native_batch_norm_legit.default:
        "batch norm without running statistics or in training mode",
    aten.native_dropout.default: "dropout in training mode; call model.eval() first",
}
