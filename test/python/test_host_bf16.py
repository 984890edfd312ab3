"""runtime/host/bf16.py: bf16 convs and linears compute bf16 numbers (bf16
inputs and weights, fp32 accumulation, one rounding of the output when it is
bf16) on whichever path this CPU has, and say which path ran."""

import pytest
import torch
import torch.nn.functional as F

from runtime.host import bf16, onednn

pytestmark = pytest.mark.skipif(not onednn.available(), reason="no oneDNN library")


def nhwc(*shape, dtype=torch.float32):
    return torch.randn(*shape).to(dtype).contiguous(memory_format=torch.channels_last)


def close(got, want, rounded: bool):
    """Within one bf16 rounding of the output if it is stored in bf16, else
    within fp32 summation-order noise (the inputs are the same bf16 values)."""
    scale = want.abs().max().item()
    tol = 8e-3 if rounded else 1e-5
    assert (got.float() - want).abs().max().item() <= tol * scale


@pytest.mark.parametrize("out_dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("src_cast", [False, True])
def test_conv_with_residual_and_relu(out_dtype, src_cast):
    g = torch.Generator().manual_seed(0)
    x32 = torch.randn(2, 16, 10, 10, generator=g)
    w = torch.randn(32, 16, 3, 3, generator=g).bfloat16()
    b = torch.randn(32, generator=g).bfloat16()
    residual = nhwc(2, 32, 10, 10, dtype=out_dtype)
    out = nhwc(2, 32, 10, 10, dtype=out_dtype)
    x = x32 if src_cast else x32.bfloat16().contiguous(memory_format=torch.channels_last)
    runner = bf16.conv(x.shape, None if src_cast else x, src_cast, w, b, out, residual,
                       ((1, 1), (1, 1), (1, 1), 1), [("eltwise", "relu", 0.0, 0.0)], 0, 1)
    assert runner is not None
    assert runner.path.split(":")[0] in ("onednn-bf16", "emulated-fp32")
    if onednn.conv_impl(torch.bfloat16).startswith(("none", "ref")):
        assert runner.path.startswith("emulated-fp32")  # never a bf16 claim without a kernel
    runner(x, residual)
    want = F.relu(F.conv2d(x32.bfloat16().float(), w.float(), b.float(), 1, 1)
                  + residual.float())
    close(out, want, out_dtype == torch.bfloat16)


@pytest.mark.parametrize("out_dtype", [torch.float32, torch.bfloat16])
def test_linear_with_gelu(out_dtype):
    g = torch.Generator().manual_seed(1)
    x32 = torch.randn(6, 64, generator=g)
    w = torch.randn(48, 64, generator=g).bfloat16()
    b = torch.randn(48, generator=g).bfloat16()
    rows = torch.empty(6, 48, dtype=out_dtype)
    runner = bf16.linear(0, 64, None, w, b, rows, [("eltwise", "gelu_erf", 0.0, 0.0)])
    assert runner is not None and runner.path.split(":")[0] in ("onednn-bf16", "emulated-fp32")
    runner(x32)
    want = F.gelu(F.linear(x32.bfloat16().float(), w.float(), b.float()))
    close(rows, want, out_dtype == torch.bfloat16)


def test_an_fp32_input_is_rounded_to_bf16_as_the_cast_does():
    """The emulated path must not compute on the unrounded fp32 input."""
    x = torch.full((1, 8), 1.0 + 2**-10)  # 1 + 2^-10 rounds to 1.0 in bf16
    w = torch.eye(8).bfloat16()
    rows = torch.empty(1, 8)
    bf16.linear(0, 8, None, w, None, rows, [])(x)
    assert torch.equal(rows, torch.ones(1, 8))
