"""bench/llm_memory.py: a tiny run's worker reports our warm RSS and where our
bytes go, and the table prints it."""

import subprocess
import sys
from pathlib import Path

import pytest
import torch._dynamo

from bench import llm_memory

ROOT = Path(__file__).parents[2]
pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::UserWarning")


def test_tiny_worker_reports_rss_and_the_breakdown():
    torch._dynamo.reset()
    try:
        row = llm_memory.worker("tiny", "ge_reduce_overhead", prompt_tokens=8, new_tokens=4)
    finally:
        torch._dynamo.reset()
    assert row["rss_warm_mb"] > 0 and row["same_twice"] and len(row["tokens"]) == 4
    parts = row["breakdown"]
    assert parts["graphs loaded"] == 2  # prefill and decode
    assert parts["model parameters"] > 0
    # the tiny model's weights are under the pool's 64 KB: each graph's own bytes,
    # loaded without a copy, so the IR constants hold them (splats aside: each
    # is decoded into a tensor of its own, a few KB in all)
    assert abs(parts["graph weights"] - parts["IR constants"]) < 0.01
    table = llm_memory.report([row])
    assert "ge_reduce_overhead" in table and "graphs loaded" in table


def test_an_unknown_peer_is_named():
    r = subprocess.run([sys.executable, "-m", "bench.llm_memory", "--peers", "nope"],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 2 and "unknown size or peer 'nope'" in r.stderr
