"""ge-import as a user meets it: IR out, or one message and exit status 1."""

import subprocess
import sys
import textwrap

import pytest
from xdsl.parser import Parser

from ge_dialect import make_context
from tools.ge_import import main

THREE_UNSUPPORTED = textwrap.dedent("""\
    import torch
    from torch import nn


    class ThreeUnsupported(nn.Module):
        def forward(self, x):
            a = torch.logcumsumexp(x, dim=1)
            b, _ = torch.nanmedian(x, dim=1, keepdim=True)
            c = torch.cummin(x, dim=0)[0]
            return a + b + c


    def make():
        return ThreeUnsupported(), (torch.randn(3, 4),)
    """)


def ge_import(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "tools.ge_import", *args],
                          capture_output=True, text=True, cwd=cwd)


def test_unsupported_ops_exit_1_with_one_report(tmp_path):
    (tmp_path / "three.py").write_text(THREE_UNSUPPORTED)
    r = ge_import("three.py:make", cwd=tmp_path)
    assert r.returncode == 1
    assert "Traceback" not in r.stderr + r.stdout and r.stdout == ""
    assert r.stderr.startswith("ge-import: error: cannot import the model: 3 unsupported")
    for op, line, code in (("aten.logcumsumexp.default", 7, "torch.logcumsumexp(x, dim=1)"),
                           ("aten.nanmedian.dim", 8, "torch.nanmedian(x, dim=1, keepdim=True)"),
                           ("aten.cummin.default", 9, "torch.cummin(x, dim=0)[0]")):
        assert f"{op} x1" in r.stderr and f"three.py:{line}: " in r.stderr and code in r.stderr
    assert "npu_graph.custom_op" in r.stderr


def test_zoo_model_to_file(tmp_path):
    """A zoo model with a dynamic batch: the IR parses back, with its `?` dims."""
    out = tmp_path / "model.mlir"
    assert main(["dynamic_batch", "-o", str(out)]) == 0
    text = out.read_text()
    Parser(make_context(), text).parse_module().verify()
    assert "func.func @main(%x: tensor<?x3x16x16xf32>)" in text


@pytest.mark.parametrize("spec, expected", [
    ("bad.py:make", "must return (model, example_inputs)"),
    ("bad.py:other", "has no function 'other'"),
    ("missing.py:make", "no such file"),
    ("no_such_zoo_model", "neither MODULE:FACTORY nor a zoo model"),
])
def test_bad_factories_exit_1(tmp_path, monkeypatch, capsys, spec, expected):
    (tmp_path / "bad.py").write_text("def make():\n    return 42\n")
    monkeypatch.chdir(tmp_path)
    assert main([spec]) == 1
    err = capsys.readouterr().err
    assert err.startswith("ge-import: error: ") and expected in err


def test_bad_command_line_is_one_line_exit_1(capsys):
    assert main([]) == 1
    assert capsys.readouterr().err == ("ge-import: error: the following arguments are "
                                       "required: MODEL\n")
