"""ge-fuzz finds a planted plugin bug on random graphs; ge-reduce shrinks the find."""

import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from xdsl.parser import Parser

from ge_dialect import make_context
from npu_graph.reduce import op_count, reduce
from passes.driver import plugins
from tools import ge_fuzz, ge_reduce

PLUGINS = Path(__file__).parents[1] / "plugins"
SUB_RULES = str(PLUGINS / "sub_rules.py")
GRAPH = """func.func @main(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c = ge.const dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %a = ge.add %x, %w : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %t = ge.tanh %a : tensor<4xf32>
  %m = ge.mul %t, %c : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %s = ge.sigmoid %m : tensor<4xf32>
  %r = ge.relu %s : tensor<4xf32>
  func.return %r, %a : tensor<4xf32>, tensor<4xf32>
}
"""


@pytest.fixture(autouse=True)
def fresh_registry(monkeypatch):
    monkeypatch.setattr(plugins, "_LOADED", {})


def parse(text):
    return Parser(make_context(), text).parse_module()


def test_ge_fuzz_finds_a_planted_plugin_bug_and_reduces_it(capsys, tmp_path):
    # a few ops of the generator's menu, so a sub with a constant comes up often
    status = ge_fuzz.main(["-p", "sub-rules", "--load-pass-plugin", SUB_RULES,
                           "--ops", "sub,add,mul,relu,tanh", "--examples", "20",
                           "--out", str(tmp_path), "--reduce"])
    out = capsys.readouterr().out
    assert status == ge_fuzz.FOUND, out
    finds = sorted(tmp_path.glob("find-*.reduced.mlir"))
    assert finds, out
    for path in finds:
        text = path.read_text()
        assert text.startswith("// ge-fuzz: output 0: max |out - ref| = ")
        module = parse(text)
        assert op_count(module) <= 5
        assert "ge.sub" in text  # the op the planted bug rewrites survives
        # its header's re-check command says it is still wrong
        command = text.splitlines()[1].removeprefix("// re-check: ge-fuzz ")
        assert command.endswith(f"--interesting {path}")
        assert ge_fuzz.main(shlex.split(command)) == 0


def test_ge_fuzz_passes_a_sound_pipeline(capsys, tmp_path):
    status = ge_fuzz.main(["-p", "ge-O1", "--examples", "4", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert status == ge_fuzz.OK, out
    assert "4 graphs through 'ge-O1', 0 wrong" in out
    assert not list(tmp_path.iterdir())


def test_ge_fuzz_user_errors(capsys):
    assert ge_fuzz.main(["-p", "no-such-pass", "--examples", "1"]) == ge_fuzz.USER_ERROR
    assert "Unrecognized passes" in capsys.readouterr().err
    assert ge_fuzz.main(["--ops", "relu,nope", "--examples", "1"]) == ge_fuzz.USER_ERROR
    assert "unknown op(s) nope" in capsys.readouterr().err


def test_reduce_keeps_what_the_test_needs_and_nothing_else():
    module = parse(GRAPH)
    small = reduce(module, lambda m: "ge.tanh" in str(m))
    assert op_count(small) == 1
    assert "ge.tanh" in str(small) and "ge.const" not in str(small)
    small.verify()


def test_ge_reduce_runs_a_shell_test(tmp_path):
    path = tmp_path / "graph.mlir"
    path.write_text(GRAPH)
    r = subprocess.run([sys.executable, "-m", "tools.ge_reduce", str(path), "--test",
                        "grep -q ge.sigmoid"], capture_output=True, text=True,
                       cwd=Path(__file__).parents[2])
    assert r.returncode == 0, r.stderr
    reduced = (tmp_path / "graph.reduced.mlir").read_text()
    assert "5 ops -> 1 ops" in r.stdout
    assert "ge.sigmoid" in reduced and "ge.tanh" not in reduced


def test_ge_reduce_refuses_an_input_that_is_not_interesting(tmp_path, capsys):
    path = tmp_path / "graph.mlir"
    path.write_text(GRAPH)
    assert ge_reduce.main([str(path), "--test", "false"]) == ge_reduce.USER_ERROR
    assert "not interesting to begin with" in capsys.readouterr().err
