"""Pipeline parallel: the cut (pipeline-partition), its numbers in one process
and on two real ranks (gloo on 127.0.0.1), and the simulated multi-card timeline."""

import itertools
import json
import random
import time

import pytest
import torch

from ge_dialect import ascend, find_func
from npu_graph import GraphExecutor, NpuGraph
from npu_graph import pipeline_parallel as pp
from passes.pipeline_partition import choose_cuts, live_bytes
from runtime.sim import multicard
from target import cost_model
from target.hardware import DEFAULT_HARDWARE
from test.models import tiny_resnet

HW = DEFAULT_HARDWARE


@pytest.fixture(scope="module")
def compiled():
    torch.manual_seed(0)
    model, (x,) = tiny_resnet.make()       # compiled for one micro-batch
    return model, x, NpuGraph(model, input_spec=(x,)).optimize()


def one_card(graph, batch, size):
    return torch.cat([graph(part) for part in torch.split(batch, size)])


def test_two_ranks_compute_what_one_card_computes(compiled):
    model, x, graph = compiled
    batch = torch.randn(4 * x.shape[0], *x.shape[1:])
    single = one_card(graph, batch, x.shape[0])
    start = time.perf_counter()
    with GraphExecutor(devices=2, parallel="pipeline", micro_batches=4) as executor:
        executor.load_graph(graph)
        for _ in range(2):
            out = executor.run(input_data=batch)
            torch.testing.assert_close(out, single, rtol=1e-5, atol=1e-5)
        with torch.no_grad():
            torch.testing.assert_close(out, model(batch), rtol=1e-4, atol=1e-4)
        with pytest.raises(ValueError, match=r"must be 4 x 2 \(micro-batches x the compiled"):
            executor.run(input_data=batch[:6])
        stats = executor.get_stats()["multi_card"]
    assert time.perf_counter() - start < 30
    assert stats["mode"] == "pipeline" and len(stats["per_card"]) == 2


@pytest.mark.parametrize("stages", [2, 3])
def test_stages_in_one_process_match_one_card(compiled, stages):
    _, x, graph = compiled
    parts = pp.partition(graph, stages)
    assert [ascend.stage_of(find_func(p.module)) for p in parts] == list(range(stages))
    batch = torch.randn(3 * x.shape[0], *x.shape[1:])
    (out,) = pp.run_local(parts, [batch])
    torch.testing.assert_close(out, one_card(graph, batch, x.shape[0]), rtol=1e-5, atol=1e-5)
    # Each stage plans its own arena, from its own buffers only.
    assert all(p.executable.arena.numel() <= graph.executable.arena.numel() for p in parts)
    assert sum(len([o for o in p.module.walk() if isinstance(o, ascend.TaskOp)])
               for p in parts) == len(graph.executable.tasks)


def test_every_send_has_its_recv(compiled):
    _, _, graph = compiled
    parts = pp.partition(graph, 3)
    sends, recvs = set(), set()
    for k, p in enumerate(parts):
        for op in p.module.walk():
            if isinstance(op, ascend.SendOp):
                sends.add((k, op.peer.value.data, op.tag.value.data, str(op.buffer.type)))
            elif isinstance(op, ascend.RecvOp):
                recvs.add((op.peer.value.data, k, op.tag.value.data, str(op.buffer.type)))
    assert sends and sends == recvs
    assert all(src < dst for src, dst, _, _ in sends)   # forward only


def brute_force(costs, live, stages, hw):
    n = len(costs)
    best = None
    for cuts in itertools.combinations(range(1, n), stages - 1):
        starts, ends = [0, *cuts], [*cuts, n]
        link = [0.0 if not live[p] else cost_model.transfer_us(live[p], hw.link_gb_s,
                                                                hw.link_latency_us)
                for p in range(n + 1)]
        times = [sum(costs[a:b]) + link[a] + link[b] for a, b in zip(starts, ends)]
        if best is None or max(times) < best:
            best = max(times)
    return best


@pytest.mark.parametrize("seed", range(20))
def test_cuts_minimize_the_bottleneck_then_the_bytes(seed):
    rng = random.Random(seed)
    n, stages = rng.randint(3, 9), rng.randint(2, 3)
    stages = min(stages, n)
    costs = [rng.uniform(1, 20) for _ in range(n)]
    producer = [rng.randint(-1, n - 1) for _ in range(8)]
    last_use = [rng.randint(max(p, 0), n) for p in producer]
    sizes = [rng.choice([64, 4096, 2**18]) for _ in producer]
    live = live_bytes(producer, last_use, sizes, n)
    cut = choose_cuts(costs, live, stages, HW, tolerance=0.0)
    assert max(cut.stage_us) == pytest.approx(brute_force(costs, live, stages, HW))
    loose = choose_cuts(costs, live, stages, HW, tolerance=0.5)
    assert max(loose.stage_us) <= 1.5 * max(cut.stage_us) + 1e-6
    assert sum(loose.cut_bytes) <= sum(cut.cut_bytes)


def test_simulated_cards_report_compute_communication_bubble_and_arena(compiled, tmp_path):
    _, _, graph = compiled
    parts = pp.partition(graph, 2)
    stages = [multicard.stage_of_function(find_func(p.module), HW) for p in parts]
    timeline = multicard.simulate_pipeline(stages, 4, 2, HW)
    stats = timeline.stats()
    span = stats["execution_time"]
    for k, row in enumerate(stats["per_card"]):
        assert row["compute_ms"] == pytest.approx(4 * stages[k].compute_us / 1e3)
        assert row["bubble_ms"] == pytest.approx(span - row["compute_ms"])
        assert row["communication_ms"] > 0
        assert row["arena_mb"] * 2**20 == parts[k].executable.arena.numel()
    # GPipe: card 1 works on micro-batch m while card 0 works on m + 1.
    compute = {(s.card, s.args["micro_batch"]): s for s in timeline.spans if s.track == "compute"}
    assert compute[(0, 1)].start < compute[(1, 0)].end and compute[(1, 0)].start < compute[(0, 1)].end
    # One micro-batch alone would have no overlap: the pipeline beats running them in turn.
    serial = 4 * (sum(s.compute_us for s in stages)
                  + sum(cost_model.transfer_us(b, HW.link_gb_s, HW.link_latency_us)
                        for _, _, b in stages[0].sends))
    assert span * 1e3 < serial
    trace = timeline.chrome_trace()
    rows = {e["pid"]: e["args"]["name"] for e in trace["traceEvents"]
            if e["ph"] == "M" and e["name"] == "process_name"}
    assert rows == {1: "card 0", 2: "card 1"}
    tracks = {(e["pid"], e["args"]["name"]) for e in trace["traceEvents"]
              if e["ph"] == "M" and e["name"] == "thread_name"}
    assert {(1, "communication"), (2, "communication")} <= tracks
    json.dumps(trace)


def test_data_parallel_timeline_has_every_card_busy_at_once(compiled):
    _, _, graph = compiled
    stage = multicard.stage_of_function(find_func(graph.module), HW)
    timeline = multicard.simulate_data_parallel(stage, 2, 2, 4000, HW)
    rows = timeline.stats()["per_card"]
    assert rows[0]["compute_ms"] == rows[1]["compute_ms"] == pytest.approx(stage.compute_us / 1e3)
    assert timeline.stats()["throughput"] > 2 / (stage.compute_us / 1e6)  # more than one card
    assert rows[0]["communication_ms"] > 0


def test_bad_options_are_clear_errors():
    with pytest.raises(ValueError, match="parallel must be one of 'data', 'pipeline'"):
        GraphExecutor(devices=2, parallel="tensor")
    with pytest.raises(ValueError, match="micro_batches applies to parallel='pipeline' only"):
        GraphExecutor(devices=2, micro_batches=2)


def test_a_stage_without_its_transport_is_refused(compiled):
    _, x, graph = compiled
    parts = pp.partition(graph, 2)
    with pytest.raises(Exception, match="pipeline stage 1: it receives or sends buffers"):
        parts[1].executable.run()


def test_pipeline_under_torchrun_matches_one_card():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).parents[2]
    r = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--standalone",
                        "--nproc-per-node", "2", "examples/parallel_resnet50.py",
                        "--model", "tiny_resnet", "--torchrun"],
                       cwd=root, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "pipeline parallel under torchrun, 2 ranks: max |cards - 1 card| =" in r.stdout
