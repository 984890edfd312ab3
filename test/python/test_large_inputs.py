"""Deep, large and long inputs: ge-opt parses them in bounded time and memory,
or refuses them with exit 1 and a stated limit, never a crash (exit 2)."""

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tools.ge_opt import MAX_NESTING


# Runs ge-opt and writes the peak RSS of its own image (VmHWM) to the file
# GE_PEAK_FILE names. ru_maxrss, from wait4 or getrusage, would not do: Linux
# counts in it the forking process's pages at exec, gigabytes once this
# pytest worker has run a large model.
_GE_OPT_PEAK = """\
import atexit, os, runpy, sys
def _peak():
    with open("/proc/self/status") as status, open(os.environ["GE_PEAK_FILE"], "w") as out:
        out.write(next(line for line in status if line.startswith("VmHWM:")).split()[1])
atexit.register(_peak)
sys.argv[0] = "ge-opt"
runpy.run_module("tools.ge_opt", run_name="__main__")
"""


def ge_opt(path, *args, timeout=300):
    """ge-opt's result, its wall time, and its own peak RSS in `r.peak_rss_mb`."""
    start = time.perf_counter()
    peak = Path(f"{path}.peak")
    env = {**os.environ, "GE_PEAK_FILE": str(peak)}
    r = subprocess.run([sys.executable, "-c", _GE_OPT_PEAK, str(path), *args],
                       capture_output=True, text=True, timeout=timeout, env=env)
    r.peak_rss_mb = int(peak.read_text()) / 1024 if peak.exists() else float("nan")
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
