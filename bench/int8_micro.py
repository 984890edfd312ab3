"""int8 against fp32 and bf16: ResNet-50 at batch 1, our compiler three ways.

The model is test/models/resnet.py's ResNet-50 (random weights, BatchNorm
statistics randomized), compiled by the default `optimize()` pipeline:

- fp32: as it is;
- bf16: `precision_mode="allow_mix_precision_bf16"` (bf16 cube tasks);
- int8: `npu_graph.quantize` on calibration images (minmax), then
  `optimize()`: every conv and the fc folded into int8 cube tasks
  (fold-quantized), run as oneDNN int8 primitives.

The three take turns (interleaved rounds, one untimed call before each
timed one), so load on the machine hits them alike; each figure is the
median, beside the best call and the median of the per-round ratios (on a
shared machine a descheduled OpenMP thread stalls its partner, which
hits the longer runs harder). Prints the load (`uptime`) before and after, the CPU's ISA, the
kernels oneDNN picked for the int8 tasks, how int8 and bf16 differ from
fp32 on the timed image, and the ratio int8 / bf16 (target: at most 0.6).

    python bench/int8_micro.py [--threads 2] [--rounds 20] [--calibration 8] [--json out.json]
"""

from __future__ import annotations

import argparse
import collections
import json
import statistics
import subprocess
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import npu_graph  # noqa: E402
from bench.benchmark import interleaved  # noqa: E402
from bench.weight_quant import isa  # noqa: E402
from npu_graph import NpuGraph  # noqa: E402
from test.models.resnet import make_resnet18, make_resnet50  # noqa: E402

BF16_MODE = "allow_mix_precision_bf16"


def load() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def int8_kernels(compiled) -> dict[str, int]:
    """oneDNN's implementation name -> how many int8 tasks run it ("torch
    reference" for a task that fell back)."""
    ex = compiled.executable
    counts = collections.Counter()
    for task, runner in zip(ex.tasks, ex.runners):
        if task.name.startswith("quantized_"):
            counts[getattr(runner, "impl", "torch reference")] += 1
    return dict(counts)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--rounds", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--calibration", type=int, default=8, help="calibration images")
    p.add_argument("--json", help="write the figures here")
    p.add_argument("--smoke", action="store_true",
                   help="test/models/resnet.py's small ResNet-18 (64x64), one round: a check "
                        "that the script runs, not a measurement")
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    if args.smoke:
        args.rounds, args.warmup, args.calibration = 1, 0, 2

    model, (x,) = make_resnet18() if args.smoke else make_resnet50()
    graph = NpuGraph(model, input_spec=(x,))
    calibration = [torch.randn(*x.shape) for _ in range(args.calibration)]
    compiled = {
        "fp32": graph.optimize(),
        "bf16": graph.optimize(precision_mode=BF16_MODE),
        "int8": npu_graph.quantize(graph, calibration).optimize(),
    }
    outputs = {name: c(x) for name, c in compiled.items()}
    before = load()
    samples: dict[str, list[float]] = {}
    with torch.no_grad():
        ms = {name: 1e3 * s for name, s in interleaved(
            {name: (lambda c=c: c(x)) for name, c in compiled.items()},
            args.warmup, args.rounds, warm=True, samples=samples).items()}
    after = load()
    best = {name: 1e3 * min(ts) for name, ts in samples.items()}
    # the ratio within each round (the same round saw the same machine), its median
    paired = statistics.median(i / b for i, b in zip(samples["int8"], samples["bf16"]))
    fp32 = outputs["fp32"]
    error = {name: float((y - fp32).norm() / fp32.norm()) for name, y in outputs.items()
             if name != "fp32"}
    same_top1 = {name: bool(y.argmax() == fp32.argmax()) for name, y in outputs.items()
                 if name != "fp32"}
    result = {"ms": ms, "best_ms": best, "int8_over_bf16": ms["int8"] / ms["bf16"],
              "int8_over_bf16_paired": paired,
              "int8_over_fp32": ms["int8"] / ms["fp32"], "threads": args.threads,
              "rounds": args.rounds, "load_before": before, "load_after": after, "isa": isa(),
              "int8_kernels": int8_kernels(compiled["int8"]),
              "relative_error_vs_fp32": error, "same_top1_as_fp32": same_top1}
    print(f"{'ResNet-18 (smoke)' if args.smoke else 'ResNet-50'}, batch 1, {args.threads} "
          f"threads, median of {args.rounds} interleaved rounds")
    for name, t in ms.items():
        print(f"  ours {name:5s} {t:8.2f} ms (best {best[name]:.2f} ms)")
    print(f"  int8 / bf16 = {result['int8_over_bf16']:.2f} of medians, {paired:.2f} median "
          f"of per-round ratios, {best['int8'] / best['bf16']:.2f} of bests (target <= 0.6); "
          f"int8 / fp32 = {result['int8_over_fp32']:.2f}")
    print(f"  vs fp32: relative error {error}, same top-1 {same_top1}")
    print(f"  int8 kernels: {result['int8_kernels']}")
    print(f"  ISA: {result['isa']}")
    print(f"  load before: {before}\n  load after:  {after}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
