"""Blame where the bug is: a table rule a plugin registers with
register_canonicalization is blamed on the plugin's file at the rule's line,
not on ge_dialect/patterns.py; a pattern class on its rewriter call's line."""

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).parents[2]
GRAPH = """\
func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.sub %x, %y : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %r = ge.neg %a : tensor<4xf32>
  func.return %r : tensor<4xf32>
}
"""
BREAKS_TYPES = '''\
from xdsl.dialects.builtin import TensorType, f32
from ge_dialect import ge
from ge_dialect.patterns import Op, RewriteRule, Var
from passes.driver.plugins import register_canonicalization

register_canonicalization(RewriteRule(
    "neg(x) -> neg(x) of 99 elements",
    Op(ge.NegOp, Var("x")),
    lambda m: ge.NegOp.create(operands=[m.x], result_types=[TensorType(f32, [99])])))
'''
UNDO_EACH_OTHER = '''\
from ge_dialect import ge
from ge_dialect.patterns import Op, RewriteRule, Var
from passes.driver.plugins import register_canonicalization

# Wrong on purpose: each undoes the other, so canonicalize never converges.
TO_ADD = RewriteRule("sub(a, b) -> add(a, b)", Op(ge.SubOp, Var("a"), Var("b")),
                     lambda m: ge.AddOp(m.a, m.b))
register_canonicalization(TO_ADD)
register_canonicalization(RewriteRule(
    "add(a, b) -> sub(a, b)", Op(ge.AddOp, Var("a"), Var("b")),
    lambda m: ge.SubOp(m.a, m.b)))
'''


def ge_opt(tmp_path, plugin_text):
    plugin = tmp_path / "my_rules.py"
    plugin.write_text(plugin_text)
    graph = tmp_path / "graph.mlir"
    graph.write_text(GRAPH)
    r = subprocess.run([sys.executable, "-m", "tools.ge_opt", str(graph), "-p", "canonicalize",
                        "--load-pass-plugin", str(plugin), "--crash-dir", str(tmp_path / "c")],
                       cwd=REPO, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r.stderr
    return plugin.resolve(), r.stderr.strip().splitlines()[-1]


def line_of(plugin: Path, text: str) -> int:
    return next(i for i, line in enumerate(plugin.read_text().splitlines(), 1) if text in line)


def test_a_registered_rule_that_breaks_the_verifier_is_blamed_on_its_line(tmp_path):
    plugin, report = ge_opt(tmp_path, BREAKS_TYPES)
    line = line_of(plugin, '"neg(x) -> neg(x) of 99 elements"')
    assert (f"this is a bug in the plugin {plugin}:{line} "
            "(pattern neg(x) -> neg(x) of 99 elements)") in report, report
    assert "patterns.py" not in report


def test_registered_rules_that_undo_each_other_are_both_blamed(tmp_path):
    plugin, report = ge_opt(tmp_path, UNDO_EACH_OTHER)
    first = line_of(plugin, '"sub(a, b) -> add(a, b)"')
    second = line_of(plugin, '"add(a, b) -> sub(a, b)"')
    assert f"{plugin}:{first} (pattern sub(a, b) -> add(a, b))" in report, report
    assert f"{plugin}:{second} (pattern add(a, b) -> sub(a, b))" in report, report
    assert "bug in ge-opt" not in report
