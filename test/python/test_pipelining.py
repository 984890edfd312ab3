"""Successive batches: overlapped on the simulated card (copy-in / compute /
copy-out streams over PCIe), and `run_pipelined` on the host."""

import pytest
import torch

from npu_graph import GraphExecutor, NpuGraph
from runtime.sim import pipelining
from target import cost_model, scheduler
from target.hardware import DEFAULT_HARDWARE
from test.models import tiny_resnet

HW = DEFAULT_HARDWARE


@pytest.fixture(scope="module")
def graph():
    torch.manual_seed(0)
    model, (x,) = tiny_resnet.make()
    g = NpuGraph(model, input_spec=(x,)).optimize()
    g(x)
    return model, x, g


def chain(times):
    return [scheduler.Job(f"t{i}", "ai_core", 32, t, 0, (i - 1,) if i else ())
            for i, t in enumerate(times)]


def test_copies_of_neighbours_overlap_the_compute_of_a_batch():
    jobs = chain([40.0, 40.0])               # 80 us of compute
    mb = 2**20                                # 1 MiB each way: ~33 us over PCIe 4.0 x16
    b = pipelining.simulate(jobs, HW.pools(), mb, mb, HW, batches=6)
    span = {j.name: s for j, s in zip(b.jobs, b.slots)}
    # H2D of batch 3 and D2H of batch 1 run while batch 2 computes.
    compute2 = (span["t0 #2"].start, span["t1 #2"].end)
    for copy in ("H2D batch 3", "D2H batch 1"):
        assert span[copy].start < compute2[1] and compute2[0] < span[copy].end, copy
    assert b.copy_in_us == pytest.approx(cost_model.transfer_us(mb, HW.pcie_gb_s))
    # Alone, a batch pays copy-in + compute + copy-out (and the events between them).
    assert b.latency_us == pytest.approx(b.copy_in_us + 80.0 + b.copy_out_us + 2 * HW.event_us)
    stats = pipelining.stats(b, batch_size=1)
    # In steady state a batch costs its compute only: close to 1/80us, far above 1/latency.
    assert stats["pipelined_throughput"] > 1.3 * stats["unpipelined_throughput"]
    assert stats["pipelined_throughput"] < 1e6 / 80.0


def test_one_batch_gains_nothing():
    b = pipelining.simulate(chain([10.0]), HW.pools(), 4096, 4096, HW, batches=1)
    assert b.makespan_us == pytest.approx(b.latency_us)


def test_stats_and_trace_show_the_pipelined_timeline(graph):
    _, _, g = graph
    stats = g.stats["pipelined"]
    assert stats["latency_ms"] > stats["copy_in_ms"] + stats["copy_out_ms"]
    assert stats["pipelined_throughput"] >= stats["unpipelined_throughput"]
    trace = g.executable.chrome_trace(batches=3)
    tracks = {e["args"]["name"] for e in trace["traceEvents"]
              if e["ph"] == "M" and e["name"] == "thread_name"}
    assert {"H2D copy (PCIe)", "D2H copy (PCIe)", "compute stream 0"} <= tracks
    copies = [e for e in trace["traceEvents"] if e["ph"] == "X" and e["cat"] == "copy"]
    assert len(copies) == 6


def test_run_pipelined_yields_each_batch_in_order(graph):
    model, x, g = graph
    batches = [torch.randn_like(x) for _ in range(7)]
    executor = GraphExecutor(max_inflight=2).load_graph(g)
    outs = list(executor.run_pipelined(b for b in batches))   # any iterable, a generator here
    assert len(outs) == 7
    for b, y in zip(batches, outs):
        torch.testing.assert_close(y, g(b), rtol=0, atol=0)
        with torch.no_grad():
            torch.testing.assert_close(y, model(b), rtol=1e-4, atol=1e-4)
    executor.close()


def test_run_pipelined_raises_a_bad_batch_in_its_turn(graph):
    _, x, g = graph
    executor = GraphExecutor().load_graph(g)
    results = executor.run_pipelined([x, x[:, :2], x])
    first = next(results)
    torch.testing.assert_close(first, g(x))
    with pytest.raises(ValueError, match="input 0 has shape"):
        next(results)
    executor.close()


def test_a_dynamic_graph_copies_what_its_last_run_moved():
    from test.models import dynamic_batch

    model, (x,) = dynamic_batch.make()
    g = NpuGraph(model, input_spec=(x,)).optimize()
    g(torch.randn(2, *x.shape[1:]))
    small = g.stats["pipelined"]["copy_in_ms"]
    g(torch.randn(8, *x.shape[1:]))
    assert g.stats["pipelined"]["copy_in_ms"] == pytest.approx(4 * small)
