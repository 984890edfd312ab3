"""Every bad input of the lit corpus, run the way a user runs ge-opt.

The lit files check each diagnostic under --verify-diagnostics or
--parsing-diagnostics, which exit 0. Here every chunk of every file in
test/filecheck/errors/ goes through plain ge-opt (with the file's -p
pipeline, if any): it must exit 1 with one diagnostic (positioned as MLIR
prints it, or one `ge-opt: ` line) and no traceback.
ge-opt runs in-process, so some 200 chunks take seconds.
"""

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from tools.ge_opt import USER_ERROR, main

ERRORS = Path(__file__).parents[1] / "filecheck" / "errors"


def pipeline_args(text: str) -> list[str]:
    """The -p option of the file's first ge-opt RUN line."""
    run = re.search(r"^// RUN: (?:not )?ge-opt %s([^|\n]*)", text, re.M)
    args = shlex.split(run.group(1)) if run else []
    return [a for i, a in enumerate(args) if a == "-p" or (i and args[i - 1] == "-p")]


def corpus():
    for path in sorted(ERRORS.glob("*.mlir")):
        text = path.read_text()
        for i, chunk in enumerate(text.split("// -----")):
            yield pytest.param(chunk, pipeline_args(text), id=f"{path.stem}#{i}")


@pytest.mark.parametrize("chunk, args", list(corpus()))
def test_bad_input_is_exit_1_with_one_line(chunk, args, tmp_path):
    path = tmp_path / "input.mlir"
    path.write_text(chunk)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(path), *args])
    assert code == USER_ERROR, err.getvalue()
    assert "Traceback" not in out.getvalue() + err.getvalue()
    lines = err.getvalue().strip().splitlines()
    # A positioned diagnostic is MLIR's three lines (headline, source, caret),
    # with notes after it; one without a position is a single `ge-opt:` line.
    positioned = re.match(r"\S+:\d+:\d+: error: \S", lines[0]) if lines else None
    if positioned:
        assert lines[2].strip() and set(lines[2].strip()) == {"^"}, err.getvalue()
        assert all(re.match(r"\S+:\d+:\d+: note: ", line) for line in lines[3::3])
    else:
        assert len(lines) == 1 and lines[0].startswith("ge-opt: "), err.getvalue()
    assert out.getvalue() == ""
