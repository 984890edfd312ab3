"""The image quantize loop (runtime/host/quantize_nhwc.py) against ONNX's
QuantizeLinear as the reference computes it: x / scale in fp32, rounded
half to even, saturated; NCHW planes in, NHWC bytes out."""

import pytest
import torch

from runtime.host import int8, quantize_nhwc

pytestmark = pytest.mark.skipif(quantize_nhwc.library() is None,
                                reason="no C compiler or no AVX512-VBMI here")


# 1-4 channels, a batch, planes that are not a multiple of 16 pixels, both types
@pytest.mark.parametrize("shape,dtype", [
    ([1, 3, 224, 224], torch.int8), ([2, 3, 7, 5], torch.uint8), ([1, 1, 9, 9], torch.int8),
    ([3, 4, 17, 3], torch.int8), ([1, 2, 5, 5], torch.uint8)])
def test_loop_equals_the_reference(shape, dtype):
    torch.manual_seed(shape[1])
    x = torch.randn(*shape) * 3  # well past the int8 range at this scale: saturation
    ties = torch.tensor([0.5, 1.5, -0.5, -2.5, 2.5]) * 0.02
    x.view(-1)[:5] = ties  # half-way values round to even
    out = torch.full(shape, 7, dtype=dtype).contiguous(memory_format=torch.channels_last)
    quantize = quantize_nhwc.runner(shape, out, 0.02)
    assert quantize is not None
    quantize(x)
    assert torch.equal(out, int8.quantize(x, torch.tensor(0.02), None, 0, dtype))
    assert int(out.max()) == int8.RANGES[dtype][1]


def test_loop_declines_what_it_does_not_write():
    nhwc = torch.empty(1, 5, 4, 4, dtype=torch.int8).contiguous(memory_format=torch.channels_last)
    assert quantize_nhwc.runner([1, 5, 4, 4], nhwc, 0.1) is None  # more than 4 channels
    nchw = torch.empty(1, 3, 4, 4, dtype=torch.int8)
    assert quantize_nhwc.runner([1, 3, 4, 4], nchw, 0.1) is None  # not an NHWC view
    f32 = torch.empty(1, 3, 4, 4).contiguous(memory_format=torch.channels_last)
    assert quantize_nhwc.runner([1, 3, 4, 4], f32, 0.1) is None  # not an int8 type


@pytest.mark.parametrize("dtype,zero_point", [(torch.int8, -128), (torch.int8, 5), (torch.uint8, 128)])
def test_loop_adds_the_zero_point_before_saturating(dtype, zero_point):
    """An asymmetric model's image quantize (ONNX Runtime's quantize_static)."""
    torch.manual_seed(1)
    shape = [2, 3, 7, 9]
    x = torch.randn(*shape) * 3
    out = torch.empty(shape, dtype=dtype).contiguous(memory_format=torch.channels_last)
    quantize_nhwc.runner(shape, out, 0.02, zero_point)(x)
    assert torch.equal(out, int8.quantize(x, torch.tensor(0.02), torch.tensor(zero_point), 0,
                                          dtype))
