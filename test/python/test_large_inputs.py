"""Deep, large and long inputs: ge-opt parses them in bounded time and memory,
or refuses them with exit 1 and a stated limit, never a crash (exit 2)."""

import os
import subprocess
import sys
import threading
import time
from types import SimpleNamespace

import numpy as np
import pytest

from tools.ge_opt import MAX_NESTING


def ge_opt(path, *args, timeout=300):
    """ge-opt's result, its wall time, and its own peak RSS in `r.peak_rss_mb`
    (from wait4 on that one child: RUSAGE_CHILDREN would report the largest
    child this test process ever waited for, from any earlier test)."""
    start = time.perf_counter()
    out, err = (open(f"{path}.{name}", "w+") for name in ("stdout", "stderr"))
    with out, err:
        child = subprocess.Popen([sys.executable, "-m", "tools.ge_opt", str(path), *args],
                                 stdout=out, stderr=err, text=True)
        deadline = threading.Timer(timeout, child.kill)
        deadline.start()
        try:
            _, status, usage = os.wait4(child.pid, 0)
        finally:
            deadline.cancel()
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0), err.seek(0)
        r = SimpleNamespace(returncode=child.returncode, stdout=out.read(), stderr=err.read(),
                            peak_rss_mb=usage.ru_maxrss / 1024)
    return r, time.perf_counter() - start


def nested(depth: int) -> str:
    return "builtin.module {" * depth + "}" * depth


def test_400_nested_regions_parse(tmp_path):
    path = tmp_path / "deep.mlir"
    path.write_text(nested(400))
    r, _ = ge_opt(path, "--print-op-generic")
    assert r.returncode == 0, r.stderr
    assert r.stdout.count('"builtin.module"') == 400


def test_nesting_past_the_limit_is_a_user_error_naming_it(tmp_path):
    path = tmp_path / "deeper.mlir"
    path.write_text(nested(50 * MAX_NESTING))
    r, _ = ge_opt(path)
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr
    assert f"nests regions deeper than ge-opt supports (while parsing the input); it " \
           f"supports at least {MAX_NESTING} levels" in r.stderr


def _add_const_module(n: int, literal: str) -> str:
    t = f"tensor<{n}xf32>"
    return (f"func.func @main(%x: {t}) -> {t} {{\n  %c = ge.const dense<{literal}> : {t}\n"
            f"  %y = ge.add %x, %c : {t}, {t} -> {t}\n  func.return %y : {t}\n}}\n")


@pytest.mark.parametrize("kind", ["50 MB of hex weights", "a 10^6-element decimal literal"])
def test_large_inputs_parse_in_bounded_time_and_memory(kind, tmp_path):
    """Bounds with ample room on a shared 2-core machine: linear-time parsing
    takes about 3 s for the first and 17 s for the second there."""
    path = tmp_path / "large.mlir"
    if kind.startswith("50 MB"):
        values = np.arange(6_250_000, dtype=np.float32)
        path.write_text(_add_const_module(values.size, f'"0x{values.tobytes().hex().upper()}"'))
        assert 49e6 < path.stat().st_size < 52e6
    else:
        literal = ", ".join(f"{i % 97}.5" for i in range(10**6))  # not a splat
        path.write_text(_add_const_module(10**6, f"[{literal}]"))
    r, seconds = ge_opt(path, "-p", "canonicalize", "-o", str(tmp_path / "out.mlir"))
    assert r.returncode == 0, r.stderr
    assert seconds < 120, f"{kind}: {seconds:.0f} s"
    assert r.peak_rss_mb < 4096, f"{kind}: ge-opt's peak RSS {r.peak_rss_mb:.0f} MB"
    out = (tmp_path / "out.mlir").read_text()
    assert "ge.add" in out and 'dense<"0x' in out  # weights print back as hex
