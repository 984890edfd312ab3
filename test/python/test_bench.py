"""Smoke run of the benchmark scripts (bench/ is not part of the suite otherwise)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]


def test_memory_plan_bench_prints_the_figures_and_skips_missing_models(tmp_path):
    trace = tmp_path / "trace.json"
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "memory_plan.py"),
                        "--model", "resnet_block,no_such_model", "--batch", "1,2", "--check",
                        "--trace", str(trace)], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert "resnet_block batch 2: 3 tasks" in r.stdout
    for label in ("best-fit", "size-class", "auto", "streams+auto", "max |ours - eager|",
                  "verified"):
        assert label in r.stdout
    assert "skip: no model 'no_such_model' in test.models.ZOO" in r.stdout
    assert trace.read_text().startswith('{"traceEvents"')
