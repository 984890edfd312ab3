"""ge-bisect names the pass and the rewrite that broke the numbers (planted through a plugin)."""

from pathlib import Path

import pytest

from passes.driver import plugins
from tools.ge_bisect import FOUND, OK, USER_ERROR, main

PLUGINS = Path(__file__).parents[1] / "plugins"
RELU_RULES = str(PLUGINS / "relu_rules.py")


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
    assert out.rstrip().endswith("no pass moves the outputs past the tolerance")


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
