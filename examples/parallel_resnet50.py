"""ResNet-50 on two local cards, data parallel and pipeline parallel, against one card.

    python examples/parallel_resnet50.py                      # the zoo's ResNet-50
    python examples/parallel_resnet50.py --model tiny_resnet  # the same, in seconds
    torchrun --nproc-per-node 2 examples/parallel_resnet50.py --torchrun   # pipeline, torchrun's ranks

The graph is compiled once, for one micro-batch (one card's share). One card
runs a round of 4 micro-batches in turn; data parallel runs it on 2 ranks as
2 batches of 2 shares; pipeline parallel cuts the graph into 2 stages (one
per rank) and streams the 4 micro-batches through them. Both must give the
single-card output. Each prints the simulated Ascend 910 throughput and,
per card, compute, communication and bubble time and arena size.

With --torchrun the launcher starts the ranks: rank 0 compiles, cuts and
saves the stages; rank k serves stage k; several nodes are the same command
with --nnodes and a rendezvous endpoint (docs/distributed.md).
"""

import argparse
import sys
import tempfile
from pathlib import Path

import torch
import torch.distributed as dist

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from npu_graph import GraphExecutor, NpuGraph  # noqa: E402
from npu_graph import pipeline_parallel as pp  # noqa: E402
from tools.models import zoo_factory  # noqa: E402

MICRO_BATCHES = 4


def report(name: str, out: torch.Tensor, single: torch.Tensor, stats: dict) -> None:
    error = (out - single).abs().max().item()
    sim = stats["multi_card"]
    print(f"{name}: max |2 cards - 1 card| = {error:.2e}; simulated {sim['throughput']:.0f} "
          f"images/s on 2 cards vs {stats['throughput']:.0f} on one")
    for row in sim["per_card"]:
        print(f"  card {row['card']}: compute {row['compute_ms']:.3f} ms, communication "
              f"{row['communication_ms']:.3f} ms, bubble {row['bubble_ms']:.3f} ms, "
              f"arena {row['arena_mb']:.1f} MB")
    assert error < 1e-4, f"{name} differs from one card"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", default="resnet50", help="a zoo model (default resnet50)")
    p.add_argument("--torchrun", action="store_true",
                   help="the ranks were started by torchrun: pipeline parallel only")
    args = p.parse_args()
    if args.torchrun:
        return under_torchrun(args.model)
    torch.manual_seed(0)
    model, (x,) = zoo_factory(args.model)()
    micro = x[:1]
    optimized = NpuGraph(model, input_spec=(micro,)).optimize()
    batch = torch.randn(MICRO_BATCHES, *micro.shape[1:])
    single = torch.cat([optimized(part) for part in torch.split(batch, 1)])
    with torch.no_grad():
        print(f"{args.model}: one card vs eager: max |difference| = "
              f"{(single - model(batch)).abs().max().item():.2e}")

    with GraphExecutor(devices=2) as executor:                  # data parallel
        executor.load_graph(optimized)
        out = torch.cat([executor.run(input_data=half) for half in torch.split(batch, 2)])
        report("data parallel", out, single, executor.get_stats())

    with GraphExecutor(devices=2, parallel="pipeline", micro_batches=MICRO_BATCHES) as executor:
        executor.load_graph(optimized)
        out = executor.run(input_data=batch)
        report("pipeline parallel", out, single, executor.get_stats())
    return 0


def under_torchrun(name: str) -> int:
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    stages = None
    if rank == 0:
        torch.manual_seed(0)
        model, (x,) = zoo_factory(name)()
        optimized = NpuGraph(model, input_spec=(x[:1],)).optimize()
        stages = pp.partition(optimized, dist.get_world_size())
    with tempfile.TemporaryDirectory(prefix=f"parallel_rank{rank}_") as directory:
        path = pp.scatter_stages(stages, directory)   # each rank gets its stage's .npu file
        if rank != 0:
            pp.serve_stage(path)
            return 0
        batch = torch.randn(MICRO_BATCHES, *x.shape[1:])
        single = torch.cat([optimized(part) for part in torch.split(batch, 1)])
        pipe = pp.PipelineParallel.joined(stages, MICRO_BATCHES)
        (out,) = pipe.run([batch])
        error = (out - single).abs().max().item()
        print(f"pipeline parallel under torchrun, {dist.get_world_size()} ranks: "
              f"max |cards - 1 card| = {error:.2e}")
        pipe.close()
    assert error < 1e-4
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
