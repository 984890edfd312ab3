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
from xdsl.dialects.builtin import bf16, f16, f32

from ge_dialect import ge
from ge_dialect.ascend import CUBE_OPS
from npu_graph import NpuGraph, load
from npu_graph.compiler import compile_model, import_model, optimize
from passes.precision_mode import PrecisionModePass
from runtime import kernels
from target import cost_model
from target.hardware import DEFAULT_HARDWARE
from runtime.reference import evaluate
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
    # new ops, annotated too: the groups of a cube op and its casts
    assert any(isinstance(op, ge.FusedOp) and op.kind.data == "linear" for op in top)
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


# --- bf16 ------------------------------------------------------------------------
# bf16 has an 8-bit significand: one rounding moves a value by up to 2^-8 = 3.9e-3
# relative. Measured against fp32 eager (docs/precision-mode.md): max error /
# max |output| 2.9e-3 .. 6.8e-3 on the ResNet-style models, 5e-3 (cube only)
# and 1.2e-2 (mix lists) on the zoo's BERT. BF16_TOL gives the CNNs about 3x
# headroom; BERT's hidden states are bounded at 2e-2, the bf16 accuracy target.
BF16_TOL = 2e-2
BF16_MODES = ["allow_fp32_to_bf16", "allow_mix_precision_bf16"]


def bf16_ops(module) -> int:
    return sum(1 for op in module.walk()
               if op.name.startswith("ge.")
               and not isinstance(op, ge.CastOp | ge.ConstOp | ge.FusedOp)
               and any(getattr(r.type, "element_type", None) == bf16 for r in op.results))


@pytest.mark.parametrize("mode", BF16_MODES)
def test_bf16_modes_stay_within_the_documented_tolerance(model_case, mode):
    _, model, inputs, expected = model_case
    executable = compile_model(model, inputs, precision_mode=mode)
    outputs = executable.run(*inputs)
    fp32_outputs = compile_model(model, inputs).run(*inputs)
    for got, fp32, want in zip(outputs, fp32_outputs, expected, strict=True):
        scale = want.abs().max().item()
        assert got.dtype == torch.float32  # the graph's types at its boundary
        assert (got - want).abs().max().item() <= BF16_TOL * scale
        assert (got - fp32).abs().max().item() > 1e-4 * scale  # the bf16 path ran
    # Every cube task computed on bf16 weights, and says on which host path.
    paths = executable.cube_paths()
    assert paths and all(key.startswith("bf16 ") for key in paths)


def test_bf16_cube_mode_moves_exactly_the_cube_ops():
    model, inputs = ZOO["bert"]()
    cube = optimize(import_model(model, inputs), precision_mode="allow_fp32_to_bf16")
    mixed = optimize(import_model(model, inputs), precision_mode="allow_mix_precision_bf16")
    cube_ops = sum(1 for op in cube.walk() if isinstance(op, CUBE_OPS))
    assert bf16_ops(cube) == cube_ops > 0  # the attention's matmuls included
    assert bf16_ops(mixed) > bf16_ops(cube)
    assert not any(isinstance(op, ge.CastOp) and isinstance(op.input.owner, ge.ConstOp)
                   for op in mixed.walk())


def test_must_keep_origin_dtype_is_the_default_and_changes_nothing():
    model, inputs = ZOO["tiny_resnet"]()
    kept = optimize(import_model(model, inputs), precision_mode="must_keep_origin_dtype")
    assert bf16_ops(kept) == f16_ops(kept) == 0
    assert not any(isinstance(op, ge.CastOp) for op in kept.walk())
    assert PrecisionModePass().mode == "must_keep_origin_dtype"
    assert_all_close(compile_model(model, inputs,
                                   precision_mode="must_keep_origin_dtype").run(*inputs),
                     eager(model, *inputs))


def test_bf16_kernels_accumulate_in_fp32():
    """The kernel table's bf16 linear: bf16 products summed in fp32, rounded once."""
    module = optimize(import_model(*ZOO["mlp"]()), "ge-O0", precision_mode="allow_fp32_to_bf16")
    linear = next(op for op in module.walk() if isinstance(op, ge.LinearOp))
    x = torch.randn(4, 32).bfloat16()
    w = torch.randn(64, 32).bfloat16()
    b = torch.randn(64).bfloat16()
    y = kernels.prepare(linear)(x, w, b)
    assert y.dtype == torch.bfloat16
    want = torch.nn.functional.linear(x.float(), w.float(), b.float())
    torch.testing.assert_close(y.float(), want, rtol=8e-3, atol=8e-3 * want.abs().max().item())


def test_the_reference_evaluator_agrees_with_the_executor_in_bf16():
    model, inputs = ZOO["tiny_resnet"]()
    module = optimize(import_model(model, inputs), precision_mode="allow_mix_precision_bf16")
    (reference,) = evaluate(module, *inputs)
    (ours,) = compile_model(model, inputs, precision_mode="allow_mix_precision_bf16").run(*inputs)
    scale = reference.abs().max().item()
    # Same bf16 graph; the runtime's fused kernels round a little less often.
    assert (ours - reference).abs().max().item() <= 1e-2 * scale


def test_bf16_cube_work_is_cheaper_on_the_simulated_cube():
    """fp32 is not native on the cube (target/hardware.py CUBE_DTYPE_CYCLES):
    a large conv in bf16 takes a quarter of its fp32 compute time."""
    x = torch.randn(1, 256, 28, 28)
    conv = torch.nn.Conv2d(256, 256, 3, padding=1).eval()
    f32 = optimize(import_model(conv, (x,)), "ge-O0")
    b16 = optimize(import_model(conv, (x,)), "ge-O0", precision_mode="allow_fp32_to_bf16")
    cost = lambda m: sum(cost_model.estimate_graph_op(op, "cube").time_us for op in m.walk()
                         if isinstance(op, ge.Conv2dOp))
    launch = DEFAULT_HARDWARE.launch_us
    assert (cost(f32) - launch) == pytest.approx(4 * (cost(b16) - launch), rel=0.01)


def test_bf16_through_npu_file_save_and_load(tmp_path):
    model, (x,) = ZOO["tiny_resnet"]()
    optimized = NpuGraph(model, input_spec=(x,)).optimize(precision_mode="allow_mix_precision_bf16")
    out = optimized(x)
    optimized.save(str(tmp_path / "m.npu"))
    loaded = load(str(tmp_path / "m.npu"))
    assert "xbf16>" in str(loaded.module)
    torch.testing.assert_close(loaded(x), out, rtol=0, atol=0)


@pytest.fixture(scope="module")
def resnet50_case():
    model, (x,) = ZOO["resnet50"]()  # one 224x224 image: the test stays under 15 s
    return model, x, eager(model, x)[0]


def test_resnet50_mix_bf16_top1_memory_and_device_time(resnet50_case):
    """Top-1 agrees with fp32 eager; the arena holds bf16
    activations at 2 bytes each, and the simulated device is faster."""
    model, xs, want = resnet50_case
    fp32 = compile_model(model, (xs,))
    mixed = compile_model(model, (xs,), precision_mode="allow_mix_precision_bf16")
    (got,) = mixed.run(xs)
    assert torch.equal(got.argmax(1), want.argmax(1))
    assert (got - want).abs().max().item() <= BF16_TOL * want.abs().max().item()
    assert mixed.stats["memory_usage"] < 0.6 * fp32.stats["memory_usage"]
    assert mixed.stats["execution_time"] < 0.8 * fp32.stats["execution_time"]


def test_mobilenet_v2_bf16_top1_agrees_with_eager():
    model, (x,) = ZOO["mobilenet_v2"]()
    xs = torch.randn(8, *x.shape[1:], generator=torch.Generator().manual_seed(1))
    (want,) = eager(model, xs)
    for mode in BF16_MODES:
        (got,) = compile_model(model, (xs,), precision_mode=mode).run(xs)
        assert torch.equal(got.argmax(1), want.argmax(1)), mode
