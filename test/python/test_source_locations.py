"""Source locations: the importer writes the model's lines, passes keep them,
--print-debuginfo shows them, and tools name ops by them."""

import json
import subprocess
import sys
from pathlib import Path

import torch
from xdsl.dialects.builtin import FileLineColLoc, UnknownLoc

from ge_dialect import ge
from ge_dialect.printing import format_ir
from npu_graph.compiler import import_model, run_pipeline

HERE = Path(__file__).name


class ConvReluScale(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(2, 3, 3)

    def forward(self, x):
        y = torch.relu(self.conv(x))  # CONV_RELU_LINE
        return y * 2.0  # SCALE_LINE


def line_of(marker: str) -> int:
    return next(i for i, text in enumerate(Path(__file__).read_text().splitlines(), 1)
                if text.rstrip().endswith(f"# {marker}"))


def imported():
    torch.manual_seed(0)
    return import_model(ConvReluScale().eval(), (torch.randn(1, 2, 6, 6),))


def test_the_importer_gives_each_op_its_model_line():
    module = imported()
    locs = {op.name: op.location for op in module.walk()
            if op.name in ("ge.conv2d", "ge.relu", "ge.mul")}
    line = line_of("CONV_RELU_LINE")
    assert locs["ge.conv2d"] == locs["ge.relu"]
    assert isinstance(locs["ge.relu"], FileLineColLoc)
    assert (locs["ge.relu"].filename.data, locs["ge.relu"].line.data) == (HERE, line)
    assert locs["ge.mul"].line.data == line_of("SCALE_LINE")


def test_fusion_fuses_locations_and_lowering_keeps_them():
    module = imported()
    run_pipeline(module, "ge-O3")
    (group,) = [op for op in module.walk() if isinstance(op, ge.FusedOp)
                and any(isinstance(m, ge.Conv2dOp) for m in op.walk())]
    # conv and relu are on one line: the group has that one location
    assert isinstance(group.location, FileLineColLoc)
    assert group.location.line.data == line_of("CONV_RELU_LINE")
    run_pipeline(module, "lower-to-ascend")
    tasks = [op for op in module.walk() if op.name == "ascend.task"]
    assert tasks and all(not isinstance(t.location, UnknownLoc) for t in tasks)


def test_members_on_different_lines_give_a_fused_location(tmp_path):
    graph = tmp_path / "g.mlir"
    graph.write_text("""func.func @main(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32> {
  %c = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32> -> tensor<1x3x4x4xf32> loc("m.py":7:0)
  %r = ge.relu %c : tensor<1x3x4x4xf32> loc("m.py":8:0)
  func.return %r : tensor<1x3x4x4xf32>
}
""")
    r = ge_opt(str(graph), "-p", "op-fusion", "--print-debuginfo")
    assert r.returncode == 0, r.stderr
    assert '} loc(fused["m.py":7:0, "m.py":8:0])' in r.stdout
    # without the flag no location is printed
    plain = ge_opt(str(graph), "-p", "op-fusion")
    assert "loc(" not in plain.stdout


def test_printing_with_locations_is_byte_deterministic():
    texts = {format_ir(imported(), 4, debuginfo=True) for _ in range(2)}
    assert len(texts) == 1
    assert f'loc("{HERE}":{line_of("CONV_RELU_LINE")}:0)' in texts.pop()


def test_fusion_report_gives_the_location_of_rejected_roots(tmp_path):
    graph = tmp_path / "g.mlir"
    # the relu's conv has two users, so conv2d_relu is rejected for it
    graph.write_text("""func.func @main(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x1x1xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>) {
  %c = ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32> -> tensor<1x3x4x4xf32> loc("m.py":7:0)
  %r = ge.relu %c : tensor<1x3x4x4xf32> loc("m.py":8:0)
  func.return %r, %c : tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>
}
""")
    report = tmp_path / "report.json"
    r = ge_opt(str(graph), "-p", "op-fusion", "--fusion-report", str(report))
    assert r.returncode == 0, r.stderr
    rejected = [x for rule in json.loads(report.read_text())["rules"] for x in rule["rejected"]]
    assert rejected and rejected[0]["loc"] == 'loc("m.py":8:0)'


def ge_opt(*args):
    return subprocess.run([sys.executable, "-m", "tools.ge_opt", *args], capture_output=True,
                          text=True)
