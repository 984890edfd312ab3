"""precision-mode: GE's precision modes change the numbers by a documented amount.

Tolerances (measured with these seeds, then given about 3x headroom): with
allow_fp32_to_fp16 and allow_mix_precision the largest error is at most
FP16_TOL x the largest |eager output|; measured 4e-4 .. 6e-4 on the
ResNet-style and BERT-style zoo models. force_fp32 on an fp32 graph changes
nothing (1e-4 like every fp32 path). Each fp16 run must also differ from the
fp32 one, so the fp16 path really ran.
"""

import pytest
import torch
from xdsl.dialects.builtin import f16, f32

from ge_dialect import ge
from npu_graph.compiler import compile_model, import_model, optimize
from runtime import kernels
from test.helpers import assert_all_close, eager
from test.models import ZOO

FP16_TOL = 2e-3


def f16_ops(module) -> int:
    """Computing ops (not casts or constants) with an fp16 result."""
    return sum(1 for op in module.walk()
               if op.name.startswith("ge.")
               and not isinstance(op, ge.CastOp | ge.ConstOp | ge.FusedOp)
               and any(getattr(r.type, "element_type", None) == f16 for r in op.results))


@pytest.fixture(scope="module", params=["tiny_resnet", "bert"])
def model_case(request):
    model, inputs = ZOO[request.param]()
    return request.param, model, inputs, eager(model, *inputs)


def test_force_fp32_changes_nothing_on_an_fp32_graph(model_case):
    _, model, inputs, expected = model_case
    module = optimize(import_model(model, inputs), precision_mode="force_fp32")
    assert f16_ops(module) == 0 and not any(
        isinstance(op, ge.CastOp) and op.output.type.element_type == f16 for op in module.walk())
    assert_all_close(compile_model(model, inputs, precision_mode="force_fp32").run(*inputs),
                     expected)


@pytest.mark.parametrize("mode", ["allow_fp32_to_fp16", "allow_mix_precision"])
def test_fp16_modes_stay_within_the_documented_tolerance(model_case, mode):
    _, model, inputs, expected = model_case
    outputs = compile_model(model, inputs, precision_mode=mode).run(*inputs)
    fp32_outputs = compile_model(model, inputs).run(*inputs)
    for got, fp32, want in zip(outputs, fp32_outputs, expected, strict=True):
        scale = want.abs().max().item()
        assert (got - want).abs().max().item() <= FP16_TOL * scale
        assert (got - fp32).abs().max().item() > 1e-5 * scale  # the fp16 path ran


def test_mix_precision_moves_more_ops_to_fp16_than_cube_only(model_case):
    name, model, inputs, _ = model_case
    cube = optimize(import_model(model, inputs), precision_mode="allow_fp32_to_fp16")
    mixed = optimize(import_model(model, inputs), precision_mode="allow_mix_precision")
    cube_ops = sum(1 for op in cube.walk() if isinstance(op, (ge.Conv2dOp, ge.LinearOp,
                                                               ge.MatMulOp)))
    assert f16_ops(cube) == cube_ops > 0  # exactly the cube ops
    assert f16_ops(mixed) > f16_ops(cube)
    # Every fp16 weight was converted at compile time: no cast reads a constant.
    assert not any(isinstance(op, ge.CastOp) and isinstance(op.input.owner, ge.ConstOp)
                   for op in mixed.walk())


def test_hardware_mapping_annotations_are_refreshed():
    model, inputs = ZOO["tiny_resnet"]()
    module = optimize(import_model(model, inputs), precision_mode="allow_fp32_to_fp16")
    top = [op for op in module.ops.first.body.block.ops
           if not isinstance(op, ge.ConstOp) and op.name.startswith("ge.")]
    assert any(isinstance(op, ge.CastOp) for op in top)  # new ops, annotated too
    assert all("ge.unit" in op.attributes for op in top)


def test_force_fp32_raises_an_fp16_graph_to_fp32():
    model, (x,) = ZOO["mlp"]()
    model, x = model.half(), x.half()
    fp32_reference = model.float()(x.float()).half()  # fp16 weights and input, fp32 compute
    model.half()
    (as_is,) = compile_model(model, (x,)).run(x)
    (forced,) = compile_model(model, (x,), precision_mode="force_fp32").run(x)
    assert forced.dtype == torch.float16
    err = lambda y: (y.float() - fp32_reference.float()).abs().max().item()
    assert err(forced) <= 1e-3 * fp32_reference.abs().max().item()  # one fp16 rounding
    # With fusion, the fp16 graph may round as rarely as the forced one; never less.
    assert err(forced) <= err(as_is)
    raised = optimize(import_model(model, (x,)), precision_mode="force_fp32")
    assert any(isinstance(op, ge.CastOp) and op.results[0].type.element_type == f32
               for op in raised.walk())  # the compute really moved to fp32


def test_the_runtime_computes_cube_ops_in_fp16():
    module = optimize(import_model(*ZOO["mlp"]()), "ge-O0", precision_mode="allow_fp32_to_fp16")
    linear = next(op for op in module.walk() if isinstance(op, ge.LinearOp))
    x = torch.randn(4, 32, dtype=torch.float16)
    w = torch.randn(64, 32, dtype=torch.float16)
    b = torch.randn(64, dtype=torch.float16)
    y = kernels.prepare(linear)(x, w, b)
    assert y.dtype == torch.float16
    # fp32 accumulation, one rounding to fp16 (within one fp16 ulp of it):
    torch.testing.assert_close(y, torch.nn.functional.linear(x.float(), w.float(), b.float()).half(),
                               rtol=1e-3, atol=1e-3)


def test_bad_mode_is_a_clear_error():
    with pytest.raises(ValueError, match="precision-mode: mode must be one of must_keep_origin_dtype, force_fp32, "
                       "allow_fp32_to_fp16, allow_mix_precision, allow_fp32_to_bf16, "
                       "allow_mix_precision_bf16, got 'fp8'"):
        optimize(import_model(*ZOO["mlp"]()), precision_mode="fp8")
