"""A QDQ ONNX model as ONNX Runtime's quantize_static writes it by default:
asymmetric int8 activations (a zero point of -128 after a ReLU, which the
quantizer then drops), int8 weights with a zero point of 0, int32 biases
behind their own DequantizeLinear, a Gemm with transB. It imports, the
default pipeline folds its convs and its Gemm into int8 cube ops with zero
points, and it computes what ONNX's own reference evaluator computes."""

import numpy as np
import pytest
import torch

onnx = pytest.importorskip("onnx")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

from npu_graph import GraphParser  # noqa: E402
from npu_graph.compiler import lower, optimize, plan_device  # noqa: E402
from runtime.executor import Executable, Options  # noqa: E402
from runtime.host import onednn, quantize_rows  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")


def _qdq_model() -> onnx.ModelProto:
    rng = np.random.default_rng(0)
    inits, nodes = [], []

    def const(name, array):
        inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def qdq(x, name, scale, zero_point):
        s, z = const(f"{name}_s", np.float32(scale)), const(f"{name}_z", np.int8(zero_point))
        nodes.append(helper.make_node("QuantizeLinear", [x, s, z], [f"{name}_q"]))
        nodes.append(helper.make_node("DequantizeLinear", [f"{name}_q", s, z], [f"{name}_dq"]))
        return f"{name}_dq"

    def weight(name, shape, input_scale):
        w = rng.integers(-127, 128, shape, dtype=np.int8)
        sw = (rng.random(shape[0]) * 0.02 + 0.005).astype(np.float32)
        nodes.append(helper.make_node(
            "DequantizeLinear", [const(f"{name}_wq", w), const(f"{name}_ws", sw),
                                 const(f"{name}_wz", np.zeros(shape[0], np.int8))],
            [f"{name}_w"], axis=0))
        bias = rng.integers(-2000, 2000, shape[0], dtype=np.int32)
        nodes.append(helper.make_node(
            "DequantizeLinear", [const(f"{name}_bq", bias),
                                 const(f"{name}_bs", (sw * np.float32(input_scale))),
                                 const(f"{name}_bz", np.zeros(shape[0], np.int32))],
            [f"{name}_b"], axis=0))
        return f"{name}_w", f"{name}_b"

    x = qdq("x", "in", 0.03, -1)
    w, b = weight("c1", (8, 3, 3, 3), 0.03)
    nodes.append(helper.make_node("Conv", [x, w, b], ["c1"], pads=[1, 1, 1, 1]))
    c1 = qdq("c1", "c1o", 0.05, -128)  # the ReLU after c1 is the zero point's saturation
    nodes.append(helper.make_node("MaxPool", [c1], ["p"], kernel_shape=[2, 2], strides=[2, 2]))
    p = qdq("p", "po", 0.05, -128)
    w, b = weight("c2", (8, 8, 3, 3), 0.05)
    nodes.append(helper.make_node("Conv", [p, w, b], ["c2"], pads=[1, 1, 1, 1]))
    c2 = qdq("c2", "c2o", 0.04, 3)
    nodes.append(helper.make_node("Add", [c2, p], ["r"]))
    r = qdq("r", "ro", 0.06, -10)
    nodes.append(helper.make_node("GlobalAveragePool", [r], ["g"]))
    g = qdq("g", "go", 0.02, -20)
    nodes.append(helper.make_node("Flatten", [g], ["f"]))
    f = qdq("f", "go2", 0.02, -20)
    w, b = weight("fc", (5, 8), 0.02)
    nodes.append(helper.make_node("Gemm", [f, w, b], ["y"], transB=1))
    y = qdq("y", "yo", 0.01, 7)
    graph = helper.make_graph(
        nodes, "qdq", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 8, 8])],
        [helper.make_tensor_value_info(y, TensorProto.FLOAT, [2, 5])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])


@pytest.fixture(scope="module")
def model():
    proto = _qdq_model()
    onnx.checker.check_model(proto)
    return proto


def _compiled(proto, primitives: bool) -> Executable:
    module = GraphParser().parse_onnx_model(proto).module
    return Executable(plan_device(lower(optimize(module, "ge-O3"))),
                      options=Options(primitives=primitives))


def test_default_pipeline_folds_into_int8_cube_ops_with_zero_points(model):
    optimized = GraphParser().parse_onnx_model(model).optimize()
    text = str(optimized.module)
    assert text.count("ge.quantized_conv2d") == 2 and text.count("ge.quantized_linear") == 1
    assert "input_zero_point = -1" in text and "output_zero_point = -128" in text
    assert "output_zero_point = 7" in text  # the Gemm's requantization
    assert "ge.conv2d" not in text and "ge.matmul" not in text and "ge.linear" not in text


@pytest.mark.parametrize("primitives", [True, False] if onednn.available() else [False])
def test_it_computes_what_onnx_reference_computes(model, primitives):
    """Reference kernels: the QDQ arithmetic itself. oneDNN's: the same up to
    the order of float rounding, which can move a value at a rounding tie
    by one step of the output's scale (0.01)."""
    executable = _compiled(model, primitives)
    if primitives:
        names = [r.__name__ for r in executable.runners]
        assert names.count("onednn_int8_quantized_conv2d") == 2, names
        assert "onednn_int8_quantized_linear" in names, names
        # the residual add's dequantizes read the convs' NHWC int8 in their own layout
        if quantize_rows.library() is not None:
            assert names.count("int8_dequantize_rows") >= 2, names
    reference = ReferenceEvaluator(model)
    g = torch.Generator().manual_seed(1)
    for _ in range(4):
        x = torch.randn(2, 3, 8, 8, generator=g)
        (want,) = reference.run(None, {"x": x.numpy()})
        (got,) = executable.run(x)
        diff = np.abs(got.numpy() - want)
        assert diff.max() <= 0.01 + 1e-6 and (diff > 1e-6).mean() <= 0.1, diff
        if not primitives:
            assert diff.max() < 1e-6
