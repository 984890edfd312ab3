"""ge-bisect names the pass and the rewrite that broke the numbers (planted through a plugin)."""

from pathlib import Path

import pytest

from passes.driver import plugins
from tools.ge_bisect import FOUND, OK, USER_ERROR, main

PLUGINS = Path(__file__).parents[1] / "plugins"
RELU_RULES = str(PLUGINS / "relu_rules.py")
DIRECT = str(PLUGINS / "direct_edits.py")
MULS = """func.func @main(%x: tensor<8xf32>, %w: tensor<8xf32>) -> tensor<8xf32> {
  %one = ge.const dense<1.0> : tensor<8xf32>
  %a = ge.mul %x, %one : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  %scale = ge.const dense<1.25> : tensor<8xf32>
  %b = ge.mul %a, %scale : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  %tenth = ge.const dense<0.1> : tensor<8xf32>
  %c = ge.mul %b, %tenth : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  %s = ge.add %c, %w : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  func.return %s : tensor<8xf32>
}
"""


@pytest.fixture(autouse=True)
def fresh_registry(monkeypatch):
    monkeypatch.setattr(plugins, "_LOADED", {})


def bisect(capsys, *args):
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def test_finds_the_planted_wrong_rewrite(capsys):
    status, out, _ = bisect(capsys, "--model", "tiny_resnet", "-p", "ge-O2,relu-rules,op-fusion",
                            "--load-pass-plugin", RELU_RULES)
    assert status == FOUND, out
    assert "ge-O2/fold-batch-norm" in out  # every stage of the level was checked
    assert f"first bad pass: relu-rules (plugin {Path(RELU_RULES).resolve()})" in out
    # The correct SinkReluBelowMaxPool rewrite (#1) is passed over.
    assert "first bad rewrite: #2 of 2 in relu-rules, pattern RemoveReluOfNonNegative" in out
    assert "  on ge.relu %relu_1 " in out
    assert "    %relu_1 = ge.relu %add : tensor<2x16x8x8xf32>" in out
    before, after = out.splitlines()[-1].split("error ")[1].split(" before it, ")
    assert float(before) < 1e-4 < float(after.split()[0])


def test_a_sound_pipeline_reports_no_bad_pass(capsys):
    status, out, _ = bisect(capsys, "--model", "resnet_block", "-p", "ge-O3", "--seed", "3")
    assert status == OK, out
    assert "ge-O3/op-fusion" in out
    # lowered and planned IR are run on the runtime and checked too
    assert "  lower-to-ascend\n" in out and "  memory-reuse\n" in out
    assert out.rstrip().endswith("no pass moves the outputs past the tolerance "
                                 "(lowered and planned IR run on the runtime)")


def test_mlir_input_and_recorded_source_locations(capsys, tmp_path):
    graph = tmp_path / "graph.mlir"
    graph.write_text("""func.func @main(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %y = ge.relu %x : tensor<1x2x4x4xf32> loc("model.py":12:8)
  %z = ge.add %y, %x : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  %r = ge.relu %z : tensor<1x2x4x4xf32> loc("model.py":14:8)
  func.return %r : tensor<1x2x4x4xf32>
}
""")
    status, out, _ = bisect(capsys, "--model", str(graph), "-p", "relu-rules",
                            "--load-pass-plugin", RELU_RULES)
    assert status == FOUND
    assert '  on ge.relu %r at loc("model.py":14:8)' in out


def test_a_direct_edit_pass_is_narrowed_to_its_single_bad_rewrite(capsys, tmp_path):
    graph = tmp_path / "muls.mlir"
    graph.write_text(MULS)
    status, out, _ = bisect(capsys, "--model", str(graph), "-p", "drop-mul-by-one",
                            "--load-pass-plugin", DIRECT)
    assert status == FOUND, out
    assert "first bad pass: drop-mul-by-one" in out
    # #1 (x * 1.0) is right and passed over; #2 (x * 1.25) is the wrong one
    assert "first bad rewrite: #2 of 2 in drop-mul-by-one, pattern DropMulByOne" in out
    # named by its place in the input file, and the plugin line that rewrote it
    assert f'  on ge.mul %b at loc("{graph}":5:3)' in out
    assert f"  rewritten by {Path(DIRECT).resolve()}:" in out
    # and the find is handed to ge-reduce
    assert (f"shrink it: ge-reduce {graph} --test 'ge-bisect -p drop-mul-by-one --seed 0 "
            f"--load-pass-plugin {Path(DIRECT).resolve()} --model' --interesting-exit 3") in out


def test_a_lowering_level_bug_is_found_by_running_the_lowered_ir(capsys, tmp_path):
    """A weight rounded through f16 after lowering: an error well under the old
    1e-4 tolerance, caught by f32's default, and the pass is named."""
    graph = tmp_path / "muls.mlir"
    graph.write_text(MULS)
    status, out, _ = bisect(capsys, "--model", str(graph), "-p", "ge-O3,lower-to-ascend,"
                            "round-weights-f16,memory-reuse", "--load-pass-plugin", DIRECT)
    assert status == FOUND, out
    assert "tol 1e-05 times" in out
    assert "first bad pass: round-weights-f16" in out
    error = float(out.split("  round-weights-f16  <- first bad pass")[0].split()[-1])
    assert 1e-5 < error < 1e-4
    assert "the pass counts no rewrites" in out


def test_model_from_a_python_file(capsys, tmp_path):
    factory = tmp_path / "my_model.py"
    factory.write_text("import torch\n\ndef build():\n"
                       "    torch.manual_seed(0)\n"
                       "    model = torch.nn.Sequential(torch.nn.Conv2d(2, 3, 3), torch.nn.ReLU())\n"
                       "    return model.eval(), (torch.randn(1, 2, 6, 6),)\n")
    status, out, _ = bisect(capsys, "--model", f"{factory}:build", "-p", "ge-O3")
    assert status == OK, out


@pytest.mark.parametrize("args, message", [
    (("--model", "no_such_model"), "unknown model 'no_such_model'; the zoo has: article,"),
    (("--model", "resnet_block", "-p", "nope"), "Unrecognized passes: ['nope']"),
    (("--model", "/no/such/model.py:make"), "model file not found: /no/such/model.py"),
])
def test_user_errors_exit_1_with_one_line(capsys, args, message):
    status, out, err = bisect(capsys, *args)
    assert status == USER_ERROR
    (line,) = err.strip().splitlines()
    assert line.startswith("ge-bisect: error: ") and message in line, line
