"""Pass plugins: loading by path, the registry they join, and their one-line errors."""

import subprocess
import sys
from pathlib import Path

import pytest

from npu_graph.compiler import run_pipeline
from passes import get_all_passes
from passes.driver import plugins
from passes.driver.plugins import PluginError, load_pass_plugin
from xdsl.parser import Parser

from ge_dialect import make_context

PLUGINS = Path(__file__).parents[1] / "plugins"
TWO_RELUS = """func.func @main(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %y = ge.relu %x : tensor<1x2x4x4xf32>
  %z = ge.max_pool2d %y {kernel_size = array<i64: 1, 1>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = false} : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  func.return %z : tensor<1x2x4x4xf32>
}
"""


@pytest.fixture(autouse=True)
def fresh_registry(monkeypatch):
    """Each test starts with no plugin loaded."""
    monkeypatch.setattr(plugins, "_LOADED", {})


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_patterns_list_becomes_a_pass_named_by_pass_name():
    assert load_pass_plugin(PLUGINS / "relu_rules.py") == ["relu-rules"]
    assert get_all_passes()["relu-rules"]().name == "relu-rules"
    # Loading the same file again is a no-op, not a clash.
    assert load_pass_plugin(str(PLUGINS / "relu_rules.py")) == ["relu-rules"]


def test_module_passes_are_collected():
    names = load_pass_plugin(PLUGINS / "broken_passes.py")
    assert sorted(names) == ["clone-relu", "ping-pong", "touch-relu", "widen-relu"]
    assert plugins.plugin_of("ping-pong") == (PLUGINS / "broken_passes.py").resolve()


def test_pass_name_defaults_to_the_file_name(tmp_path):
    path = write(tmp_path, "my_rules.py", (PLUGINS / "relu_rules.py").read_text()
                 .replace('PASS_NAME = "relu-rules"', ""))
    assert load_pass_plugin(path) == ["my-rules"]


def test_python_api_takes_plugins():
    module = Parser(make_context(), TWO_RELUS).parse_module()
    run_pipeline(module, "relu-rules", plugins=[str(PLUGINS / "relu_rules.py")])
    ops = [op.name for op in module.walk()]
    assert ops.index("ge.max_pool2d") < ops.index("ge.relu")


@pytest.mark.parametrize("name, text, message", [
    ("syntax.py", "x = 1\ndef broken(:\n", r"syntax.py:2: syntax error: "),
    ("raises.py", "import os\nraise RuntimeError('no GPU here')\n",
     r"raises.py:2: RuntimeError: no GPU here"),
    ("missing.py", "import no_such_module_xyz\n",
     r"missing.py:1: ModuleNotFoundError: No module named 'no_such_module_xyz'"),
    ("empty.py", "X = 1\n", r"empty.py: defines no pass"),
    ("classes.py", "from passes.fold_batch_norm import FoldBatchNormIntoLayer\n"
                   "PATTERNS = [FoldBatchNormIntoLayer]\n",
     r"PATTERNS\[0\] is not a RewritePattern instance \(a class: instantiate it\)"),
    ("clash.py", "PASS_NAME = 'op-fusion'\nPATTERNS = []\n",
     r"pass 'op-fusion' clashes with a built-in GE pass"),
    ("xdsl_clash.py", "PASS_NAME = 'apply-pdl'\nPATTERNS = []\n",
     r"pass 'apply-pdl' clashes with an xDSL pass"),
])
def test_plugin_errors_are_one_line(tmp_path, name, text, message):
    with pytest.raises(PluginError, match=message) as info:
        load_pass_plugin(write(tmp_path, name, text))
    assert "\n" not in str(info.value)
    assert not plugins.registered_passes()


def test_a_name_taken_by_another_plugin_is_refused(tmp_path):
    load_pass_plugin(PLUGINS / "relu_rules.py")
    copy = write(tmp_path, "copy.py", (PLUGINS / "relu_rules.py").read_text())
    with pytest.raises(PluginError, match=r"'relu-rules' is already defined by plugin .*relu_rules.py"):
        load_pass_plugin(copy)


def test_missing_file():
    with pytest.raises(PluginError, match="plugin file not found: /no/such/plugin.py"):
        load_pass_plugin("/no/such/plugin.py")


def ge_opt(*args, stdin=TWO_RELUS):
    return subprocess.run([sys.executable, "-m", "tools.ge_opt", *args], input=stdin,
                          capture_output=True, text=True)


def test_ge_opt_runs_a_plugin_pass_and_lists_it_in_help():
    plugin = str(PLUGINS / "relu_rules.py")
    r = ge_opt("--load-pass-plugin", plugin, "-p", "relu-rules")
    assert r.returncode == 0, r.stderr
    assert r.stdout.index("ge.max_pool2d") < r.stdout.index("ge.relu")
    r = ge_opt(f"--load-pass-plugin={plugin}", "--help")
    assert "relu-rules" in r.stdout


def test_ge_opt_plugin_error_exits_1_with_one_line(tmp_path):
    bad = write(tmp_path, "bad.py", "def f(:\n")
    r = ge_opt("--load-pass-plugin", str(bad), "-p", "bad")
    assert r.returncode == 1
    assert r.stderr.strip() == f"ge-opt: error: {bad}:1: syntax error: invalid syntax"


def test_ge_opt_plugin_flag_without_a_file_exits_1():
    r = ge_opt("--load-pass-plugin")
    assert r.returncode == 1
    assert r.stderr.strip() == "ge-opt: error: argument --load-pass-plugin: expected one argument"


# ---- plugins that add to the built-in tables

TABLES = str(PLUGINS / "table_rules.py")
NEGS = """func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.neg %x : tensor<4xf32>
  %b = ge.neg %a : tensor<4xf32>
  %t = ge.tanh %b : tensor<4xf32>
  %n = ge.neg %t : tensor<4xf32>
  func.return %n : tensor<4xf32>
}
"""


@pytest.fixture
def fresh_tables(monkeypatch):
    """Registered rules and kernels are undone after the test."""
    from ge_dialect import canonicalization
    from passes import op_fusion
    from runtime import kernels

    monkeypatch.setattr(canonicalization, "EXTRA_RULES", [])
    monkeypatch.setattr(op_fusion, "FIRST_RULES", [])
    monkeypatch.setattr(op_fusion, "EXTRA_RULES", [])
    monkeypatch.setattr(kernels, "KERNELS", dict(kernels.KERNELS))
    monkeypatch.setattr(plugins, "_REGISTERED", [])


def test_a_plugin_s_rules_join_canonicalize_and_op_fusion_in_ge_O3(fresh_tables):
    assert load_pass_plugin(TABLES) == []  # no pass of its own, and that is fine
    assert plugins.registered_rules() == ["canonicalization 'neg(neg(x)) -> x'",
                                          "fusion rule 'tanh_neg'"]
    module = Parser(make_context(), NEGS).parse_module()
    run_pipeline(module, "ge-O3")
    ops = [op.name for op in module.walk()]
    # ge.neg carries no Canonicalized trait: the table line alone applies it
    assert ops.count("ge.neg") == 1
    (fused,) = [op for op in module.walk() if op.name == "ge.fused"]
    assert fused.kind.data == "tanh_neg"


def test_ge_opt_fusion_report_sees_a_plugin_rule(tmp_path):
    report = tmp_path / "report.json"
    r = ge_opt("--load-pass-plugin", TABLES, "-p", "ge-O3", "--fusion-report", str(report),
               stdin=NEGS)
    assert r.returncode == 0, r.stderr
    import json

    rules = {rule["name"]: rule for rule in json.loads(report.read_text())["rules"]}
    assert rules["tanh_neg"]["applied"] == 1
    assert '"tanh_neg"' in r.stdout and r.stdout.count("ge.neg") == 1


def test_registered_kernel_runs_and_clashes_are_refused(fresh_tables):
    import torch

    from ge_dialect import ge
    from runtime.kernels import KERNELS

    with pytest.raises(PluginError, match="'ge.relu' already has a host kernel"):
        plugins.register_kernel(ge.ReluOp, lambda op: torch.relu)
    plugins.register_kernel(ge.ReluOp, lambda op: torch.tanh, replace=True)
    assert KERNELS[ge.ReluOp](None) is torch.tanh
    from ge_dialect.patterns import Op, RewriteRule, Var

    rule = RewriteRule("x + 0 -> x", Op(ge.AddOp, Var("x")), lambda m: m.x)
    with pytest.raises(PluginError, match="canonicalization 'x \\+ 0 -> x' is already"):
        plugins.register_canonicalization(rule)
