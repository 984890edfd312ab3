"""The fusion report says, per rule, what matched, what fused and why not."""

import json
import subprocess
import sys

import pytest
from xdsl.parser import Parser

from ge_dialect import make_context
from npu_graph.compiler import import_model, optimize
from passes.op_fusion import RULES, fuse_module
from test.models import resnet_block

CONV = ('ge.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, '
        'dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x1x4x4xf32>, '
        'tensor<2x1x1x1xf32> -> tensor<1x2x4x4xf32>')
T = "tensor<1x2x4x4xf32>"


def parse(body: str, results: str = T):
    text = (f"func.func @main(%x: tensor<1x1x4x4xf32>, %y: {T}) -> ({results}) {{\n"
            f"  %w = ge.const dense<1.0> : tensor<2x1x1x1xf32>\n  %c = {CONV}\n{body}\n}}")
    module = Parser(make_context(), text).parse_module()
    module.verify()
    return module


def rule(report, name):
    return report.to_json()["rules"][[r.name for r in RULES].index(name)]


def test_report_lists_every_rule_with_counts_on_a_resnet_block():
    model, inputs = resnet_block.make()
    module = optimize(import_model(model, inputs), "ge-O3{disable=op-fusion}")
    report = fuse_module(module)
    names = [r["name"] for r in report.to_json()["rules"]]
    assert names == [r.name for r in RULES]
    assert rule(report, "conv2d_add_relu")["applied"] == 1
    assert rule(report, "conv2d_relu")["applied"] == 1


def test_multi_use_is_rejected_with_its_reason():
    module = parse(f"  %r = ge.relu %c : {T}\n  %m = ge.mul %c, %c : {T}, {T} -> {T}\n"
                   f"  func.return %r, %m : {T}, {T}", f"{T}, {T}")
    entry = rule(fuse_module(module), "conv2d_relu")
    assert (entry["matched"], entry["applied"]) == (1, 0)
    (rejected,) = entry["rejected"]
    assert rejected["root"] == "%r"
    assert rejected["reason"] == "multi-use: %c (ge.conv2d) has 2 users"


def test_size_cap_is_rejected_with_its_reason():
    module = parse(f"  %a = ge.add %c, %y : {T}, {T} -> {T}\n  %r = ge.relu %a : {T}\n"
                   f"  func.return %r : {T}")
    report = fuse_module(module, max_group_size=2)
    (rejected,) = rule(report, "conv2d_add_relu")["rejected"]
    assert rejected["reason"] == "size cap: 3 ops > max-group-size=2"


def test_an_op_claimed_by_a_better_rule_is_named():
    module = parse(f"  %r = ge.relu %c : {T}\n  %m = ge.mul %r, %y : {T}, {T} -> {T}\n"
                   f"  func.return %m : {T}")
    report = fuse_module(module)
    (rejected,) = rule(report, "elementwise")["rejected"]
    assert rejected["reason"] == "claimed: %r roots a 'conv2d_relu' group"
    assert rule(report, "conv2d_relu")["applied"] == 1


@pytest.mark.parametrize("pipeline", ["op-fusion", "ge-O3"])
def test_ge_opt_writes_the_report(tmp_path, pipeline):
    path = tmp_path / "report.json"
    r = subprocess.run([sys.executable, "-m", "tools.ge_opt", "examples/conv_bn_relu.mlir",
                        "-p", pipeline, f"--fusion-report={path}"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    report = json.loads(path.read_text())
    by_name = {entry["name"]: entry for entry in report["rules"]}
    expected = "conv2d_relu" if pipeline == "ge-O3" else "conv2d_batch_norm_relu"
    assert by_name[expected]["applied"] == 1


def test_resnet50_report_lists_every_rule_and_compiles_to_at_most_60_tasks(tmp_path):
    """The zoo's full ResNet-50 under ge-O3: the report has every rule of RULES,
    in order, with its counts; the conv rules fire on every block; no batch norm
    is left, and lowering gives at most 60 tasks (53 convs + pool + fc is the floor)."""
    from ge_dialect import ascend, ge
    from npu_graph.compiler import lower
    from test.models import ZOO

    model, inputs = ZOO["resnet50"]()
    path = tmp_path / "report.json"
    module = optimize(import_model(model, inputs), f'ge-O3{{fusion-report="{path}"}}')
    report = json.loads(path.read_text())
    assert [entry["name"] for entry in report["rules"]] == [r.name for r in RULES]
    for entry in report["rules"]:
        assert 0 <= entry["applied"] <= entry["matched"]
        assert len(entry["rejected"]) == entry["matched"] - entry["applied"]
    applied = {entry["name"]: entry["applied"] for entry in report["rules"]}
    assert applied["conv2d_add_relu"] == 16  # one residual join per bottleneck
    assert applied["conv2d_relu"] == 33      # the stem and two per bottleneck
    assert not [op for op in module.walk() if isinstance(op, ge.BatchNormOp)]
    tasks = [op for op in lower(module).walk() if isinstance(op, ascend.TaskOp)]
    assert len(tasks) <= 60
