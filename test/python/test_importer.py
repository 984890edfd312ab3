"""Tests for lowering/torch_to_ge.py: the PyTorch -> GE importer."""

import inspect
import os
from collections import Counter

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.export import Dim
from xdsl.dialects import func
from xdsl.dialects.builtin import DYNAMIC_INDEX, ModuleOp
from xdsl.parser import Parser

from ge_dialect import ge, make_context
from lowering.torch_to_ge import (
    ATEN_TO_GE,
    GEImportError,
    UnsupportedOpError,
    import_module,
    import_program,
)
from npu_graph.compiler import lower, optimize
from runtime.executor import Executable
from runtime.reference import evaluate
from test.models import article, resnet_block, tiny_resnet

THIS_FILE = os.path.basename(__file__)


# --------------------------------------------------------------------------
# Helpers


def main_func(module: ModuleOp) -> func.FuncOp:
    (fn,) = module.ops
    assert isinstance(fn, func.FuncOp) and fn.sym_name.data == "main"
    return fn


def op_counts(module: ModuleOp) -> Counter:
    return Counter(op.name for op in main_func(module).body.block.ops)


def consts_by_name(module: ModuleOp) -> dict[str, np.ndarray]:
    out = {}
    for op in main_func(module).body.block.ops:
        if isinstance(op, ge.ConstOp):
            attr = op.value
            out[op.output.name_hint] = np.frombuffer(attr.data.data, np.float32).reshape(
                attr.get_shape())
    return out


def reparse(module: ModuleOp) -> ModuleOp:
    parsed = Parser(make_context(), str(module)).parse_module()
    parsed.verify()
    return parsed


def line_of(fn, text: str) -> int:
    """Line number in this file of the source line of `fn` containing `text`."""
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, ln in enumerate(lines) if text in ln)


def assert_matches_torch(module, model, *inputs):
    with torch.no_grad():
        expected = model(*inputs)
    expected = expected if isinstance(expected, tuple) else (expected,)
    got = evaluate(module, *inputs)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        torch.testing.assert_close(g, e, atol=1e-4, rtol=1e-4)


@pytest.fixture(scope="module")
def article_case():
    model, inputs = article.make()
    return model, inputs, import_module(model, inputs)


@pytest.fixture(scope="module")
def block_case():
    model, inputs = resnet_block.make()
    return model, inputs, import_module(model, inputs)


@pytest.fixture(scope="module")
def resnet_case():
    model, inputs = tiny_resnet.make()
    return model, inputs, import_module(model, inputs)


# --------------------------------------------------------------------------
# The model zoo


def test_article_model_is_conv_bn_relu(article_case):
    _, _, module = article_case
    module.verify()
    counts = op_counts(module)
    assert counts["ge.conv2d"] == 1
    assert counts["ge.batch_norm"] == 1
    assert counts["ge.relu"] == 1
    assert counts["ge.const"] == 6  # conv weight, bias; bn weight, bias, mean, var
    assert set(counts) == {"ge.const", "ge.conv2d", "ge.batch_norm", "ge.relu", "func.return"}
    fn = main_func(module)
    assert str(fn.function_type) == "(tensor<1x3x224x224xf32>) -> tensor<1x64x224x224xf32>"
    conv = next(op for op in fn.body.block.ops if isinstance(op, ge.Conv2dOp))
    assert conv.padding.get_values() == (1, 1) and conv.stride.get_values() == (1, 1)
    assert conv.bias is not None


def test_weights_round_trip_bit_exact(article_case, resnet_case):
    for model, _, module in (article_case, resnet_case):
        consts = consts_by_name(module)
        state = {k.replace(".", "_"): v for k, v in model.state_dict().items()
                 if "num_batches_tracked" not in k}
        assert set(consts) == set(state)
        for name, tensor in state.items():
            assert consts[name].dtype == np.float32
            assert np.array_equal(consts[name], tensor.numpy()), name
            assert consts[name].tobytes() == tensor.numpy().tobytes(), name


def test_constants_come_first_in_first_use_order(article_case):
    ops = list(main_func(article_case[2]).body.block.ops)
    names = [op.output.name_hint for op in ops if isinstance(op, ge.ConstOp)]
    assert names == ["conv_weight", "conv_bias", "bn_weight", "bn_bias",
                     "bn_running_mean", "bn_running_var"]
    assert all(isinstance(op, ge.ConstOp) for op in ops[:6])
    assert not any(isinstance(op, ge.ConstOp) for op in ops[6:])


def test_readable_value_names(article_case):
    text = str(article_case[2])
    assert "%conv_weight = ge.const" in text
    assert "%batch_norm = ge.batch_norm %conv2d, %bn_weight, %bn_bias, " \
           "%bn_running_mean, %bn_running_var" in text
    assert "%relu = ge.relu %batch_norm" in text


def test_basic_block_has_residual_and_downsample(block_case):
    _, _, module = block_case
    module.verify()
    counts = op_counts(module)
    assert (counts["ge.conv2d"], counts["ge.batch_norm"]) == (3, 3)
    assert (counts["ge.relu"], counts["ge.add"]) == (2, 1)
    convs = [op for op in main_func(module).body.block.ops if isinstance(op, ge.Conv2dOp)]
    kernels = sorted(ge.shape_of(c.weight)[2:] for c in convs)
    assert kernels == [(1, 1), (3, 3), (3, 3)]
    add = next(op for op in main_func(module).body.block.ops if isinstance(op, ge.AddOp))
    assert {add.lhs.owner.name, add.rhs.owner.name} == {"ge.batch_norm"}


def test_tiny_resnet_ops(resnet_case):
    _, _, module = resnet_case
    module.verify()
    counts = op_counts(module)
    assert counts["ge.conv2d"] == 6 and counts["ge.batch_norm"] == 6
    assert counts["ge.max_pool2d"] == 1 and counts["ge.adaptive_avg_pool2d"] == 1
    assert counts["ge.flatten"] == 1 and counts["ge.add"] == 2
    # nn.Linear exports as permute + addmm and must come back as one ge.linear
    # on the untransposed weight.
    assert counts["ge.linear"] == 1 and counts["ge.matmul"] == 0
    linear = next(op for op in main_func(module).body.block.ops if isinstance(op, ge.LinearOp))
    assert linear.weight.name_hint == "fc_weight" and linear.bias.name_hint == "fc_bias"
    assert str(main_func(module).function_type) == "(tensor<2x3x32x32xf32>) -> tensor<2x10xf32>"


@pytest.mark.parametrize("case", ["article_case", "block_case", "resnet_case"])
def test_printed_ir_reparses(case, request):
    module = request.getfixturevalue(case)[2]
    parsed = reparse(module)
    assert str(parsed) == str(module)
    before, after = consts_by_name(module), consts_by_name(parsed)
    assert before.keys() == after.keys()
    assert all(before[k].tobytes() == after[k].tobytes() for k in before)


@pytest.mark.parametrize("case", ["article_case", "block_case", "resnet_case"])
def test_numerics_match_pytorch(case, request):
    model, inputs, module = request.getfixturevalue(case)
    assert_matches_torch(module, model, *inputs)


def test_training_ir_imports_too(resnet_case):
    """import_program also takes the undecomposed export (aten.conv2d, aten.linear, ...)."""
    model, inputs, decomposed = resnet_case
    module = import_program(torch.export.export(model, inputs))
    module.verify()
    assert op_counts(module) == op_counts(decomposed)
    assert_matches_torch(module, model, *inputs)


def test_import_decomposes_only_when_the_training_ir_has_an_unmapped_op(monkeypatch):
    from torch.export import ExportedProgram

    from lowering.aten import ATEN_TO_GE

    model, x = nn.Sequential(nn.Linear(4, 3), nn.ReLU()).eval(), torch.randn(2, 4)
    decompositions = []
    real = ExportedProgram.run_decompositions
    monkeypatch.setattr(ExportedProgram, "run_decompositions",
                        lambda self, *a, **k: decompositions.append(1) or real(self, *a, **k))
    assert_matches_torch(import_module(model, (x,)), model, x)
    assert decompositions == []
    monkeypatch.delitem(ATEN_TO_GE, torch.ops.aten.linear.default)  # core ATen: permute + addmm
    assert_matches_torch(import_module(model, (x,)), model, x)
    assert decompositions == [1]


# --------------------------------------------------------------------------
# Dynamic shapes


def test_dynamic_batch_imports_as_question_mark():
    model, inputs = tiny_resnet.make()
    module = import_module(model, inputs, dynamic_shapes=({0: Dim("batch")},))
    module.verify()
    fn = main_func(module)
    (arg,) = fn.function_type.inputs.data
    (res,) = fn.function_type.outputs.data
    assert arg.get_shape() == (DYNAMIC_INDEX, 3, 32, 32)
    assert res.get_shape() == (DYNAMIC_INDEX, 10)
    assert "func.func @main(%x: tensor<?x3x32x32xf32>) -> tensor<?x10xf32>" in str(module)
    assert op_counts(module)["ge.flatten"] == 1  # the view [s0, 32] is recognized as flatten
    reparse(module)
    x = torch.randn(3, 3, 32, 32)  # a batch size other than the example's
    assert_matches_torch(module, model, x)


# --------------------------------------------------------------------------
# Op coverage beyond the zoo


class ScalarArithmetic(nn.Module):
    def forward(self, x, y):
        z = x * 2.0 + 1.0
        z = torch.add(z, y, alpha=3)
        return z - y, z.mul(0.5)


class Matmuls(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 4, bias=False)
        self.w = nn.Parameter(torch.randn(8, 6))

    def forward(self, a, b):
        c = torch.bmm(a, b)                    # [2, 3, 5] @ [2, 5, 8]
        d = torch.matmul(c, self.w)            # 3-D @ 2-D
        e = self.proj(c.reshape(6, 8))         # permute + mm -> ge.linear without bias
        f = torch.addmm(torch.ones(4), e, torch.ones(4, 4), beta=0.5, alpha=2.0)
        return d, f


class PoolingZoo(nn.Module):
    def __init__(self):
        super().__init__()
        self.dw = nn.Conv2d(4, 4, 3, padding=2, dilation=2, groups=4)
        self.bn = nn.BatchNorm2d(4, affine=False)
        self.ap = nn.AdaptiveAvgPool2d((2, 2))

    def forward(self, x):
        y = self.bn(self.dw(x))
        p = F.max_pool2d(y, 3, ceil_mode=True)          # stride defaults to kernel
        return self.ap(y), p, y.mean(dim=(2, 3)), y.clone().detach().contiguous()


@pytest.mark.parametrize("make", [
    lambda: (ScalarArithmetic(), (torch.randn(2, 4), torch.randn(2, 4))),
    lambda: (Matmuls(), (torch.randn(2, 3, 5), torch.randn(2, 5, 8))),
    lambda: (PoolingZoo(), (torch.randn(1, 4, 9, 9),)),
], ids=["scalars", "matmuls", "pooling"])
def test_op_coverage_numerics(make):
    torch.manual_seed(0)
    model, inputs = make()
    if isinstance(model, PoolingZoo):
        with torch.no_grad():
            model.bn.running_mean.normal_()
            model.bn.running_var.uniform_(0.5, 2.0)
    module = import_module(model, inputs)
    module.verify()
    reparse(module)
    assert_matches_torch(module, model, *inputs)


def test_scalars_become_0d_constants():
    module = import_module(ScalarArithmetic(), (torch.randn(2, 4), torch.randn(2, 4)))
    text = str(module)
    assert "ge.const dense<2.000000e+00> : tensor<f32>" in text
    assert "ge.const dense<3.000000e+00> : tensor<f32>" in text  # alpha
    assert op_counts(module)["ge.const"] == 5  # 2, 1, 3 (alpha), -1 (sub), 0.5


def test_bias_free_linear_and_matmuls():
    module = import_module(Matmuls(), (torch.randn(2, 3, 5), torch.randn(2, 5, 8)))
    counts = op_counts(module)
    assert counts["ge.linear"] == 1
    assert counts["ge.matmul"] == 3  # bmm, matmul, addmm with alpha/beta
    linear = next(op for op in main_func(module).body.block.ops if isinstance(op, ge.LinearOp))
    assert linear.bias is None and linear.weight.name_hint == "proj_weight"


def test_table_has_one_builder_per_overload():
    assert all(callable(b) for b in ATEN_TO_GE.values())
    assert torch.ops.aten.convolution.default in ATEN_TO_GE
    assert torch.ops.aten._native_batch_norm_legit_no_training.default in ATEN_TO_GE


# --------------------------------------------------------------------------
# Errors


class ThreeUnsupported(nn.Module):
    def forward(self, x):
        a = torch.logcumsumexp(x, dim=1)
        b, _ = torch.nanmedian(x, dim=1, keepdim=True)
        c = torch.cummin(x, dim=0)[0]
        d = torch.logcumsumexp(a, dim=0)
        return torch.relu(a + b + c + d)


def test_all_unsupported_ops_reported_at_once():
    with pytest.raises(UnsupportedOpError) as info:
        import_module(ThreeUnsupported(), (torch.randn(3, 4),))
    err = info.value
    assert isinstance(err, GEImportError)
    assert [(op.op, op.count) for op in err.ops] == [
        ("aten.logcumsumexp.default", 2), ("aten.nanmedian.dim", 1), ("aten.cummin.default", 1)]
    msg = str(err)
    assert "3 unsupported PyTorch ops" in msg
    assert "register a kernel with npu_graph.custom_op(...)" in msg
    fwd = ThreeUnsupported.forward
    for text in ("torch.logcumsumexp(x, dim=1)", "torch.nanmedian(x, dim=1, keepdim=True)",
                 "torch.cummin(x, dim=0)[0]"):
        assert f"{THIS_FILE}:{line_of(fwd, text)}: " in msg
        assert text in msg
    assert "aten.logcumsumexp.default x2" in msg and "first at node 'logcumsumexp'" in msg


def test_op_inside_a_torch_module_is_located_by_module_path():
    model = nn.Sequential(nn.Conv2d(4, 4, 1), nn.Flatten(2), nn.ConvTranspose1d(4, 4, 3))
    with pytest.raises(UnsupportedOpError, match="1-D transposed convolution") as info:
        import_module(model, (torch.randn(1, 4, 4, 4),))
    assert info.value.ops[0].op.startswith("aten.")
    # The source line is inside torch, so the module path stands in for it.
    assert "in module '2' (ConvTranspose1d)" in str(info.value)


class DataDependent(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return x


def test_export_failure_is_one_clear_line():
    with pytest.raises(GEImportError) as info:
        import_module(DataDependent(), (torch.randn(2),))
    msg = str(info.value)
    assert msg.startswith("torch.export could not trace DataDependent: ")
    assert "\n" not in msg
    assert info.value.__cause__ is not None  # the original error stays chained


class AddIndex(nn.Module):
    def forward(self, x, i):
        return x + i


def test_integer_input_is_promoted_with_an_explicit_cast():
    x, i = torch.randn(3), torch.arange(3)
    module = import_module(AddIndex(), (x, i))
    module.verify()
    assert "ge.cast %i : tensor<3xi64> -> tensor<3xf32>" in str(module)
    assert_matches_torch(module, AddIndex(), x, i)


def test_unsupported_input_dtype_is_a_clear_error():
    with pytest.raises(GEImportError, match="input 'i' has dtype torch.uint8; GE supports"):
        import_module(AddIndex(), (torch.randn(3), torch.arange(3, dtype=torch.uint8)))


def test_non_tensor_output_is_a_clear_error():
    class ReturnsSize(nn.Module):
        def forward(self, x):
            return x, x.shape[0]

    with pytest.raises(GEImportError, match="model output 1 is a int, not a tensor"):
        import_module(ReturnsSize(), (torch.randn(2),))


@pytest.mark.filterwarnings("ignore:.*LeafSpec:FutureWarning")
def test_training_mode_export_names_the_fix():
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4)).train()
    ep = torch.export.export(model, (torch.randn(2, 3, 8, 8),)).run_decompositions()
    with pytest.raises(UnsupportedOpError, match="call model.eval"):
        import_program(ep)


# --------------------------------------------------------------------------
# Op coverage: the ops torch.export produces for CNNs and transformers, through
# core ATen (import_module) and the training IR (import_program without
# decompositions), against eager.


class CnnOps(nn.Module):
    def __init__(self):
        super().__init__()
        self.dw = nn.Conv2d(4, 4, 3, padding=1, groups=4)
        self.grouped = nn.Conv2d(4, 8, 3, padding=1, groups=2)
        self.up = nn.ConvTranspose2d(8, 4, 3, stride=2, padding=1, output_padding=1, groups=2)

    def forward(self, x):
        y = F.hardswish(x) + F.hardsigmoid(x) + F.silu(x) + torch.sigmoid(x) + F.relu6(x)
        y = F.dropout(y.clamp(-1.0, 2.0), 0.5, training=False)
        z = torch.cat([self.dw(y), self.grouped(x)], dim=1)
        return (self.up(self.grouped(y)),
                F.interpolate(z, scale_factor=2, mode="nearest"),
                F.interpolate(z, size=(7, 9), mode="bilinear", align_corners=False),
                F.interpolate(z, scale_factor=1.5, mode="bilinear", align_corners=True),
                F.avg_pool2d(z, 3, stride=2, padding=1, count_include_pad=False),
                F.adaptive_avg_pool2d(z, (3, 5)), F.adaptive_max_pool2d(z, 3))


class TransformerOps(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 8)
        self.ln = nn.LayerNorm(8)

    def forward(self, ids, x):
        e = self.ln(self.emb(ids))
        g = (F.gelu(e) + F.gelu(e, approximate="tanh") + torch.tanh(e) + e.pow(2)
             + e.abs().sqrt() + torch.rsqrt(e.abs() + 1) + e.exp() - e / 3 + (-e))
        sm = F.softmax(g, -1)
        q = sm.view(2, 3, 2, 4).transpose(1, 2)
        att = q @ q.transpose(-1, -2)
        keep = torch.tril(torch.ones(3, 3, dtype=torch.bool))
        att = att.masked_fill(~keep, float("-inf")).softmax(-1)
        w = torch.where(att > 0.3, att, torch.zeros_like(att))
        a1, a2 = sm.split(4, -1)
        c1, _ = sm.chunk(2, 1)
        stats = (sm.mean(-1, keepdim=True) + sm.sum(-1, keepdim=True)
                 + sm.amax(-1, keepdim=True))
        created = (ids.to(torch.float32) + torch.arange(3) + torch.full((3,), 2.0)
                   + torch.zeros(3) + torch.ones(3) + x + torch.arange(1, 4) + (1.0 - x))
        o = F.scaled_dot_product_attention(q, q, q, is_causal=True)
        o2 = F.scaled_dot_product_attention(q, q, q, attn_mask=keep)
        return (w, sm[:, 1:3], sm[:, -1], a1 * a2, c1, stats, created, o, o2,
                sm[:, :1].expand(2, 3, 8), sm.permute(2, 0, 1))


COVERAGE = {
    "cnn": lambda: (CnnOps(), (torch.randn(1, 4, 8, 8),)),
    "transformer": lambda: (TransformerOps(), (torch.randint(0, 10, (2, 3)),
                                               torch.randn(2, 3))),
}


@pytest.mark.parametrize("ir", ["core_aten", "training_ir"])
@pytest.mark.parametrize("name", sorted(COVERAGE))
def test_cnn_and_transformer_op_coverage(name, ir):
    torch.manual_seed(0)
    model, inputs = COVERAGE[name]()
    model.eval()
    exported = torch.export.export(model, inputs)
    if ir == "core_aten":  # import_module takes the training IR when it can
        exported = exported.run_decompositions()
    module = import_program(exported)
    module.verify()
    reparse(module)
    assert_matches_torch(module, model, *inputs)


class HiddenQuery(nn.Module):
    def forward(self, q, keep):
        return F.scaled_dot_product_attention(q, q, q, attn_mask=keep)


def test_sdpa_with_a_query_that_sees_no_key_matches_eager():
    torch.manual_seed(0)
    q = torch.randn(1, 2, 4, 8)
    keep = torch.ones(4, 4, dtype=torch.bool)
    keep[2] = False  # query 2 sees no key
    module = import_module(HiddenQuery().eval(), (q, keep))
    (out,) = evaluate(module, q, keep)
    assert not out.isnan().any()
    torch.testing.assert_close(out, HiddenQuery()(q, keep), rtol=1e-4, atol=1e-4)
    [softmax] = [op for op in module.walk() if isinstance(op, ge.SoftmaxOp)]
    assert softmax.safe is not None  # the mask is an input: any row may be all masked


class ConstantMask(nn.Module):
    def __init__(self, mask):
        super().__init__()
        self.register_buffer("mask", mask)

    def forward(self, q):
        return F.scaled_dot_product_attention(q, q, q, attn_mask=self.mask)


@pytest.mark.parametrize("mask, safe", [
    (torch.ones(4, 4, dtype=torch.bool).tril(), False),   # every query sees key 0
    (torch.zeros(4, 4), False),
    (torch.ones(4, 4, dtype=torch.bool).tril().index_fill(0, torch.tensor([1]), False), True),
    (torch.zeros(4, 4).index_fill(0, torch.tensor([3]), float("-inf")), True),
])
def test_sdpa_constant_masks_take_safe_softmax_only_when_a_row_is_all_masked(mask, safe):
    torch.manual_seed(0)
    q = torch.randn(1, 2, 4, 8)
    model = ConstantMask(mask).eval()
    module = import_module(model, (q,))
    [softmax] = [op for op in module.walk() if isinstance(op, ge.SoftmaxOp)]
    assert (softmax.safe is not None) == safe
    (out,) = evaluate(module, q)
    torch.testing.assert_close(out, model(q), rtol=1e-4, atol=1e-4)


def test_causal_sdpa_keeps_plain_softmax():
    q = torch.randn(1, 2, 4, 8)
    module = import_module(Causal().eval(), (q,))
    [softmax] = [op for op in module.walk() if isinstance(op, ge.SoftmaxOp)]
    assert softmax.safe is None


class Causal(nn.Module):
    def forward(self, q):
        return F.scaled_dot_product_attention(q, q, q, is_causal=True)


def test_safe_softmax_kernel_matches_aten_safe_softmax():
    """All -inf rows give 0; a row with a NaN stays NaN; others are softmax."""
    from runtime import kernels
    from xdsl.dialects.builtin import TensorType, f32
    from xdsl.utils.test_value import create_ssa_value

    x = torch.randn(3, 4, 5)
    x[0, 1] = float("-inf")
    x[1, 2, 3] = float("nan")
    x[2, 0, :4] = float("-inf")
    for dim in (-1, 1):
        op = ge.SoftmaxOp(create_ssa_value(TensorType(f32, [3, 4, 5])), dim, safe=True)
        got = kernels.prepare(op)(x)
        torch.testing.assert_close(got, torch.ops.aten._safe_softmax(x, dim), equal_nan=True)
    plain = kernels.prepare(ge.SoftmaxOp(create_ssa_value(TensorType(f32, [3, 4, 5])), -1))(x)
    assert plain[0, 1].isnan().all()


# --------------------------------------------------------------------------
# torch's semantics at the edges


class InPlaceOnIntermediate(nn.Module):
    def forward(self, x):
        y = x * 2
        y += 1  # nothing else reads y: the functional add
        return y * 3


class InPlaceSeenThroughAView(nn.Module):
    def forward(self, x):
        y = x * 2
        row = y[0]
        y.add_(1)  # row sees the update
        return row + 0


class InPlaceReadBefore(nn.Module):
    def forward(self, x):
        y = x * 2
        before = y + 0
        y.add_(1)
        return y + before


@pytest.mark.parametrize("model", [InPlaceOnIntermediate(), InPlaceSeenThroughAView(),
                                   InPlaceReadBefore()], ids=lambda m: type(m).__name__)
def test_in_place_updates_compute_what_eager_does(model):
    """The training IR keeps `add_`; it imports as `add` only where no alias can
    observe the update, else the functionalized (core ATen) graph is imported."""
    x = torch.randn(3, 4)
    module = import_module(model, (x,))
    torch.testing.assert_close(evaluate(module, x)[0], model(x))


def test_in_place_update_of_a_view_is_refused_in_the_training_ir():
    ep = torch.export.export(InPlaceSeenThroughAView(), (torch.randn(3, 4),))
    with pytest.raises(UnsupportedOpError, match="which view 'select' also reads"):
        import_program(ep)


@pytest.mark.parametrize("fn, inputs", [
    (lambda x: torch.cat([torch.tensor([]), x, torch.tensor([])], dim=-2),
     (torch.randn(2, 3, 4),)),                              # HF's legacy empty cache
    (lambda x: x.sum(-1) + x.amax(dim=-2).mean(), (torch.randn(2, 3, 4),)),  # negative dims
    (lambda x, i: x[i] * 2, (torch.randn(5, 3), torch.tensor([4, 0, 4]))),   # int64 index
    (lambda x, m: torch.where(m, x, -x), (torch.randn(2, 3), torch.rand(3) > 0.5)),  # bool
    (lambda x: x * torch.tensor(2.5), (torch.randn(2, 3),)),  # 0-d scalar
    (lambda x: x.sum(0) + 1, (torch.randn(0, 3),)),            # a 0-size dim
    (lambda i, x: i + x, (torch.arange(6).reshape(2, 3), torch.randn(2, 3))),  # int + float
    (lambda i: i * 2 // 3, (torch.arange(-6, 6).reshape(3, 4),)),  # integer floor division
], ids=["cat_legacy_empty", "negative_dims", "int64_index", "bool_mask", "zero_d",
        "zero_size", "int_float_promotion", "int_floor_div"])
def test_semantics_at_the_edges_match_eager(fn, inputs):
    class Fn(nn.Module):
        def forward(self, *args):
            return fn(*args)

    module = import_module(Fn(), inputs)
    expected = fn(*inputs)
    got = evaluate(module, *inputs)[0]
    compiled = Executable(lower(optimize(module))).run(*inputs)[0]
    for result in (got, compiled):
        assert result.dtype == expected.dtype
        torch.testing.assert_close(result, expected)
