"""Static int8 quantization: npu_graph.quantize (calibration + quantize-static),
the QDQ ops' kernels, and ONNX QDQ import.

The QDQ graph is checked against the same fake-quant math written with
torch's own fake-quantize ops (ranges observed with forward hooks), to
1e-4, and against fp32 eager by top-1 agreement on a small CNN."""

import numpy as np
import onnx
import pytest
import torch
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator
from torch import nn

import npu_graph
from npu_graph import GraphParser, NpuGraph, QuantizeError
from npu_graph.quantize import calibrate
from passes.driver.runner import run_pipeline
from passes.quantize_static import OUTPUT_RANGE_ATTR, RANGE_ATTR
from runtime.host import int8
from runtime.reference import evaluate

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::UserWarning")


class SmallCNN(nn.Module):
    def __init__(self, bn: bool = False):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8) if bn else nn.Identity()
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = torch.relu(self.bn(self.conv1(x)))
        x = torch.relu(self.conv2(x))
        return self.fc(x.mean((2, 3)))


def _scale(amax, qmax: int = 127) -> torch.Tensor:
    """As the pass computes it: float64 amax / qmax, stored as float32."""
    amax = torch.as_tensor(amax, dtype=torch.float64)
    return torch.where(amax > 0, amax / qmax, torch.ones_like(amax)).float()


def fake_quant_reference(model: SmallCNN, calibration, x):
    """The QDQ model's math with torch's fake-quantize ops: each layer's input
    per tensor (its min/max over the calibration data; uint8 when the min is
    not negative, else int8), its weight per output channel, both symmetric."""
    layers = [model.conv1, model.conv2, model.fc]
    ranges = {layer: [float("inf"), float("-inf")] for layer in layers}

    def observe(layer, args):
        r = ranges[layer]
        r[0], r[1] = min(r[0], float(args[0].min())), max(r[1], float(args[0].max()))
    hooks = [layer.register_forward_pre_hook(observe) for layer in layers]
    with torch.no_grad():
        for batch in calibration:
            model(batch)
    for h in hooks:
        h.remove()

    def quantized(layer, args):
        lo, hi = ranges[layer]
        if lo >= 0:
            return torch.fake_quantize_per_tensor_affine(args[0], float(_scale(hi, 255)), 0,
                                                         0, 255)
        return torch.fake_quantize_per_tensor_affine(
            args[0], float(_scale(max(abs(lo), abs(hi)))), 0, -128, 127)
    hooks = [layer.register_forward_pre_hook(quantized) for layer in layers]
    saved = {layer: layer.weight.detach().clone() for layer in layers}
    with torch.no_grad():
        for layer in layers:
            w = layer.weight
            s = _scale(w.abs().reshape(w.shape[0], -1).amax(1).double())
            w.copy_(torch.fake_quantize_per_channel_affine(
                w, s, torch.zeros_like(s, dtype=torch.int32), 0, -127, 127))
        y = model(x)
        for layer in layers:
            layer.weight.copy_(saved[layer])
    for h in hooks:
        h.remove()
    return y


@pytest.fixture(scope="module")
def cnn():
    torch.manual_seed(0)
    model = SmallCNN().eval()
    calibration = [torch.randn(4, 3, 16, 16) for _ in range(4)]
    graph = NpuGraph(model, input_spec=(calibration[0],))
    return model, calibration, npu_graph.quantize(graph, calibration)


def test_quantize_folds_every_matrix_op_into_an_int8_one(cnn):
    _, _, q = cnn
    text = str(q.module)
    # the image and the pooled features are quantized; conv1 requantizes
    # its ReLU'd result to conv2's input scale itself
    assert text.count("ge.quantize ") == 2, text
    assert "ge.dequantize" not in text
    assert text.count("ge.quantized_conv2d") == 2 and text.count("ge.quantized_linear") == 1
    assert "tensor<8x3x3x3xi8>" in text and "tensor<10x16xi8>" in text
    assert RANGE_ATTR not in text


def test_qdq_graph_matches_torch_fake_quant(cnn):
    model, calibration, q = cnn
    torch.manual_seed(1)
    x = torch.randn(4, 3, 16, 16)
    expected = fake_quant_reference(model, calibration, x)
    torch.testing.assert_close(evaluate(q.module, x)[0], expected, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(q.optimize()(x), expected, rtol=1e-4, atol=1e-4)


def test_int8_cnn_agrees_with_fp32_on_top1():
    """BatchNorm with non-trivial statistics (folded before calibration), 256
    held-out inputs, calibrated on 64 others."""
    torch.manual_seed(0)
    model = SmallCNN(bn=True)
    with torch.no_grad():
        model.bn.running_mean.uniform_(-0.5, 0.5)
        model.bn.running_var.uniform_(0.5, 2.0)
        model.bn.weight.uniform_(0.5, 1.5)
    model.eval()
    calibration = [torch.randn(16, 3, 16, 16) for _ in range(4)]
    q = npu_graph.quantize(NpuGraph(model, input_spec=(calibration[0],)), calibration)
    compiled = q.optimize()
    held_out = torch.randn(256, 3, 16, 16)
    with torch.no_grad():
        fp32 = model(held_out)
    got = torch.cat([compiled(b) for b in held_out.split(16)])
    agreement = (got.argmax(1) == fp32.argmax(1)).float().mean()
    assert agreement >= 0.95, agreement
    assert (got - fp32).norm() / fp32.norm() < 0.05


def test_percentile_clips_outliers_and_keep_float_skips_an_op():
    torch.manual_seed(0)
    model = SmallCNN().eval()
    data = [torch.randn(4, 3, 16, 16) for _ in range(2)]
    data[0][0, 0, 0, 0] = 50.0  # one outlier
    graph = NpuGraph(model, input_spec=(data[0],))
    prepared = npu_graph.GEGraph(run_pipeline(graph.module.clone(), "ge-O2"))
    assert calibrate(prepared, data, "minmax") == 3
    prepared_p = npu_graph.GEGraph(run_pipeline(graph.module.clone(), "ge-O2"))
    calibrate(prepared_p, data, "percentile", percentile=99.9)

    def first_range(g):
        op = next(op for op in g.module.walk() if RANGE_ATTR in op.attributes)
        return op.attributes[RANGE_ATTR].get_values()
    assert first_range(prepared)[1] == 50.0
    lo, hi = first_range(prepared_p)
    assert lo == -hi and 2.0 < hi < 5.0
    fc = next(op.results[0].name_hint for op in prepared.module.walk()
              if op.name == "ge.linear")
    q = npu_graph.quantize(graph, data, keep_float=[fc])
    text = str(q.module)
    assert text.count("ge.quantized_conv2d") == 2 and "ge.quantized_linear" not in text
    assert text.count("ge.linear") == 1


@pytest.mark.parametrize("kwargs, message", [
    ({"scheme": "entropy"}, "scheme='entropy' is not known; use one of minmax, percentile"),
    ({"percentile": 10.0}, "percentile=10.0 must be in"),
])
def test_bad_arguments_are_clear_errors(cnn, kwargs, message):
    model, calibration, _ = cnn
    graph = NpuGraph(model, input_spec=(calibration[0],))
    with pytest.raises(QuantizeError, match=message):
        npu_graph.quantize(graph, calibration, **kwargs)
    with pytest.raises(QuantizeError, match="calibration_data is empty"):
        npu_graph.quantize(graph, [])


def test_kernels_follow_onnx_rounding_and_saturation():
    x = torch.tensor([[0.25, 0.75, -0.25, 100.0, -100.0]])
    q = int8.quantize(x, torch.tensor(0.5), None, 1, torch.int8)
    assert q.tolist() == [[0, 2, 0, 127, -128]]  # 0.5 -> 0 and 1.5 -> 2: half to even
    u = int8.quantize(x, torch.tensor([0.5]), torch.tensor([128], dtype=torch.uint8), 1,
                      torch.uint8)
    assert u.tolist() == [[128, 130, 128, 255, 0]]
    back = int8.dequantize(u, torch.tensor([0.5]), torch.tensor([128], dtype=torch.uint8), 1)
    assert back.tolist() == [[0.0, 1.0, 0.0, 63.5, -64.0]]


def qdq_onnx_model() -> onnx.ModelProto:
    """x -> Q/DQ (uint8, per tensor) -> MatMul with a DQ'd int8 per-channel weight."""
    rng = np.random.default_rng(0)
    w = rng.integers(-127, 128, size=(8, 4)).astype(np.int8)
    inits = [
        helper.make_tensor("x_scale", TensorProto.FLOAT, [], [0.05]),
        helper.make_tensor("x_zp", TensorProto.UINT8, [], [128]),
        helper.make_tensor("w_q", TensorProto.INT8, [8, 4], w.flatten().tolist()),
        helper.make_tensor("w_scale", TensorProto.FLOAT, [4], [0.01, 0.02, 0.03, 0.04]),
    ]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zp"], ["xq"]),
        helper.make_node("DequantizeLinear", ["xq", "x_scale", "x_zp"], ["xd"]),
        helper.make_node("DequantizeLinear", ["w_q", "w_scale"], ["wd"], axis=1),
        helper.make_node("MatMul", ["xd", "wd"], ["y"]),
    ]
    graph = helper.make_graph(nodes, "qdq", [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, [2, 8])], [helper.make_tensor_value_info(
            "y", TensorProto.FLOAT, [2, 4])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])


def test_onnx_qdq_model_imports_into_the_same_form():
    model = qdq_onnx_model()
    graph = GraphParser().parse_onnx_model(model)
    text = str(graph.module)
    assert "ge.quantize" in text and "tensor<2x8xui8>" in text and "ge.dequantize" in text
    x = np.random.default_rng(1).standard_normal((2, 8)).astype(np.float32) * 3
    (expected,) = ReferenceEvaluator(model).run(None, {"x": x})
    got = graph.optimize()(torch.from_numpy(x))
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-5, atol=1e-5)


class TwoBranches(nn.Module):
    """add(conv_a(x), conv_b(x)) (a strided block's last conv and shortcut),
    and add(conv_c(y), y) (an identity shortcut)."""

    def __init__(self):
        super().__init__()
        self.a, self.b, self.c = (nn.Conv2d(4, 4, 1) for _ in range(3))

    def forward(self, x):
        y = torch.relu(self.a(x) + self.b(x))
        return self.c(y) + y


def test_calibration_observes_the_output_of_a_residual_shortcut_conv():
    torch.manual_seed(0)
    model = TwoBranches().eval()
    data = [torch.randn(2, 4, 6, 6) for _ in range(2)]
    graph = NpuGraph(model, input_spec=(data[0],))
    prepared = npu_graph.GEGraph(run_pipeline(graph.module.clone(), "ge-O2"))
    assert calibrate(prepared, data) == 3
    convs = [op for op in prepared.module.walk() if op.name == "ge.conv2d"]
    # only b, the later of two convs meeting at an add, has its output observed
    assert [OUTPUT_RANGE_ATTR in op.attributes for op in convs] == [False, True, False]
    lo, hi = convs[1].attributes[OUTPUT_RANGE_ATTR].get_values()
    with torch.no_grad():
        b = model.b(torch.cat(data))
    assert lo == pytest.approx(float(b.min())) and hi == pytest.approx(float(b.max()))
    # folded: b writes int8 and a adds it as its int8 residual
    q = npu_graph.quantize(graph, data)
    folded = [op for op in q.module.walk() if op.name == "ge.quantized_conv2d"]
    assert len(folded) == 3
    (b,) = [op for op in folded if op.residual is None and op.relu is None]
    (a,) = [use.operation for use in b.output.uses]
    assert b.output_scale is not None and a.residual_scale == b.output_scale
    x = torch.randn(2, 4, 6, 6)
    got = q.optimize()(x)
    want = model(x)
    assert (got - want).norm() / want.norm() < 0.03


def test_quantize_of_dequantize_with_the_same_parameters_is_the_identity():
    """canonicalize's quantize(dequantize(x, s, z), s, z) -> x: every int8 and
    uint8 value comes back, for scales from 1e-6 to 1e3 and any zero point."""
    from runtime.host import int8 as host_int8

    g = torch.Generator().manual_seed(0)
    for dtype, (lo, hi) in host_int8.RANGES.items():
        q = torch.arange(lo, hi + 1, dtype=torch.int16).to(dtype)
        for scale in torch.logspace(-6, 3, 40).tolist() + torch.rand(40, generator=g).tolist():
            for zero in (lo, 0 if lo < 0 else 128, hi, 7):
                s, z = torch.tensor(scale, dtype=torch.float32), torch.tensor(zero)
                back = host_int8.quantize(host_int8.dequantize(q, s, z, 0), s, z, 0, dtype)
                assert torch.equal(back, q), (dtype, scale, zero)
