"""Data parallel on two real ranks (torch.distributed, gloo on 127.0.0.1):
the batch split across cards gives the single-card result."""

import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from npu_graph import GraphExecutor, NpuGraph
from test.models import tiny_resnet


def test_two_cards_compute_what_one_card_computes():
    model, (x,) = tiny_resnet.make()           # the graph is compiled for one card's share
    optimized = NpuGraph(model, input_spec=(x,)).optimize()
    batch = torch.randn(2 * x.shape[0], *x.shape[1:])
    single = torch.cat([optimized(part) for part in torch.chunk(batch, 2)])
    start = time.perf_counter()
    with GraphExecutor(devices=2) as executor:
        executor.load_graph(optimized)
        for _ in range(3):
            out = executor.run(input_data=batch)
            torch.testing.assert_close(out, single, rtol=1e-5, atol=1e-5)
        with torch.no_grad():
            torch.testing.assert_close(out, model(batch), rtol=1e-4, atol=1e-4)
        with pytest.raises(ValueError, match="split into 2 equal shares"):
            executor.run(input_data=batch[:3])
    assert time.perf_counter() - start < 60


def test_devices_must_be_a_positive_integer():
    with pytest.raises(ValueError, match="devices must be an integer >= 1"):
        GraphExecutor(devices=0)


ROOT = Path(__file__).parents[2]


def test_the_same_graph_under_torchrun_matches_one_card():
    r = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--standalone",
                        "--nproc-per-node", "2", "examples/data_parallel.py", "--torchrun"],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2 cards vs 1 card: max |difference| = 0.00e+00" in r.stdout
