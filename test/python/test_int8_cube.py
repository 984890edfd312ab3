"""int8 cube tasks: fold-quantized on a small residual CNN, compiled and run.

The folded graph is checked against the QDQ graph it came from (the same
graph before fold-quantized, after quantize-static and quantize-residuals): with the reference kernels bit for bit (the
folded op's reference is the QDQ arithmetic), and compiled, where the int8
tasks run as oneDNN int8 primitives, to 1e-4 for nearly all logits
(integer products are exact; the float ops differ in rounding order, which
moves the odd value across a rounding boundary of the next quantize).
Against fp32 eager: top-1 agreement."""

import json

import pytest
import torch
from torch import nn
from xdsl.parser import Parser

import npu_graph
from ge_dialect import ascend, ge, make_context
from npu_graph import GEGraph, NpuGraph
from npu_graph.compiler import lower, optimize, plan_device
from npu_graph.quantize import calibrate
from passes.driver.runner import run_pipeline
from passes.pipelines import CALIBRATION_LEVEL
from runtime.executor import Executable, Options
from runtime.host import onednn, quantize_nhwc, quantize_rows
from runtime.reference import evaluate

QUANTIZE_ROWS = "int8_quantize_rows"

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::UserWarning")


class Block(nn.Module):
    """conv-bn-relu-conv-bn + shortcut (identity, or a strided 1x1 conv-bn), relu."""

    def __init__(self, cin: int, cout: int, stride: int = 1):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.b2 = nn.BatchNorm2d(cout)
        self.down = (nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                   nn.BatchNorm2d(cout)) if stride != 1 or cin != cout else None)

    def forward(self, x):
        y = self.b2(self.c2(torch.relu(self.b1(self.c1(x)))))
        return torch.relu(y + (x if self.down is None else self.down(x)))


class SmallResNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(16)
        self.layer1 = Block(16, 16)
        self.layer2 = Block(16, 32, stride=2)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = nn.functional.max_pool2d(torch.relu(self.bn(self.stem(x))), 2)
        x = self.layer2(self.layer1(x))
        return self.fc(nn.functional.adaptive_avg_pool2d(x, 1).flatten(1))


@pytest.fixture(scope="module")
def graphs():
    """(model, the QDQ graph, the folded graph, npu_graph.quantize's graph)."""
    torch.manual_seed(0)
    model = SmallResNet()
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.uniform_(-0.3, 0.3)
                m.running_var.uniform_(0.5, 2.0)
                m.weight.uniform_(0.5, 1.5)
    model.eval()
    calibration = [torch.randn(8, 3, 32, 32) for _ in range(4)]
    graph = NpuGraph(model, input_spec=(calibration[0],))
    prepared = GEGraph(run_pipeline(graph.module.clone(), CALIBRATION_LEVEL))
    calibrate(prepared, calibration)
    qdq = GEGraph(run_pipeline(prepared.module, "quantize-static,cse,quantize-residuals"))
    folded = GEGraph(run_pipeline(qdq.module.clone(), "fold-quantized,dce"))
    return model, qdq, folded, npu_graph.quantize(graph, calibration)


def _ops(graph: GEGraph, kind) -> list:
    return [op for op in graph.module.walk() if isinstance(op, kind)]


def test_quantize_runs_fold_quantized(graphs):
    _, _, folded, quantized = graphs
    assert str(quantized.module) == str(folded.module)


def test_every_cube_op_folds_and_int8_flows_between_tasks(graphs):
    _, _, folded, _ = graphs
    convs = _ops(folded, ge.QuantizedConv2dOp)
    assert len(convs) == 6 and len(_ops(folded, ge.QuantizedLinearOp)) == 1
    assert not _ops(folded, ge.Conv2dOp | ge.LinearOp | ge.DequantizeOp)
    # each block's first conv requantizes its ReLU'd result for the second,
    # and layer1's last conv (residual add and ReLU in it) for both readers
    # of layer1's output, layer2's first conv and its strided shortcut: an
    # int8 value from one int8 op straight into the next, no float between;
    # each is a ReLU's result, which calibration saw at or above 0: ui8
    chained = [op for op in convs if isinstance(op.input.owner, ge.QuantizedConv2dOp)]
    assert len(chained) == 4
    for op in chained:
        assert str(op.input.type.element_type) == "ui8"
        assert op.input.owner.output_scale.value.data == op.input_scale.value.data
    # the residual adds and the ReLU after them are in the second convs
    assert not _ops(folded, ge.AddOp | ge.ReluOp)
    assert sum(op.residual is not None for op in convs) == 2
    # both residuals are int8: layer1's (the max-pool's output) is quantized
    # for its first conv anyway (quantize-residuals), layer2's strided
    # shortcut conv has its output calibrated and writes int8 (quantize-static)
    residuals = {type(op.residual.owner): op for op in convs if op.residual is not None}
    assert set(residuals) == {ge.MaxPool2dOp, ge.QuantizedConv2dOp}
    for op in residuals.values():
        assert op.residual_scale is not None
    # the max-pool's output is ReLU'd (ui8); the shortcut conv's is not (i8)
    assert str(residuals[ge.MaxPool2dOp].residual.type.element_type) == "ui8"
    assert str(residuals[ge.QuantizedConv2dOp].residual.type.element_type) == "i8"
    after_shortcut = residuals[ge.QuantizedConv2dOp]
    assert after_shortcut.residual.owner.output_scale == after_shortcut.residual_scale
    # the stem's max-pool runs on int8 (quantize moved before it, exactly),
    # so the stem conv writes int8 too: the image and the pooled features
    # are the only tensors quantized by a task of their own
    assert [op.input.name_hint for op in _ops(folded, ge.QuantizeOp)] == ["x", "flatten"]


def test_lowered_int8_tasks_are_cube_tasks_on_int8_buffers(graphs):
    _, _, folded, _ = graphs
    module = plan_device(lower(optimize(folded.module.clone(), "ge-O3")))
    tasks = [op for op in module.walk() if isinstance(op, ascend.TaskOp)]
    int8_tasks = [t for t in tasks if any(isinstance(o, ge.QuantizedCubeOp)
                                          for o in t.body.walk())]
    assert len(int8_tasks) == 7 and all(t.unit.data == "cube" for t in int8_tasks)
    i8_buffers = {v for t in int8_tasks for v in t.outs
                  if str(v.type.element_type) in ("i8", "ui8")}
    readers = [t for t in int8_tasks if any(v in i8_buffers for v in t.ins)]
    assert len(i8_buffers) == 5 and len(readers) == 4
    # a conv with an int8 residual (read last there) and an int8 output
    # writes over the residual's bytes, so oneDNN adds it in place (a sum
    # post-op); layer2's, with an fp32 output for the pooling, cannot
    residual_tasks = [t for t in int8_tasks if any(
        getattr(o, "residual_scale", None) is not None for o in t.body.walk())]
    in_place = [t.ins[-1].owner.offset == t.outs[0].owner.offset for t in residual_tasks]
    out_types = [str(t.outs[0].type.element_type) for t in residual_tasks]
    assert in_place == [True, False] and out_types == ["ui8", "f32"]


def test_reference_kernels_match_the_qdq_graph_exactly(graphs):
    _, qdq, folded, _ = graphs
    torch.manual_seed(1)
    x = torch.randn(8, 3, 32, 32)
    assert torch.equal(evaluate(folded.module, x)[0], evaluate(qdq.module, x)[0])


@pytest.mark.parametrize("primitives", [True, False] if onednn.available() else [False])
def test_compiled_int8_matches_qdq_and_fp32_top1(graphs, primitives):
    model, qdq, folded, _ = graphs
    torch.manual_seed(2)
    held_out = torch.randn(64, 3, 32, 32)
    reference = torch.cat([evaluate(qdq.module, b)[0] for b in held_out.split(8)])
    executable = Executable(plan_device(lower(optimize(folded.module.clone(), "ge-O3"))),
                            options=Options(primitives=primitives))
    names = [r.__name__ for r in executable.runners]
    if primitives:
        assert names.count("onednn_int8_quantized_conv2d") == 6, names
        assert "onednn_int8_quantized_linear" in names
        # the pooled features: the rows loop where it builds, else a reorder
        assert (QUANTIZE_ROWS if quantize_rows.library() else "onednn_int8_quantize") in names
        # the image (NCHW fp32, 3 channels) into its NHWC int8 view: the C loop where it builds
        assert ("int8_quantize_image" in names) == (quantize_nhwc.library() is not None), names
    got = torch.cat([executable.run(b)[0].clone() for b in held_out.split(8)])
    # a channels-last input of the same values takes the reference quantize: the same result
    channels_last = held_out[:8].contiguous(memory_format=torch.channels_last)
    assert torch.equal(executable.run(channels_last)[0], got[:8])
    # The same arithmetic up to float rounding: most logits agree to 1e-4;
    # where an intermediate int8 value rounded the other way (the float ops
    # round in another order), a logit moves by ~1e-3.
    err = (got - reference).abs()
    assert (err <= 1e-4).float().mean() >= 0.95, (err > 1e-4).sum()
    assert err.max() <= 0.01 * reference.abs().max(), err.max()
    with torch.no_grad():
        fp32 = model(held_out)
    assert (got.argmax(1) == fp32.argmax(1)).float().mean() >= 0.9
    assert (got.argmax(1) == reference.argmax(1)).float().mean() >= 0.95


class Mixed(nn.Module):
    """A depthwise conv with ReLU6 (grouped weights: one scale per output channel over
    two weight dims) and a linear with a residual (h + fc2(relu(fc1(h)))),
    read by another linear: the residual stream goes on in int8."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.dw = nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.pw = nn.Conv2d(8, 16, 1)
        self.fc1 = nn.Linear(16, 16)
        self.fc2 = nn.Linear(16, 16)
        self.fc3 = nn.Linear(16, 4)

    def forward(self, x):
        x = torch.relu(self.pw(nn.functional.relu6(self.dw(torch.relu(self.conv(x))))))
        h = nn.functional.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc3(h + self.fc2(torch.relu(self.fc1(h))))


def test_grouped_conv_and_linear_residual_run_as_int8_primitives():
    torch.manual_seed(0)
    model = Mixed().eval()
    calibration = [torch.randn(4, 3, 12, 12) for _ in range(2)]
    graph = NpuGraph(model, input_spec=(calibration[0],))
    prepared = GEGraph(run_pipeline(graph.module.clone(), CALIBRATION_LEVEL))
    calibrate(prepared, calibration)
    qdq = GEGraph(run_pipeline(prepared.module, "quantize-static,cse,quantize-residuals"))
    folded = GEGraph(run_pipeline(qdq.module.clone(), "fold-quantized,dce"))
    (residual_linear,) = [op for op in _ops(folded, ge.QuantizedLinearOp)
                          if op.residual is not None]
    assert residual_linear.residual_scale is not None  # h is quantized for fc1 anyway
    (relu6,) = [op for op in _ops(folded, ge.QuantizedConv2dOp) if op.activation is not None]
    assert relu6.activation.data == "ge.clamp" and relu6.groups.value.data == 8
    assert ge.activation_of(relu6).bounds() == (0.0, 6.0)
    assert not _ops(folded, ge.ClampOp)
    x = torch.randn(4, 3, 12, 12)
    reference = evaluate(qdq.module, x)[0]
    assert torch.equal(evaluate(folded.module, x)[0], reference)
    executable = Executable(plan_device(lower(optimize(folded.module.clone(), "ge-O3"))))
    if onednn.available():
        names = [r.__name__ for r in executable.runners]
        assert names.count("onednn_int8_quantized_conv2d") == 3, names
        assert names.count("onednn_int8_quantized_linear") == 3, names
    got = executable.run(x)[0]
    err = (got - reference).abs()
    assert (err <= 1e-4).float().mean() >= 0.95 and err.max() <= 0.01 * reference.abs().max()


def test_int8_micro_bench_smoke(tmp_path, capsys):
    from bench import int8_micro

    out = tmp_path / "int8.json"
    assert int8_micro.main(["--smoke", "--threads", "1", "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert set(result["ms"]) == {"fp32", "bf16", "int8"} and result["int8_over_bf16"] > 0
    assert sum(result["int8_kernels"].values()) == 21  # ResNet-18: 20 convs and the fc
    assert "int8 / bf16" in capsys.readouterr().out



class FeedForward(nn.Module):
    """A transformer block's tail: linear -> GELU -> linear."""

    def __init__(self):
        super().__init__()
        self.up, self.down = nn.Linear(16, 64), nn.Linear(64, 16)

    def forward(self, x):
        return self.down(nn.functional.gelu(self.up(x)))


def test_gelu_folds_into_the_int8_linear():
    torch.manual_seed(0)
    model = FeedForward().eval()
    calibration = [torch.randn(2, 8, 16) for _ in range(2)]
    graph = NpuGraph(model, input_spec=(calibration[0],))
    prepared = GEGraph(run_pipeline(graph.module.clone(), CALIBRATION_LEVEL))
    calibrate(prepared, calibration)
    qdq = GEGraph(run_pipeline(prepared.module, "quantize-static,cse,quantize-residuals"))
    folded = GEGraph(run_pipeline(qdq.module.clone(), "fold-quantized,dce"))
    (up,) = [op for op in _ops(folded, ge.QuantizedLinearOp) if op.activation is not None]
    assert isinstance(ge.activation_of(up), ge.GeluOp) and up.output_scale is not None
    assert not _ops(folded, ge.GeluOp)
    x = torch.randn(2, 8, 16)
    reference = evaluate(qdq.module, x)[0]
    assert torch.equal(evaluate(folded.module, x)[0], reference)
    executable = Executable(plan_device(lower(optimize(folded.module.clone(), "ge-O3"))))
    if onednn.available():
        names = [r.__name__ for r in executable.runners]
        assert names.count("onednn_int8_quantized_linear") == 2, names
    err = (executable.run(x)[0] - reference).abs()
    assert (err <= 1e-4).float().mean() >= 0.95 and err.max() <= 0.01 * reference.abs().max()


QUANTIZE_BF16 = """
func.func @main(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %s = ge.const dense<0.02> : tensor<f32>
  %b = ge.cast %x : tensor<4x64xf32> -> tensor<4x64xbf16>
  %q = ge.quantize %b, %s {axis = 1 : i64} : tensor<4x64xbf16>, tensor<f32> -> tensor<4x64xi8>
  %y = ge.dequantize %q, %s {axis = 1 : i64} : tensor<4x64xi8>, tensor<f32> -> tensor<4x64xf32>
  func.return %y : tensor<4x64xf32>
}
"""


@pytest.mark.parametrize("loop", [True, False])
def test_a_bf16_tensor_is_quantized_as_it_is(loop, monkeypatch):
    """What a bf16 op (attention under allow_mix_precision_bf16) writes is
    quantized as it is, as the quantize's f32 arithmetic would after a cast:
    by the rows loop, or by a reorder where the loop is not built."""
    if not loop:
        monkeypatch.setattr(quantize_rows, "library", lambda: None)
    module = Parser(make_context(), QUANTIZE_BF16).parse_module()
    executable = Executable(plan_device(lower(optimize(module, "ge-O3"))))
    names = [r.__name__ for r in executable.runners]
    if loop and quantize_rows.library() is not None:
        assert QUANTIZE_ROWS in names, names
    elif onednn.available():
        assert "onednn_int8_quantize" in names, names
    x = torch.randn(4, 64) * 2
    want = torch.round(x.bfloat16().float() / 0.02).clamp(-128, 127) * 0.02
    assert torch.equal(executable.run(x)[0], want)
