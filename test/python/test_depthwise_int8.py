"""The C loop for int8 depthwise convs (runtime/host/depthwise_int8.py)
against the QDQ arithmetic it replaces: dequantize, torch's conv, the
activation, quantize."""

import pytest
import torch
import torch.nn.functional as F

from ge_dialect.traits import PostOp
from runtime.host import depthwise_int8, int8

pytestmark = pytest.mark.skipif(depthwise_int8.library() is None,
                                reason="no C compiler or no AVX512-VNNI here")

RELU6 = PostOp("hardtanh", (0.0, 6.0), "", "clip", 0.0, 6.0)


def qdq_reference(x, w, ws, b, sx, sy, padding, bounds, dtype):
    y = F.conv2d(int8.dequantize(x, torch.tensor(sx), None, 1),
                 int8.dequantize(w, ws, None, 0), b, 1, padding, 1, x.shape[1])
    if bounds is not None:
        y = y.clamp(*bounds)
    return int8.quantize(y, torch.tensor(sy), None, 0, dtype)


def nhwc(t: torch.Tensor) -> torch.Tensor:
    return t.contiguous(memory_format=torch.channels_last)


# channels: full 64-blocks, partial ones; odd widths, batches,
# a 5-row kernel, no padding, ReLU6 / ReLU / none, u8 and s8 outputs
CASES = [
    (1, 384, 14, 14, 3, (1, 1), "relu6", torch.uint8),
    (1, 144, 56, 56, 3, (1, 1), "relu6", torch.uint8),
    (2, 40, 9, 8, 5, (2, 1), None, torch.int8),
    (3, 70, 7, 7, 3, (0, 0), "relu", torch.int8),
    (1, 48, 5, 6, 3, (1, 1), "relu6", torch.int8),
]


@pytest.mark.parametrize("n,c,h,w,kh,padding,act,dtype", CASES)
def test_loop_matches_the_qdq_arithmetic(n, c, h, w, kh, padding, act, dtype):
    torch.manual_seed(c)
    x = nhwc(torch.randint(0, 256, (n, c, h, w), dtype=torch.uint8))
    weight = torch.randint(-127, 128, (c, 1, kh, 3), dtype=torch.int8)
    ws, b = torch.rand(c) * 0.01 + 0.001, torch.randn(c)
    sx, sy = 0.02, 0.03
    oh, ow = h + 2 * padding[0] - kh + 1, w + 2 * padding[1] - 2
    out = nhwc(torch.full((n, c, oh, ow), 7, dtype=dtype))
    run = depthwise_int8.depthwise_runner(x, weight, ws, b, out, ((1, 1), padding, (1, 1), c),
                                          sx, sy, act == "relu", RELU6 if act == "relu6" else None)
    assert run is not None and run.__name__ == "int8_depthwise_conv2d"
    run.bare()
    bounds = {"relu6": (0.0, 6.0), "relu": (0.0, None), None: None}[act]
    expected = qdq_reference(x, weight, ws, b, sx, sy, padding, bounds, dtype)
    diff = (out.int() - expected.int()).abs()
    # one product for the scales: a value within float rounding of a tie may
    # round the other way (one step), as oneDNN's may
    assert diff.max() <= 1 and (diff == 0).float().mean() >= 0.999
    assert len(set(out.unique().tolist())) > 10  # not a constant output


def test_loop_declines_what_it_does_not_compute():
    """Stride 2, dilation, an s8 input, a non-clamp activation, a grouped
    conv with several channels per group, 32 channels or fewer: None, and
    oneDNN keeps the task."""
    c = 48
    x = nhwc(torch.zeros(1, c, 8, 8, dtype=torch.uint8))
    w = torch.ones(c, 1, 3, 3, dtype=torch.int8)
    ws = torch.ones(c)
    out = nhwc(torch.zeros(1, c, 8, 8, dtype=torch.uint8))
    dense = ((1, 1), (1, 1), (1, 1), c)
    assert depthwise_int8.depthwise_runner(x, w, ws, None, out, dense, 1.0, 1.0, True, None)
    gelu = PostOp("gelu", (), "none", "gelu_erf")
    for conv, xx, post_op in [
            (((2, 2), (1, 1), (1, 1), c), x, None),
            (((1, 1), (2, 2), (2, 2), c), x, None),
            (dense, x.to(torch.int8), None),
            (dense, x, gelu)]:
        assert depthwise_int8.depthwise_runner(xx, w, ws, None, out, conv, 1.0, 1.0, False,
                                               post_op) is None
    assert depthwise_int8.depthwise_runner(x, torch.ones(c, 2, 3, 3, dtype=torch.int8), ws,
                                           None, out, ((1, 1), (1, 1), (1, 1), c // 2), 1.0,
                                           1.0, False, None) is None
    few = x[:, :32]
    assert depthwise_int8.depthwise_runner(few, w[:32], ws[:32], None, out[:, :32],
                                           ((1, 1), (1, 1), (1, 1), 32), 1.0, 1.0, True,
                                           None) is None


class InvertedResidual(torch.nn.Module):
    """MobileNetV2's block: expand 1x1, depthwise 3x3 (stride 1, 96 channels:
    a full 64-block and a partial one), both with ReLU6, project 1x1."""

    def __init__(self):
        super().__init__()
        self.expand = torch.nn.Conv2d(16, 96, 1)
        self.dw = torch.nn.Conv2d(96, 96, 3, padding=1, groups=96)
        self.project = torch.nn.Conv2d(96, 16, 1)

    def forward(self, x):
        return x + self.project(F.relu6(self.dw(F.relu6(self.expand(x)))))


def test_a_compiled_depthwise_conv_takes_the_loop_and_matches_the_qdq_graph():
    from npu_graph import NpuGraph, quantize
    from runtime.reference import evaluate

    torch.manual_seed(0)
    model = InvertedResidual().eval()
    calibration = [torch.randn(2, 16, 10, 10) for _ in range(2)]
    q = quantize(NpuGraph(model, input_spec=(calibration[0],)), calibration)
    compiled = q.optimize()
    names = [r.__name__ for r in compiled.executable.runners]
    assert names.count("int8_depthwise_conv2d") == 1, names
    x = torch.randn(2, 16, 10, 10)
    reference = evaluate(q.module, x)[0]
    got = compiled(x)
    err = (got - reference).abs()
    assert (err <= 1e-4).float().mean() >= 0.95 and err.max() <= 0.01 * reference.abs().max()
    fp32 = model(x)
    assert (got - fp32).norm() / fp32.norm() < 0.05
