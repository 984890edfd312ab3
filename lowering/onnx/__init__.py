"""The ONNX -> GE table: one entry per (domain, op type), builders grouped by family.

    math.py     elementwise ops, comparisons, casts, reductions, scans
    nn.py       convolutions, pooling, normalization, softmax, attention, matmuls
    shape.py    shapes, data movement, gathers, scatters, pads, sorting
    resize.py   Resize (ge.interpolate, or separable gathered taps)
    rnn.py      RNN, GRU and LSTM, unrolled
    einsum.py   Einsum as matmuls, or broadcast products and sums
    quant.py    QuantizeLinear and DequantizeLinear (QDQ)
    control.py  If, Loop and Scan

Adding an op is one builder plus one line here; the importer is
`lowering/onnx_to_ge.py`. `Constant` is handled by the importer itself, and
the GE ops of a node whose inputs are all constants are run at import by the
runtime's kernels.
"""

from __future__ import annotations

from ge_dialect import ge
from lowering.onnx import control, einsum, math, nn, quant, resize, rnn, shape
from lowering.onnx.common import Builder, OnnxUnsupported

__all__ = ["ONNX_TO_GE", "OnnxUnsupported"]

_UNARY = {
    "Abs": ge.AbsOp, "Acos": ge.AcosOp, "Acosh": ge.AcoshOp, "Asin": ge.AsinOp,
    "Asinh": ge.AsinhOp, "Atan": ge.AtanOp, "Atanh": ge.AtanhOp, "Ceil": ge.CeilOp,
    "Cos": ge.CosOp, "Cosh": ge.CoshOp, "Erf": ge.ErfOp, "Exp": ge.ExpOp, "Floor": ge.FloorOp,
    "Log": ge.LogOp, "Neg": ge.NegOp, "Reciprocal": ge.ReciprocalOp, "Relu": ge.ReluOp,
    "Round": ge.RoundOp, "Sigmoid": ge.SigmoidOp, "Sign": ge.SignOp, "Sin": ge.SinOp,
    "Sinh": ge.SinhOp, "Sqrt": ge.SqrtOp, "Tan": ge.TanOp, "Tanh": ge.TanhOp,
    "HardSwish": ge.HardswishOp, "Mish": ge.MishOp, "IsNaN": ge.IsNanOp,
}
_BINARY = {
    "Add": ge.AddOp, "Sub": ge.SubOp, "Mul": ge.MulOp, "And": ge.LogicalAndOp,
    "Or": ge.LogicalOrOp, "Xor": ge.LogicalXorOp,
}

ONNX_TO_GE: dict[tuple[str, str], Builder] = {
    **{("", name): math.unary(cls) for name, cls in _UNARY.items()},
    **{("", name): math.binary(cls) for name, cls in _BINARY.items()},
    # ---- elementwise
    ("", "Div"): math.div,
    ("", "Mod"): math.mod,
    ("", "Pow"): math.power,
    ("", "Equal"): math.compare("eq"),
    ("", "Greater"): math.compare("gt"),
    ("", "Less"): math.compare("lt"),
    ("", "GreaterOrEqual"): math.compare("ge"),
    ("", "LessOrEqual"): math.compare("le"),
    ("", "Not"): math.logical_not,
    ("", "Where"): math.where,
    ("", "Max"): math.variadic(ge.MaximumOp),
    ("", "Min"): math.variadic(ge.MinimumOp),
    ("", "Sum"): math.variadic(ge.AddOp),
    ("", "Mean"): math.variadic(ge.AddOp, mean=True),
    ("", "Clip"): math.clip,
    ("", "Cast"): math.cast,
    ("", "CastLike"): math.cast_like,
    ("", "Identity"): math.identity,
    ("", "LeakyRelu"): math.leaky_relu,
    ("", "Elu"): math.elu,
    ("", "Selu"): math.selu,
    ("", "Celu"): math.celu,
    ("", "Gelu"): math.unary(ge.GeluOp, approximate=("approximate", "none")),
    ("", "HardSigmoid"): math.hard_sigmoid,
    ("", "Softsign"): math.softsign,
    ("", "Softplus"): math.softplus,
    ("", "PRelu"): math.prelu,
    ("", "ThresholdedRelu"): math.thresholded_relu,
    ("", "IsInf"): math.is_inf,
    ("", "Swish"): math.swish,
    ("", "Shrink"): math.shrink,
    ("", "EyeLike"): math.eye_like,
    # ---- reductions and scans
    ("", "ReduceSum"): math.reduction(ge.ReduceSumOp),
    ("", "ReduceMean"): math.reduction(ge.ReduceMeanOp),
    ("", "ReduceMax"): math.reduction(ge.ReduceMaxOp),
    ("", "ReduceMin"): math.reduction(ge.ReduceMinOp),
    ("", "ReduceProd"): math.reduction(ge.ReduceProdOp),
    ("", "ReduceL1"): math.reduce_composite("l1"),
    ("", "ReduceL2"): math.reduce_composite("l2"),
    ("", "ReduceSumSquare"): math.reduce_composite("sum_square"),
    ("", "ReduceLogSum"): math.reduce_composite("log_sum"),
    ("", "ReduceLogSumExp"): math.reduce_composite("log_sum_exp"),
    ("", "ArgMax"): math.arg_reduction(ge.ArgMaxOp),
    ("", "ArgMin"): math.arg_reduction(ge.ArgMinOp),
    ("", "CumSum"): math.cumulative(ge.CumsumOp, 0.0),
    ("", "CumProd"): math.cumulative(ge.CumprodOp, 1.0),
    ("", "OneHot"): math.one_hot,
    ("", "Trilu"): math.trilu,
    # ---- neural network layers
    ("", "Conv"): nn.conv,
    ("", "ConvTranspose"): nn.conv_transpose,
    ("", "MaxPool"): nn.max_pool,
    ("", "AveragePool"): nn.average_pool,
    ("", "GlobalAveragePool"): nn.global_pool(ge.ReduceMeanOp),
    ("", "GlobalMaxPool"): nn.global_pool(ge.ReduceMaxOp),
    ("", "BatchNormalization"): nn.batch_norm,
    ("", "InstanceNormalization"): nn.instance_norm,
    ("", "LayerNormalization"): nn.layer_norm,
    ("", "LRN"): nn.lrn,
    ("", "Softmax"): nn.softmax(ge.SoftmaxOp),
    ("", "LogSoftmax"): nn.softmax(ge.LogSoftmaxOp),
    ("", "Hardmax"): nn.hardmax,
    ("", "LpNormalization"): nn.lp_normalization,
    ("", "Resize"): resize.resize,
    ("", "GroupNormalization"): nn.group_norm,
    ("", "RMSNormalization"): nn.rms_norm,
    ("", "GridSample"): nn.grid_sample,
    ("", "LpPool"): nn.lp_pool,
    ("", "MeanVarianceNormalization"): nn.mean_variance_normalization,
    ("", "MatMul"): nn.matmul,
    ("", "Einsum"): einsum.einsum,
    ("", "Attention"): nn.attention,
    ("", "RotaryEmbedding"): nn.rotary_embedding,
    ("", "AffineGrid"): nn.affine_grid,
    ("", "Gemm"): nn.gemm,
    ("", "QuantizeLinear"): quant.quantize_linear,
    ("", "DequantizeLinear"): quant.dequantize_linear,
    ("", "Dropout"): nn.dropout,
    ("", "RNN"): rnn.recurrent("RNN"),
    ("", "GRU"): rnn.recurrent("GRU"),
    ("", "LSTM"): rnn.recurrent("LSTM"),
    # ---- shapes and data movement
    ("", "Reshape"): shape.reshape,
    ("", "Flatten"): shape.flatten,
    ("", "Transpose"): shape.transpose,
    ("", "Squeeze"): shape.squeeze,
    ("", "Unsqueeze"): shape.unsqueeze,
    ("", "Concat"): shape.concat,
    ("", "Split"): shape.split,
    ("", "Slice"): shape.slice_,
    ("", "Expand"): shape.expand,
    ("", "Tile"): shape.tile,
    ("", "Shape"): shape.shape,
    ("", "Size"): shape.size,
    ("", "ConstantOfShape"): shape.constant_of_shape,
    ("", "Range"): shape.range_,
    ("", "Gather"): shape.gather,
    ("", "GatherElements"): shape.gather_elements,
    ("", "GatherND"): shape.gather_nd,
    ("", "ScatterElements"): shape.scatter_elements,
    ("", "ScatterND"): shape.scatter_nd,
    ("", "Pad"): shape.pad,
    ("", "TopK"): shape.topk,
    ("", "DepthToSpace"): shape.depth_to_space,
    ("", "SpaceToDepth"): shape.space_to_depth,
    ("", "CenterCropPad"): shape.center_crop_pad,
    # ---- control flow
    ("", "If"): control.if_,
    ("", "Loop"): control.loop,
    ("", "Scan"): control.scan,
}
