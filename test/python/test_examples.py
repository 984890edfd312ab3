"""Every example runs, so none of them can rot: the article's snippets and the demo."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
ARTICLE = ROOT / "examples" / "article"

# What each snippet must print (besides exiting 0; they assert their own numerics).
EXPECTED = {
    "parse_and_print.py": ["Node0: Conv2D (input: x, conv_weight, conv_bias, output: conv2d)",
                           "Node2: Relu (input: batch_norm, output: relu)", "ge.batch_norm"],
    "optimize_flags.py": ["Node0: conv2d_relu_0 [cube, stream 0]", "max |npu_graph - eager|"],
    "pass_list.py": ["pipeline: constant-fold,op-fusion,dce,", "hardware-mapping,lower-to-ascend,memory-reuse"],
    "executor_stats.py": ["execution time:", "memory usage:", "conv2d_relu_0"],
    "save_load.py": ["article_optimized.npu", "identical outputs = True"],
    "memory_planning.py": ["smallest peak: arena 12.25 MB, lower bound 12.25 MB",
                           "within 64 MB: arena 12.25 MB",
                           "8 MB budget: memory-reuse: @main does not fit the memory budget"],
}


def run(args, **kw):
    r = subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True,
                       cwd=ROOT, timeout=600, **kw)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Traceback" not in r.stderr
    return r.stdout


def test_every_article_snippet_is_listed():
    assert sorted(p.name for p in ARTICLE.glob("*.py") if p.name != "article_model.py") == \
        sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_article_snippet_runs(name, tmp_path):
    out = run([ARTICLE / name] + ([tmp_path] if name == "save_load.py" else []))
    for text in EXPECTED[name]:
        assert text in out


def test_demo_runs_the_five_steps(tmp_path):
    out = run([ROOT / "examples" / "demo.py", "--model", "tiny_resnet", "--out", tmp_path,
               "--iterations", "1"])
    for n in range(1, 6):
        assert f"=== {n}. " in out
    assert "0 batch_norm ops left" in out
    assert f"Chrome trace of the simulated timeline written to {tmp_path}" in out
    assert (tmp_path / "tiny_resnet_optimized.npu").is_file()
    assert (tmp_path / "tiny_resnet_trace.json").read_text().startswith('{"traceEvents"')


def test_ge_bench_prints_every_figure(tmp_path):
    out = run(["-m", "bench.benchmark", "--model", "tiny_resnet", "--batch_size", "2",
               "--num_iterations", "2", "--trace", tmp_path / "t.json"])
    for text in ("ge-bench tiny_resnet  batch 2  2 iterations", "ours / eager throughput:",
                 "optimized / unoptimized:", "ge-O0, 1 stream", "memory: arena",
                 "lower bound", "naive", "host workspace", "max |ours - eager|",
                 "Chrome trace written to"):
        assert text in out


def test_ge_bench_json_on_a_npu_file(tmp_path):
    import json

    run([ARTICLE / "save_load.py", tmp_path])
    out = run(["-m", "bench.benchmark", "--model", tmp_path / "article_optimized.npu",
               "--num_iterations", "1", "--json"])
    result = json.loads(out)
    assert result["host"]["ours_images_per_s"] > 0 and result["host"]["eager_ms"] is None
    assert result["device"]["optimized_images_per_s"] > 0
    assert result["device"]["unoptimized_ms"] is None
    assert result["memory_mb"]["arena"] == pytest.approx(12.25)
    # fp32, no layout detours: the only scratch is the stem conv's NHWC copy
    # of the [1, 3, 224, 224] input
    assert result["memory_mb"]["host_workspace"] == pytest.approx(3 * 224 * 224 * 4 / 2**20)


def test_parallel_example_matches_one_card_both_ways():
    out = run([ROOT / "examples" / "parallel_resnet50.py", "--model", "tiny_resnet"])
    assert "data parallel: max |2 cards - 1 card| =" in out
    assert "pipeline parallel: max |2 cards - 1 card| =" in out
    assert out.count("card 1: compute") == 2
