"""Several cards and pipelined batches, measured and simulated, from one command.

    python -m bench.parallel                                  # ResNet-50, batch 1, 4 micro-batches
    python -m bench.parallel --model tiny_resnet --batch 2 --json out.json

One graph is compiled for `--batch` items and used everywhere; a round is
`--micro-batches` x `--batch` items:

- measured on this host (real processes, gloo on 127.0.0.1): one card running
  the round's micro-batches in turn; data parallel on 2 ranks (shares of 2 x
  batch); pipeline parallel on 2 ranks (the round as micro-batches, GPipe).
  Ranks 1.. run with one torch thread each; on a 2-core machine the cards
  share the cores, so the measured gain is small or negative, and it is
  printed as it is.
- simulated (cost model, runtime/sim/multicard.py and runtime/sim/pipelining.py): the
  same three on Ascend 910 cards linked by HCCS, and one card's successive
  batches with and without copy/compute overlap over PCIe.
- host pipelining: `GraphExecutor.run_pipelined` against a plain loop over the
  same batches, each batch prepared from uint8 images (scaled, normalized) as
  a data loader would; the gain is printed even when it is zero.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import torch

from ge_dialect import ascend, find_func
from npu_graph import GraphExecutor, NpuGraph
from npu_graph import pipeline_parallel as pp
from runtime.sim import multicard, pipelining
from target.hardware import DEFAULT_HARDWARE
from tools.models import zoo_factory

HW = DEFAULT_HARDWARE


def best_s(fn, iterations: int) -> float:
    fn()
    times = []
    for _ in range(iterations):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def measured(graph, x, micro: int, iterations: int) -> dict:
    """Items per second on this host: one card, data parallel, pipeline parallel."""
    size = x.shape[0]
    round_ = torch.randn(micro * size, *x.shape[1:])
    parts = list(torch.split(round_, size))
    items = micro * size
    rows = {"1 card": items / best_s(lambda: [graph(p) for p in parts], iterations)}
    pairs = list(torch.split(round_, 2 * size))
    with GraphExecutor(devices=2) as dp:
        dp.load_graph(graph)
        rows["data parallel, 2 ranks"] = items / best_s(
            lambda: [dp.run(input_data=p) for p in pairs], iterations)
    with GraphExecutor(devices=2, parallel="pipeline", micro_batches=micro) as pipe:
        pipe.load_graph(graph)
        rows["pipeline parallel, 2 ranks"] = items / best_s(
            lambda: pipe.run(input_data=round_), iterations)
    return rows


def simulated(graph, size: int, micro: int) -> dict:
    fn = find_func(graph.module)
    one = multicard.stage_of_function(fn, HW)
    out_bytes = sum(ascend.nbytes(t) for t in fn.function_type.outputs.data)
    dp = multicard.simulate_data_parallel(one, 2, size, out_bytes, HW)
    stages = [multicard.stage_of_function(find_func(g.module), HW)
              for g in pp.partition(graph, 2)]
    pipe = multicard.simulate_pipeline(stages, micro, size, HW)
    batches = pipelining.stats(graph.executable.pipelined(), size)
    return {
        "1 card": size / (one.compute_us / 1e6),
        "data parallel, 2 cards": dp.stats()["throughput"],
        "pipeline parallel, 2 cards": pipe.stats()["throughput"],
        "per_card_pipeline": pipe.stats()["per_card"],
        "per_card_data": dp.stats()["per_card"],
        "one card, batches one at a time (with PCIe copies)": batches["unpipelined_throughput"],
        "one card, batches pipelined (copies overlap compute)": batches["pipelined_throughput"],
        "copies_ms": {"in": batches["copy_in_ms"], "out": batches["copy_out_ms"]},
    }


def host_pipelining(graph, x, batches: int, iterations: int) -> dict:
    """run_pipelined vs a loop, each batch made from uint8 images like a data loader's."""
    g = torch.Generator().manual_seed(0)
    images = [torch.randint(0, 256, tuple(x.shape), generator=g, dtype=torch.uint8)
              for _ in range(batches)]
    mean, std = torch.tensor(0.45), torch.tensor(0.225)

    def loader():
        for img in images:
            yield ((img.float() / 255 - mean) / std).contiguous()

    executor = GraphExecutor(max_inflight=2).load_graph(graph)
    items = batches * x.shape[0]
    loop = items / best_s(lambda: [executor.run(b) for b in loader()], iterations)
    piped = items / best_s(lambda: list(executor.run_pipelined(loader())), iterations)
    executor.close()
    return {"loop": loop, "run_pipelined": piped, "gain": piped / loop - 1}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", default="resnet50", help="a zoo name (default resnet50)")
    p.add_argument("--batch", type=int, default=1, help="items per micro-batch / card share")
    p.add_argument("--micro-batches", type=int, default=4, help="micro-batches per round (even)")
    p.add_argument("--iterations", type=int, default=3)
    p.add_argument("--json", help="write the figures to this file")
    args = p.parse_args(argv)
    if args.micro_batches < 2 or args.micro_batches % 2:
        p.error("--micro-batches must be an even number >= 2 (data parallel runs pairs)")
    torch.manual_seed(0)
    model, inputs = zoo_factory(args.model)()
    x = inputs[0]
    x = torch.randn(args.batch, *x.shape[1:], dtype=x.dtype)
    graph = NpuGraph(model, input_spec=(x,)).optimize()
    graph(x)
    print(f"{args.model}, batch {args.batch} per card share / micro-batch, "
          f"{args.micro_batches} micro-batches per round; host: {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.2f}")
    result = {"model": args.model, "batch": args.batch, "micro_batches": args.micro_batches,
              "cores": os.cpu_count()}
    result["measured_items_per_s"] = m = measured(graph, x, args.micro_batches, args.iterations)
    print("\nmeasured on this host (items/s; 2 ranks share the host's cores):")
    for name, value in m.items():
        print(f"  {name:34s} {value:10.1f}   x{value / m['1 card']:.2f}")
    result["simulated_items_per_s"] = s = simulated(graph, args.batch, args.micro_batches)
    print(f"\nsimulated {HW.name} (items/s; HCCS {HW.link_gb_s:g} GB/s, PCIe {HW.pcie_gb_s:g} GB/s):")
    for name, value in s.items():
        if isinstance(value, float):
            base = s["1 card"] if "card" in name and "one card" not in name else \
                s["one card, batches one at a time (with PCIe copies)"]
            print(f"  {name:52s} {value:10.1f}   x{value / base:.2f}")
    for row in s["per_card_pipeline"]:
        print(f"  pipeline card {row['card']}: compute {row['compute_ms']:.3f} ms, "
              f"communication {row['communication_ms']:.3f} ms, bubble {row['bubble_ms']:.3f} ms, "
              f"arena {row['arena_mb']:.2f} MB")
    result["host_pipelining_items_per_s"] = h = host_pipelining(graph, x, 8, args.iterations)
    print(f"\nhost: run_pipelined {h['run_pipelined']:.1f} items/s vs loop {h['loop']:.1f} "
          f"items/s: gain {100 * h['gain']:+.1f}%")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
