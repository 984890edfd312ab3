"""runtime/host/quantize_rows.py: ONNX's QuantizeLinear over fp32 or bf16 rows in C."""

import pytest
import torch

from runtime.host import int8, quantize_rows

pytestmark = pytest.mark.skipif(quantize_rows.library() is None, reason="no C compiler")


def reference(x, scale, dtype):
    return int8.quantize(x, torch.tensor(scale), None, 0, dtype)


@pytest.mark.parametrize("source", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("dtype", [torch.int8, torch.uint8])
@pytest.mark.parametrize("shape", [(128, 768), (2, 3, 5), (1, 7)])
def test_matches_quantize_linear(source, dtype, shape):
    g = torch.Generator().manual_seed(0)
    scale = 0.037
    x = (torch.randn(shape, generator=g) * 3).to(source)
    # ties (k + 1/2 steps, both parities) and values past both ends of the range
    flat = x.view(-1)
    flat[:8] = torch.tensor([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 500.0, -500.0])[:flat.numel()] * scale
    out = torch.empty(shape, dtype=dtype)
    quantize_rows.kernel(x, out, scale)()
    assert torch.equal(out, reference(x, scale, dtype))


@pytest.mark.parametrize("dtype,zero_point", [(torch.int8, -128), (torch.int8, 9),
                                              (torch.uint8, 128)])
def test_zero_point_is_added_before_saturating(dtype, zero_point):
    x = torch.randn(16, 40) * 4
    out = torch.empty(16, 40, dtype=dtype)
    quantize_rows.kernel(x, out, 0.03, zero_point)()
    assert torch.equal(out, int8.quantize(x, torch.tensor(0.03), torch.tensor(zero_point), 0,
                                          dtype))


def test_rows_apart_in_memory():
    """Rows of a wider buffer (a slice of the last dim) in and out."""
    x = torch.randn(6, 40)[:, 4:36] * 2
    out = torch.zeros(6, 48, dtype=torch.int8)[:, 8:40]
    quantize_rows.kernel(x, out, 0.02)()
    assert torch.equal(out, reference(x, 0.02, torch.int8))


@pytest.mark.parametrize("shape", [(1, 16, 8, 8), (2, 3, 5, 7)])
def test_views_of_one_layout_run_as_a_flat_array(shape):
    """Two NHWC views of a CNN's activations: no rows of the last dim, the
    same strides; flat, split in rows of FLAT_ROW where it divides."""
    x = (torch.randn(shape) * 3).contiguous(memory_format=torch.channels_last)
    out = torch.empty(shape, dtype=torch.int8).contiguous(memory_format=torch.channels_last)
    quantize_rows.kernel(x, out, 0.02, -7)()
    assert torch.equal(out, int8.quantize(x, torch.tensor(0.02), torch.tensor(-7), 0,
                                          torch.int8))


def test_declines_what_it_cannot_run():
    x = torch.randn(4, 8)
    out = torch.empty(4, 8, dtype=torch.int8)
    assert quantize_rows.kernel(x, torch.empty(4, 9, dtype=torch.int8), 0.1) is None  # shape
    assert quantize_rows.kernel(x.half(), out, 0.1) is None  # fp16 in
    assert quantize_rows.kernel(x, out.to(torch.int16), 0.1) is None  # int16 out
    assert quantize_rows.kernel(x, out, 0.0) is None and quantize_rows.kernel(x, out, -1.0) is None
    assert quantize_rows.kernel(x.t(), torch.empty(8, 4, dtype=torch.int8), 0.1) is None  # rows
    assert quantize_rows.kernel(x[:, ::2], out[:, ::2], 0.1) is None  # gaps, same strides
    raw = torch.empty(64, dtype=torch.uint8)
    assert quantize_rows.kernel(raw[:32].view(torch.float32).view(1, 8),
                                raw[8:16].view(torch.int8).view(1, 8), 0.1) is None  # overlap


@pytest.mark.parametrize("dtype,zero_point", [(torch.int8, 0), (torch.int8, -128),
                                              (torch.uint8, 128)])
@pytest.mark.parametrize("channels_last", [False, True])
def test_dequantize_matches_dequantize_linear(dtype, zero_point, channels_last):
    lo, hi = int8.RANGES[dtype]
    q = torch.randint(lo, hi + 1, (2, 8, 5, 7), dtype=torch.int16).to(dtype)
    out = torch.empty(2, 8, 5, 7)
    if channels_last:
        q = q.contiguous(memory_format=torch.channels_last)
        out = out.contiguous(memory_format=torch.channels_last)
    quantize_rows.dequantize_kernel(q, out, 0.037, zero_point)()
    want = int8.dequantize(q, torch.tensor(0.037), torch.tensor(zero_point), 0)
    assert torch.equal(out, want)
    assert quantize_rows.dequantize_kernel(q, torch.empty(2, 8, 5, 7).double(), 0.037) is None
