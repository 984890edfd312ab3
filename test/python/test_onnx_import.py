"""The ONNX frontend: ONNX's own node cases (a fast subset here, the whole suite
by `python -m tools.onnx_coverage`), the entry points, the unsupported-op report,
external data, and the round trip against the PyTorch path on the same weights."""

import json
import logging
import subprocess
import sys

import numpy as np
import pytest
import torch

onnx = pytest.importorskip("onnx")

from ge_dialect import ge  # noqa: E402
from lowering.onnx_to_ge import OnnxImportError, import_onnx  # noqa: E402
from lowering.torch_to_ge import import_module  # noqa: E402
from npu_graph import GraphParser, NpuGraph  # noqa: E402
from npu_graph.compiler import lower, optimize  # noqa: E402
from npu_graph.onnx_backend import GEBackend  # noqa: E402
from runtime.executor import Executable  # noqa: E402
from test.helpers import assert_all_close  # noqa: E402
from test.models import ZOO  # noqa: E402
from tools import onnx_coverage  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning",
                                        "ignore::FutureWarning")

# One or a few node cases per family: elementwise, broadcast, reductions, scans,
# convolutions, pools, norms, matmuls, shapes, gathers, scatters, pads, resize,
# recurrent ops, einsum, function ops and an upgraded old model.
FAST = (
    "test_abs", "test_add_bcast", "test_div", "test_pow", "test_where_example",
    "test_clip_default_min", "test_leakyrelu", "test_hardsigmoid", "test_gelu_tanh_1",
    "test_reduce_mean_keepdims_example",
    "test_reduce_log_sum_exp_default_axes_keepdims_example",
    "test_argmax_keepdims_example", "test_cumsum_2d_axis_1", "test_conv_with_strides_padding",
    "test_conv_with_autopad_same", "test_maxpool_2d_same_upper", "test_averagepool_2d_pads",
    "test_globalaveragepool", "test_batchnorm_epsilon", "test_layer_normalization_3d_axis1_epsilon",
    "test_instancenorm_example", "test_softmax_axis_1", "test_logsoftmax_axis_1",
    "test_matmul_4d", "test_gemm_transposeB", "test_reshape_negative_dim",
    "test_transpose_all_permutations_2",
    "test_squeeze", "test_unsqueeze_axis_1", "test_concat_2d_axis_negative_1",
    "test_split_equal_parts_1d_opset18", "test_slice_negative_axes", "test_expand_dim_changed",
    "test_tile", "test_gather_1", "test_gather_elements_negative_indices", "test_gathernd_example_int32",
    "test_scatter_elements_with_reduction_max", "test_scatternd", "test_constant_pad",
    "test_edge_pad", "test_top_k", "test_onehot_with_axis", "test_tril", "test_hardmax_example",
    "test_resize_upsample_scales_linear", "test_depthtospace_crd_mode_example",
    "test_range_float_type_positive_delta", "test_size", "test_if", "test_attention_4d_gqa",
    "test_rms_normalization_2d_axis1", "test_gridsample",
    "test_scan9_sum", "test_lstm_with_peepholes", "test_gru_defaults", "test_einsum_batch_matmul",
    "test_swiglu", "test_resize_downsample_scales_nearest", "test_convtranspose_autopad_same",
    "test_averagepool_2d_dilations", "test_lrn", "test_scatternd_max", "test_PReLU_1d_multiparam",
)


@pytest.fixture(scope="module")
def fast_cases():
    cases = onnx_coverage.cases(set(FAST))
    assert {c.name for c in cases} == set(FAST), "a node case was renamed"
    return cases


def test_fast_subset_of_onnx_node_cases_passes(fast_cases):
    records = [onnx_coverage.run_case(c) for c in fast_cases]
    failed = {r["name"]: f"{r['status']}: {r['detail']}" for r in records
              if r["status"] != "pass"}
    assert not failed


def test_coverage_doc_is_current():
    records = json.loads(onnx_coverage.RESULTS.read_text())
    assert onnx_coverage.DOC.read_text() == onnx_coverage.render(records), (
        "docs/onnx-coverage.md is stale: run python -m tools.onnx_coverage --write")
    assert not [r for r in records if r["status"] in ("wrong", "crash")]


def _model(nodes, inputs, outputs, initializers=(), opset=18):
    graph = onnx.helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    return onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", opset)])


def _tensor(name, shape, elem=onnx.TensorProto.FLOAT):
    return onnx.helper.make_tensor_value_info(name, elem, shape)


def test_initializers_become_constants_and_names_become_hints():
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    model = _model([onnx.helper.make_node("MatMul", ["input.1", "weight"], ["out:0"])],
                   [_tensor("input.1", [4, 2])], [_tensor("out:0", [4, 3])],
                   [onnx.numpy_helper.from_array(w, "weight")])
    module = import_onnx(model)
    text = str(module)
    assert "%input: tensor<4x2xf32>" in text and "%out = ge.matmul %input, %weight" in text
    (const,) = [op for op in module.walk() if isinstance(op, ge.ConstOp)]
    assert const.value.data.data == w.tobytes()  # raw bytes, not decimal text


def test_symbolic_dims_become_dynamic_and_run_at_any_size():
    model = _model([onnx.helper.make_node("Relu", ["x"], ["y"])],
                   [_tensor("x", ["batch", 3])], [_tensor("y", ["batch", 3])])
    module = import_onnx(model)
    assert "tensor<?x3xf32>" in str(module)
    program = Executable(lower(optimize(module)))
    for n in (1, 5):
        x = torch.randn(n, 3)
        torch.testing.assert_close(program.run(x)[0], torch.relu(x))


def test_unsupported_ops_are_reported_at_once_with_node_names():
    """Each unsupported node once, grouped by op and cause; a node that only
    reads an unsupported node's output is not reported again."""
    h = onnx.helper
    nodes = [h.make_node("BitwiseNot", ["i"], ["j"], name="bits0"),
             h.make_node("Det", ["x"], ["d"], name="det0"),
             h.make_node("Det", ["x"], ["e"], name="det1"),
             h.make_node("Add", ["d", "e"], ["f"], name="add0")]
    model = _model(nodes, [_tensor("x", [1, 2, 2]), _tensor("i", [3], onnx.TensorProto.INT32)],
                   [_tensor("j", [3], onnx.TensorProto.INT32), _tensor("f", [1])])
    with pytest.raises(OnnxImportError) as info:
        import_onnx(model)
    text = str(info.value)
    assert "2 unsupported ops (3 nodes)" in text
    assert "BitwiseNot (no GE mapping for BitwiseNot) x1: nodes 'bits0'" in text
    assert "Det (no GE mapping for Det) x2: nodes 'det0', 'det1'" in text
    assert "add0" not in text


def test_external_data_loads_from_beside_the_model(tmp_path):
    w = np.random.rand(64, 64).astype(np.float32)
    model = _model([onnx.helper.make_node("MatMul", ["x", "w"], ["y"])],
                   [_tensor("x", [2, 64])], [_tensor("y", [2, 64])],
                   [onnx.numpy_helper.from_array(w, "w")])
    path = tmp_path / "m.onnx"
    onnx.save(model, str(path), save_as_external_data=True, all_tensors_to_one_file=True,
              location="weights.bin", size_threshold=0)
    assert (tmp_path / "weights.bin").exists()
    x = np.random.rand(2, 64).astype(np.float32)
    graph = NpuGraph.from_onnx(str(path)).optimize()
    np.testing.assert_allclose(graph(torch.from_numpy(x)).numpy(), x @ w, rtol=1e-5)


def test_graph_parser_and_backend_entry_points():
    model = _model([onnx.helper.make_node("Sigmoid", ["x"], ["y"])],
                   [_tensor("x", [2, 3])], [_tensor("y", [2, 3])])
    graph = GraphParser().parse_onnx_model(model)
    assert graph.nodes() == ["Node0: Sigmoid (input: x, output: y)"]
    x = np.random.rand(2, 3).astype(np.float32)
    (y,) = GEBackend.run_model(model, [x])
    np.testing.assert_allclose(y, 1 / (1 + np.exp(-x)), rtol=1e-6)


def test_ge_import_reads_onnx_files_for_ge_opt(tmp_path):
    model = _model([onnx.helper.make_node("Relu", ["x"], ["y"])],
                   [_tensor("x", [2, 3])], [_tensor("y", [2, 3])])
    path = tmp_path / "relu.onnx"
    onnx.save(model, str(path))
    imported = subprocess.run([sys.executable, "-m", "tools.ge_import", str(path)],
                              capture_output=True, text=True)
    assert imported.returncode == 0, imported.stderr
    optimized = subprocess.run([sys.executable, "-m", "tools.ge_opt", "-", "-p", "ge-O3"],
                               input=imported.stdout, capture_output=True, text=True)
    assert optimized.returncode == 0, optimized.stderr
    assert "ge.relu" in optimized.stdout and "ge.hardware" in optimized.stdout


@pytest.mark.parametrize("name", ["resnet50", "bert"])
def test_round_trip_matches_the_pytorch_import(name):
    """The same model exported by torch.onnx (dynamo) and imported through ONNX
    fuses into the same task count (within 10%) and computes the same outputs."""
    logging.disable(logging.WARNING)
    model, inputs = ZOO[name]()
    model.eval()
    proto = torch.onnx.export(model, inputs, dynamo=True, verbose=False).model_proto
    through_onnx = optimize(import_onnx(proto))
    through_torch = optimize(import_module(model, inputs))

    def tasks(module):
        return [op for op in module.body.block.first_op.body.block.ops
                if not isinstance(op, ge.ConstOp)][:-1]

    assert abs(len(tasks(through_onnx)) - len(tasks(through_torch))) <= 0.1 * len(
        tasks(through_torch))
    got = Executable(lower(through_onnx)).run(*inputs)
    assert_all_close(tuple(got), tuple(Executable(lower(through_torch)).run(*inputs)))


def test_loop_becomes_a_ge_while_and_counts_like_onnx():
    """Loop(M = 5, cond, total) adding i * x each trip, with x read from outside."""
    h = onnx.helper
    body = h.make_graph(
        [h.make_node("Cast", ["i"], ["i_f"], to=onnx.TensorProto.FLOAT),
         h.make_node("Mul", ["i_f", "x"], ["step"]),
         h.make_node("Add", ["total_in", "step"], ["total_out"]),
         h.make_node("Identity", ["cond_in"], ["cond_out"])],
        "body",
        [_tensor("i", [], onnx.TensorProto.INT64), _tensor("cond_in", [], onnx.TensorProto.BOOL),
         _tensor("total_in", [3])],
        [_tensor("cond_out", [], onnx.TensorProto.BOOL), _tensor("total_out", [3])])
    model = _model([h.make_node("Loop", ["M", "", "zeros"], ["total"], body=body)],
                   [_tensor("x", [3]), _tensor("zeros", [3])], [_tensor("total", [3])],
                   [onnx.numpy_helper.from_array(np.array(5, dtype=np.int64), "M")])
    module = import_onnx(model)
    assert "ge.while" in str(module)
    x = np.array([1.0, 2.0, -1.0], dtype=np.float32)
    (total,) = GEBackend.run_model(model, [x, np.zeros(3, np.float32)])
    np.testing.assert_allclose(total, x * (0 + 1 + 2 + 3 + 4))


def test_nodes_of_constants_fold_through_ge_kernels_only():
    """Shape arithmetic on constants folds at import (Range, Shape, Gather feed a
    Reshape); an op with no GE mapping stays unsupported even on constants."""
    h = onnx.helper
    nodes = [h.make_node("Shape", ["x"], ["shape"]),
             h.make_node("Gather", ["shape", "zero"], ["rows"], axis=0),
             h.make_node("Range", ["start", "six", "one"], ["cols"]),
             h.make_node("Size", ["cols"], ["ncols"]),
             h.make_node("Unsqueeze", ["ncols", "zero1"], ["ncols1"]),
             h.make_node("Unsqueeze", ["rows", "zero1"], ["rows1"]),
             h.make_node("Div", ["ncols1", "two"], ["half"]),
             h.make_node("Concat", ["rows1", "half", "half"], ["target"], axis=0),
             h.make_node("Reshape", ["x", "target"], ["y"])]
    c = onnx.numpy_helper.from_array
    inits = [c(np.array(0, np.int64), "zero"), c(np.array([0], np.int64), "zero1"),
             c(np.array(0, np.int64), "start"), c(np.array(6, np.int64), "six"),
             c(np.array(1, np.int64), "one"), c(np.array([2], np.int64), "two")]
    model = _model(nodes, [_tensor("x", [2, 9])], [_tensor("y", [2, 3, 3])], inits)
    module = import_onnx(model)
    assert [op.name for op in module.walk() if op.name.startswith("ge.")] == ["ge.reshape"]
    x = np.random.rand(2, 9).astype(np.float32)
    (y,) = GEBackend.run_model(model, [x])
    np.testing.assert_array_equal(y, x.reshape(2, 3, 3))

    det = _model([h.make_node("Det", ["w"], ["d"], name="det0"),
                  h.make_node("Add", ["x", "d"], ["y"])],
                 [_tensor("x", [])], [_tensor("y", [])],
                 [c(np.eye(2, dtype=np.float32), "w")])
    with pytest.raises(OnnxImportError, match="Det .no GE mapping for Det. x1: nodes 'det0'"):
        import_onnx(det)


@pytest.mark.parametrize("attrs, scales, sizes, path", [
    (dict(mode="nearest"), [1, 1, 1.7, 0.6], None, "ge.index"),  # half_pixel, prefer floor
    (dict(mode="nearest", coordinate_transformation_mode="align_corners",
          nearest_mode="round_prefer_ceil"), None, [1, 2, 4, 13], "ge.index"),
    (dict(mode="linear", antialias=1), [1, 1, 0.45, 0.7], None, "ge.index"),
    (dict(mode="cubic", exclude_outside=1, cubic_coeff_a=-0.5), [1, 1, 1.5, 2.25], None,
     "ge.index"),
    (dict(mode="linear", coordinate_transformation_mode="tf_crop_and_resize",
          extrapolation_value=-3.0), None, [1, 2, 5, 6], "ge.index"),
    (dict(mode="linear", axes=[3, 2], keep_aspect_ratio_policy="not_larger"), None, [5, 20],
     "ge.index"),
    (dict(mode="linear"), [1, 1, 2, 3], None, "ge.interpolate"),  # what torch computes
    (dict(mode="cubic", coordinate_transformation_mode="align_corners"), None,
     [1, 2, 11, 4], "ge.index"),
])
def test_resize_follows_onnx_definitions(attrs, scales, sizes, path):
    """Resize against onnx's reference evaluator on random data, through GE ops:
    `ge.interpolate` where torch computes ONNX's mode, gathered taps elsewhere."""
    from onnx.reference import ReferenceEvaluator
    h = onnx.helper
    c = onnx.numpy_helper.from_array
    inits = [c(np.array([0.1, 0.2, 0.0, 0.0, 1.0, 1.0, 0.8, 1.1], np.float32), "roi")]
    inputs = ["x", "roi", "", ""]
    if scales is not None:
        inits.append(c(np.array(scales, np.float32), "scales"))
        inputs[2] = "scales"
    else:
        inits.append(c(np.array(sizes, np.int64), "sizes"))
        inputs[3] = "sizes"
    model = _model([h.make_node("Resize", inputs, ["y"], **attrs)],
                   [_tensor("x", [1, 2, 7, 9])], [_tensor("y", list("nchw"))], inits, opset=19)
    assert path in str(import_onnx(model))
    x = np.random.default_rng(0).standard_normal((1, 2, 7, 9)).astype(np.float32)
    (expected,) = ReferenceEvaluator(model).run(None, {"x": x})
    (got,) = GEBackend.run_model(model, [x])
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_scan_unrolls_with_directions_and_axes():
    """Scan: a running sum over axis 1 of `a` read backwards, `b` read forwards
    along axis 0, one scan output stacked on axis 1 and one stacked in reverse.
    onnx's reference evaluator runs only axis 0 forwards, so the oracle is the
    loop ONNX's Scan defines, in NumPy; the evaluator checks the plain case."""
    from onnx.reference import ReferenceEvaluator
    h = onnx.helper
    body = h.make_graph(
        [h.make_node("Add", ["acc_in", "a_t"], ["acc_out"]),
         h.make_node("Mul", ["acc_out", "b_t"], ["prod"]),
         h.make_node("Neg", ["a_t"], ["neg"])],
        "body", [_tensor("acc_in", [2]), _tensor("a_t", [2]), _tensor("b_t", [2])],
        [_tensor("acc_out", [2]), _tensor("prod", [2]), _tensor("neg", [2])])

    def model(a_shape, **axes_and_directions):
        scan = h.make_node("Scan", ["init", "a", "b"], ["final", "prods", "negs"], body=body,
                           num_scan_inputs=2, **axes_and_directions)
        return _model([scan], [_tensor("init", [2]), _tensor("a", a_shape),
                               _tensor("b", [5, 2])],
                      [_tensor("final", [2]), _tensor("prods", ["p", "q"]),
                       _tensor("negs", [5, 2])])

    rng = np.random.default_rng(1)
    init, b = rng.standard_normal(2).astype(np.float32), rng.standard_normal((5, 2)).astype(
        np.float32)
    a = rng.standard_normal((2, 5)).astype(np.float32)
    acc, prods, negs = init, [], []
    for t in range(5):
        a_t = a[:, 4 - t]
        acc = acc + a_t
        prods.append(acc * b[t])
        negs.append(-a_t)
    got = GEBackend.run_model(model([2, 5], scan_input_axes=[1, 0], scan_input_directions=[1, 0],
                                    scan_output_axes=[1, 0], scan_output_directions=[0, 1]),
                              [init, a, b])
    for g, e in zip(got, (acc, np.stack(prods, 1), np.stack(negs[::-1], 0))):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-6)

    plain = model([5, 2])
    feeds = {"init": init, "a": np.ascontiguousarray(a.T), "b": b}
    for g, e in zip(GEBackend.run_model(plain, list(feeds.values())),
                    ReferenceEvaluator(plain).run(None, feeds)):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-6)


def test_ops_without_a_builder_import_through_their_onnx_function():
    """SwiGLU has no GE builder; its schema defines it as Swish(A) * B, and it
    imports as those GE ops. An op with neither (Det) is reported, and the
    report names the node, not the parts of a function body."""
    h = onnx.helper
    model = _model([h.make_node("SwiGLU", ["a", "b"], ["y"], alpha=1.5)],
                   [_tensor("a", [3, 4]), _tensor("b", [3, 4])], [_tensor("y", [3, 4])],
                   opset=28)
    text = str(import_onnx(model))
    assert "ge.sigmoid" in text and "ge.mul" in text
    a, b = np.random.default_rng(2).standard_normal((2, 3, 4)).astype(np.float32)
    (y,) = GEBackend.run_model(model, [a, b])
    np.testing.assert_allclose(y, a / (1 + np.exp(-1.5 * a)) * b, rtol=1e-5, atol=1e-6)


def test_backend_refuses_sequences_instead_of_stacking_them():
    model = _model([onnx.helper.make_node("Relu", ["x"], ["y"])],
                   [_tensor("x", [2, 3])], [_tensor("y", [2, 3])])
    rep = GEBackend.prepare(model)
    from runtime.program import InputError
    with pytest.raises(InputError, match="input 0 is a list, not a tensor"):
        rep.run([[np.zeros(3, np.float32), np.zeros(3, np.float32)]])


def test_dropout_in_training_mode_is_refused_not_run_as_identity():
    h = onnx.helper
    c = onnx.numpy_helper.from_array
    model = _model([h.make_node("Dropout", ["x", "ratio", "train"], ["y"])],
                   [_tensor("x", [4])], [_tensor("y", [4])],
                   [c(np.array(0.5, np.float32), "ratio"), c(np.array(True), "train")])
    with pytest.raises(OnnxImportError, match="Dropout in training mode"):
        import_onnx(model)


@pytest.mark.parametrize("kind, attrs, extra", [
    ("LSTM", dict(direction="bidirectional"), ["B", "", "h0", "c0", "P"]),
    ("GRU", dict(linear_before_reset=1, direction="reverse"), ["B", "", "h0"]),
    ("GRU", dict(layout=1), ["B"]),
    ("RNN", dict(direction="bidirectional"), ["B"]),
])
def test_recurrent_ops_unroll_like_onnx(kind, attrs, extra):
    """RNN / GRU / LSTM with random weights against onnx's reference evaluator:
    directions, biases, initial states, peepholes, linear_before_reset, layout."""
    from onnx.reference import ReferenceEvaluator
    gates = {"RNN": 1, "GRU": 3, "LSTM": 4}[kind]
    dirs, seq, batch, size, hidden = 2 if attrs.get("direction") == "bidirectional" else 1, 5, 3, 4, 6
    rng = np.random.default_rng(3)

    def rand(*shape):
        return (rng.standard_normal(shape) * 0.5).astype(np.float32)

    layout = attrs.get("layout", 0)
    arrays = {"W": rand(dirs, gates * hidden, size), "R": rand(dirs, gates * hidden, hidden),
              "B": rand(dirs, 2 * gates * hidden), "P": rand(dirs, 3 * hidden),
              "h0": rand(*((batch, dirs, hidden) if layout else (dirs, batch, hidden))),
              "c0": rand(*((batch, dirs, hidden) if layout else (dirs, batch, hidden)))}
    inputs = ["x", "W", "R", *extra]
    outputs = ["y", "y_h"] + (["y_c"] if kind == "LSTM" else [])
    node = onnx.helper.make_node(kind, inputs, outputs, hidden_size=hidden, **attrs)
    inits = [onnx.numpy_helper.from_array(arrays[name], name) for name in inputs[1:] if name]
    x_shape = [batch, seq, size] if layout else [seq, batch, size]
    model = _model([node], [_tensor("x", x_shape)],
                   [_tensor(name, list("abcd")[:3 + (name == "y")]) for name in outputs], inits)
    x = rand(*x_shape)
    expected = ReferenceEvaluator(model).run(None, {"x": x})
    got = GEBackend.run_model(model, [x])
    for g, e in zip(got, expected, strict=True):
        assert g.shape == e.shape
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)


def test_rnn_clip_bounds_the_inputs_of_the_activation():
    """clip applies to the pre-activation (onnx's reference evaluator ignores it,
    so the oracle is ONNX's RNN equation in NumPy)."""
    rng = np.random.default_rng(4)
    w, r = rng.standard_normal((1, 3, 2)).astype(np.float32), rng.standard_normal(
        (1, 3, 3)).astype(np.float32)
    node = onnx.helper.make_node("RNN", ["x", "W", "R"], ["y"], hidden_size=3, clip=0.3)
    model = _model([node], [_tensor("x", [4, 1, 2])], [_tensor("y", [4, 1, 1, 3])],
                   [onnx.numpy_helper.from_array(w, "W"), onnx.numpy_helper.from_array(r, "R")])
    x = rng.standard_normal((4, 1, 2)).astype(np.float32)
    h, expected = np.zeros((1, 3), np.float32), []
    for t in range(4):
        h = np.tanh(np.clip(x[t] @ w[0].T + h @ r[0].T, -0.3, 0.3))
        expected.append(h)
    (y,) = GEBackend.run_model(model, [x])
    np.testing.assert_allclose(y[:, 0], np.stack(expected), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("equation, shapes", [
    ("BTNH,BFNH->BNFT", [(2, 3, 4, 5), (2, 6, 4, 5)]),  # attention scores, as TF exports
    ("iij,jk->ik", [(3, 3, 4), (4, 2)]),                 # a diagonal, then a matmul
    ("a...,a...->...", [(3, 2, 4), (3, 1, 4)]),          # ellipsis dims that broadcast
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),      # three operands
    ("ij", [(3, 4)]),                                    # implicit output
])
def test_einsum_matches_numpy(equation, shapes):
    h = onnx.helper
    names = [f"x{i}" for i in range(len(shapes))]
    rng = np.random.default_rng(5)
    xs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    expected = np.einsum(equation, *xs)
    model = _model([h.make_node("Einsum", names, ["y"], equation=equation)],
                   [_tensor(name, list(s)) for name, s in zip(names, shapes)],
                   [_tensor("y", list(expected.shape))])
    (y,) = GEBackend.run_model(model, xs)
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shape, attrs", [
    ([1, 4, 5, 4], dict(strides=[2, 1], pads=[1, 0, 0, 2])),                # asymmetric pads
    ([1, 2, 3, 4], dict(strides=[2, 3], auto_pad="SAME_UPPER", group=2)),
    ([1, 2, 4, 3], dict(strides=[2, 2], auto_pad="SAME_LOWER", output_padding=[1, 1])),
    ([1, 2, 6], dict(strides=[3], pads=[2, 1], dilations=[2])),             # 1-D
])
def test_conv_transpose_windows_follow_onnx(shape, attrs):
    from onnx.reference import ReferenceEvaluator
    rng = np.random.default_rng(6)
    group = attrs.get("group", 1)
    per_group = 1 if group > 1 else 2  # the evaluator mixes groups up past one channel each
    w = rng.standard_normal([shape[1], per_group, *[3] * (len(shape) - 2)]).astype(np.float32)
    b = rng.standard_normal([per_group * group]).astype(np.float32)
    c = onnx.numpy_helper.from_array
    inputs = ["x", "w"] + (["b"] if group == 1 else [])  # the evaluator's grouped bias is off
    model = _model([onnx.helper.make_node("ConvTranspose", inputs, ["y"], **attrs)],
                   [_tensor("x", shape)], [_tensor("y", list("nchw")[:len(shape)])],
                   [c(w, "w"), c(b, "b")][:len(inputs) - 1])
    x = rng.standard_normal(shape).astype(np.float32)
    (expected,) = ReferenceEvaluator(model).run(None, {"x": x})
    (y,) = GEBackend.run_model(model, [x])
    assert y.shape == expected.shape
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("op, shape, attrs", [
    ("AveragePool", [1, 2, 7, 6], dict(kernel_shape=[2, 3], dilations=[2, 1], pads=[1, 0, 1, 2])),
    ("AveragePool", [1, 2, 9], dict(kernel_shape=[3], dilations=[3], pads=[2, 1],
                                     count_include_pad=1)),
    # ceil_mode over asymmetric pads: ONNX drops a last window that starts in the pads
    ("AveragePool", [1, 2, 5], dict(kernel_shape=[3], strides=[3], pads=[1, 2], ceil_mode=1)),
    ("LpPool", [1, 2, 6, 6], dict(kernel_shape=[2, 2], dilations=[2, 2], strides=[2, 1], p=3)),
])
def test_pools_with_dilations_and_ceil_mode_follow_onnx(op, shape, attrs):
    from onnx.reference import ReferenceEvaluator
    model = _model([onnx.helper.make_node(op, ["x"], ["y"], **attrs)], [_tensor("x", shape)],
                   [_tensor("y", list("ncde")[:len(shape)])], opset=22)
    x = np.random.default_rng(7).standard_normal(shape).astype(np.float32)
    (expected,) = ReferenceEvaluator(model).run(None, {"x": x})
    (y,) = GEBackend.run_model(model, [x])
    assert y.shape == expected.shape
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("reduction", ["mul", "max", "min"])
def test_scatter_nd_reductions_on_rows_with_repeats(reduction):
    """ScatterND mul / max / min into rows of a 3-D tensor, one row hit twice."""
    from onnx.reference import ReferenceEvaluator
    c = onnx.numpy_helper.from_array
    index = np.array([[1, 2], [0, 0], [1, 2]], dtype=np.int64)
    model = _model([onnx.helper.make_node("ScatterND", ["x", "i", "u"], ["y"],
                                          reduction=reduction)],
                   [_tensor("x", [2, 3, 4]), _tensor("u", [3, 4])], [_tensor("y", [2, 3, 4])],
                   [c(index, "i")])
    rng = np.random.default_rng(8)
    x, u = rng.standard_normal((2, 3, 4)).astype(np.float32), rng.standard_normal(
        (3, 4)).astype(np.float32)
    (expected,) = ReferenceEvaluator(model).run(None, {"x": x, "u": u})
    (y,) = GEBackend.run_model(model, [x, u])
    np.testing.assert_allclose(y, expected, rtol=1e-6)


def test_loop_with_scan_outputs_unrolls_when_its_trips_are_known():
    """Loop(M = 4) carrying a running product of x and stacking each trip's
    partial sum: unrolled (its trip count and condition are constants); a run-time
    trip count is refused by name. The oracle is onnx's reference evaluator."""
    from onnx.reference import ReferenceEvaluator
    h = onnx.helper
    body = h.make_graph(
        [h.make_node("Mul", ["prod_in", "x"], ["prod_out"]),
         h.make_node("Cast", ["i"], ["i_f"], to=onnx.TensorProto.FLOAT),
         h.make_node("Add", ["prod_out", "i_f"], ["partial"]),
         h.make_node("Identity", ["cond_in"], ["cond_out"])],
        "body",
        [_tensor("i", [], onnx.TensorProto.INT64), _tensor("cond_in", [], onnx.TensorProto.BOOL),
         _tensor("prod_in", [3])],
        [_tensor("cond_out", [], onnx.TensorProto.BOOL), _tensor("prod_out", [3]),
         _tensor("partial", [3])])
    c = onnx.numpy_helper.from_array
    model = _model([h.make_node("Loop", ["M", "go", "ones"], ["prod", "partials"], body=body)],
                   [_tensor("x", [3])], [_tensor("prod", [3]), _tensor("partials", [4, 3])],
                   [c(np.array(4, np.int64), "M"), c(np.array(True), "go"),
                    c(np.ones(3, np.float32), "ones")])
    x = np.array([0.5, -2.0, 1.5], dtype=np.float32)
    expected = ReferenceEvaluator(model).run(None, {"x": x})
    got = GEBackend.run_model(model, [x])
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-6)

    runtime_trips = _model([h.make_node("Loop", ["M", "", "ones"], ["prod", "partials"],
                                        body=body)],
                           [_tensor("M", [], onnx.TensorProto.INT64), _tensor("x", [3])],
                           [_tensor("prod", [3]), _tensor("partials", ["n", 3])],
                           [c(np.ones(3, np.float32), "ones")])
    with pytest.raises(OnnxImportError, match="trip count is known only at run time"):
        import_onnx(runtime_trips)
