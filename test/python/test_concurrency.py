"""One compiled graph called from several threads at once: every output is the
caller's own (runtime/executor.py's replica pool), checked against eager."""

import resource
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
import torch

from npu_graph import GraphExecutor, NpuGraph
from npu_graph.compiler import compile_model
from runtime.executor import Executable
from test.models import bert, dynamic_batch, tiny_resnet

THREADS, CALLS = 4, 100
TOL = dict(rtol=1e-4, atol=1e-4)


def _inputs_for(name, example, i):
    """Inputs of call i: fresh random values; the dynamic model varies its batch."""
    g = torch.Generator().manual_seed(i)
    if name == "bert":
        ids, mask = example
        return (torch.randint(0, 100, ids.shape, generator=g), mask)
    (x,) = example
    shape = (1 + i % 5, *x.shape[1:]) if name == "dynamic_batch" else x.shape
    return (torch.randn(shape, generator=g),)


@pytest.mark.parametrize("name, make", [("tiny_resnet", tiny_resnet.make), ("bert", bert.make),
                                        ("dynamic_batch", dynamic_batch.make)])
def test_threads_calling_one_graph_each_get_their_own_outputs(name, make):
    model, example = make()
    executable = compile_model(model, example)
    inputs = [_inputs_for(name, example, i) for i in range(THREADS * CALLS)]
    with torch.no_grad():
        expected = [model(*x) for x in inputs]
    expected = [e if isinstance(e, tuple) else (e,) for e in expected]
    start = threading.Barrier(THREADS)

    def worker(k):
        start.wait()  # all threads call at once
        return [(i, executable.run(*inputs[i])) for i in range(k, len(inputs), THREADS)]

    with ThreadPoolExecutor(THREADS) as pool:
        results = [r for rs in pool.map(worker, range(THREADS)) for r in rs]
    assert len(results) == THREADS * CALLS
    wrong = [i for i, outs in results
             if not all(torch.allclose(o, e, **TOL) for o, e in zip(outs, expected[i], strict=True))]
    assert not wrong, f"{len(wrong)} of {len(results)} outputs differ from eager"
    assert 1 < executable._replicas <= executable.max_inflight  # several arenas were used


def test_max_inflight_bounds_the_arenas_and_waits_for_a_free_one():
    model, example = tiny_resnet.make()
    executable = compile_model(model, example)
    executable.max_inflight = 2
    with ThreadPoolExecutor(6) as pool:
        outs = list(pool.map(lambda _: executable.run(*example)[0], range(60)))
    assert executable._replicas <= 2
    with torch.no_grad():
        for out in outs:
            torch.testing.assert_close(out, model(*example), **TOL)


def test_max_inflight_must_be_positive():
    model, example = tiny_resnet.make()
    module = NpuGraph(model, input_spec=example).optimize().module
    with pytest.raises(ValueError, match="max_inflight must be an integer >= 1"):
        Executable(module, max_inflight=0)


def test_run_async_returns_futures_with_each_caller_s_result():
    model, example = tiny_resnet.make()
    executor = GraphExecutor()
    executor.load_graph(NpuGraph(model, input_spec=example).optimize())
    xs = [torch.randn(example[0].shape, generator=torch.Generator().manual_seed(i))
          for i in range(40)]
    futures = [executor.run_async(input_data=x) for x in xs]
    with torch.no_grad():
        for x, f in zip(xs, futures):
            torch.testing.assert_close(f.result(timeout=60), model(x), **TOL)


def test_run_async_raises_the_run_s_error_from_result():
    model, example = tiny_resnet.make()
    executor = GraphExecutor()
    executor.load_graph(NpuGraph(model, input_spec=example).optimize())
    future = executor.run_async(input_data=torch.randn(1, 2, 3))
    with pytest.raises(Exception, match="shape|rank|input"):
        future.result(timeout=60)


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def test_rss_is_stable_over_2000_concurrent_calls():
    """Memory is bounded by the replicas: after a warm-up (every replica made,
    every thread's malloc arena grown), 2,000 more calls leave RSS where it was."""
    model, _ = tiny_resnet.make()
    x = torch.randn(4, 3, 32, 32)
    executable = compile_model(model, (x,))
    rss = []
    with ThreadPoolExecutor(THREADS) as pool:
        for _ in range(4):
            list(pool.map(lambda _: executable.run(x), range(1000)))
            rss.append(_rss_mb())
    print("RSS after each 1,000 calls (MB):", [round(r, 1) for r in rss])
    assert executable._replicas <= executable.max_inflight
    arena_mb = executable.arena.numel() / 2**20
    leak_bound = 1000 * arena_mb / 2  # a leaked arena per call would grow by twice this
    assert rss[-1] - rss[-3] < max(16.0, leak_bound), f"RSS kept growing: {rss}"
