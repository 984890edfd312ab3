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
    for label in ("best-fit", "size-class", "auto", "streams+auto", "max |ours - eager|"):
        assert label in r.stdout
    assert "skip: no model 'no_such_model' in test.models.ZOO" in r.stdout
    assert trace.read_text().startswith('{"traceEvents"')


def test_suite_smoke_prints_the_table_and_writes_json(tmp_path):
    import json

    out = tmp_path / "suite.json"
    r = subprocess.run([sys.executable, "-m", "bench.suite", "--smoke", "--no-ort",
                        "--json", str(out)], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert "ours ms" in r.stdout and "compile by stage (s): tiny_resnet_bs1: import" in r.stdout
    rows = json.loads(out.read_text())["rows"]
    assert [row["model"] for row in rows] == ["tiny_resnet_bs1", "bert_tiny"]
    for row in rows:
        assert set(row["compile_s"]) == {"import", "passes", "lowering", "planning", "load",
                                         "total"}
        assert row["latency_ms"]["ours"] > 0 and row["ratio_ours_to"]["eager"] > 0
        assert row["memory_mb"]["arena"] <= row["memory_mb"]["naive"]
