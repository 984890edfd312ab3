"""ge-opt as a user meets it: exit codes and one-line diagnostics."""

import re
import subprocess
import sys

import pytest

GOOD = """func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.relu %x : tensor<4xf32>
  func.return %y : tensor<4xf32>
}
"""


def ge_opt(*args, stdin=""):
    return subprocess.run([sys.executable, "-m", "tools.ge_opt", *args], input=stdin,
                          capture_output=True, text=True)


def test_pipeline_runs_and_prints_ascend_ir():
    r = ge_opt("-p", "op-fusion,dce,lower-to-ascend", stdin=GOOD)
    assert r.returncode == 0, r.stderr
    assert 'ascend.task "relu_0" {unit = "vector", stream = 0 : i64}' in r.stdout


@pytest.mark.parametrize("args, stdin, expected", [
    ((), GOOD.replace("}\n", ""), "error"),                        # truncated file
    ((), GOOD.replace("%x : tensor", "%nope : tensor"), "%nope"),  # undefined value
    (("-p", "no-such-pass"), GOOD, "no-such-pass"),
    (("-p", "op-fusion{bogus=1}"), GOOD, "bogus"),
    (("-p", "op-fusion{max-group-size=0}"), GOOD, "max-group-size must be >= 1"),
    (("/no/such/file.mlir",), "", "No such file"),
])
def test_user_errors_exit_1_with_one_line(args, stdin, expected):
    r = ge_opt(*args, stdin=stdin)
    assert r.returncode == 1
    assert "Traceback" not in r.stderr + r.stdout
    lines = r.stderr.rstrip("\n").splitlines()
    # One diagnostic: a `ge-opt: error:` line, or MLIR's positioned one
    # (`file:line:col: error: ...`, the source line, a caret).
    if re.match(r"\S+:\d+:\d+: error: ", lines[0]):
        assert len(lines) == 3 and lines[2].strip().startswith("^"), r.stderr
    else:
        assert len(lines) == 1 and lines[0].startswith("ge-opt: "), r.stderr
    assert expected in lines[0]


def test_help_lists_our_passes():
    r = ge_opt("--help")
    assert r.returncode == 0
    text = " ".join(r.stdout.split())
    for name in ("fold-batch-norm", "op-fusion", "dce", "lower-to-ascend"):
        assert name in text
