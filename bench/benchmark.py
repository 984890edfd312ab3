"""`ge-bench`: throughput of a compiled model on the host and on the simulated device.

    ge-bench --model resnet50 --batch_size 32 --num_iterations 100
    ge-bench --model resnet50_optimized.npu --num_iterations 20 --json
    ge-bench --model resnet50 --precision allow_mix_precision_bf16

`--model` is a zoo name (test.models.ZOO) or a `.npu` file. It prints:
  - host throughput (images/s) of our runtime and of PyTorch eager, measured
    in the same run with the iterations interleaved, medians, and the ratio;
  - simulated Ascend device throughput of the optimized graph and of the
    unoptimized one (ge-O0: lowered as is, one stream, no memory reuse), and
    that ratio (the GE article quotes 1250 vs 450 images/s on Ascend 910);
  - memory: planned arena vs the no-fragmentation lower bound vs no reuse;
  - compile time by stage, and the machine's load average (figures taken
    on a busy machine are not worth much; see docs/BENCHMARKS.md);
  - with `--precision` (GE's precision_mode, passes/precision_mode.py), the
    host path each cube task took (a bf16 task: oneDNN's bf16 kernel, or
    fp32 kernels computing bf16 numbers where the CPU has no bf16 kernel).
A `.npu` file carries no source model, so its eager and ge-O0 columns are n/a.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import torch

from npu_graph import GraphExecutor, NpuFileError, NpuGraph, OptimizedGraph, load
from npu_graph.optimizer import GraphOptimizer
from passes.precision_mode import MODES
from runtime.kernels import torch_dtype


def batched(examples: tuple, batch_size: int | None, seed: int = 0) -> tuple:
    """Inputs like `examples` with dim 0 set to `batch_size` (random, seeded)."""
    g = torch.Generator().manual_seed(seed)
    out = []
    for x in examples:
        shape = list(x.shape)
        if batch_size is not None and shape:
            shape[0] = batch_size
        if x.dtype.is_floating_point:
            out.append(torch.randn(shape, generator=g, dtype=x.dtype))
        else:
            high = int(x.max()) + 1 if x.numel() else 2
            out.append(torch.randint(0, max(high, 1), shape, generator=g, dtype=x.dtype))
    return tuple(out)


class Progress:
    """A one-line progress bar on stderr, drawn only for a terminal."""

    def __init__(self, total: int, label: str, enabled: bool):
        self.total, self.label, self.done = total, label, 0
        self.enabled = enabled and sys.stderr.isatty()

    def step(self) -> None:
        self.done += 1
        if self.enabled:
            filled = 30 * self.done // self.total
            sys.stderr.write(f"\r{self.label} [{'#' * filled}{'.' * (30 - filled)}] "
                             f"{self.done}/{self.total}")
            if self.done == self.total:
                sys.stderr.write("\n")
            sys.stderr.flush()


def min_ms(fn, iterations: int) -> float:
    """Best of `iterations` calls after one untimed call: on a shared 2-core
    machine the noise only adds (a descheduled OpenMP thread stalls its
    partner for a whole time slice), so the minimum estimates a kernel's
    own cost best."""
    fn()
    times = []
    for _ in range(iterations):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times) * 1e3


class Timed(float):
    """Seconds a runner measured itself: a runner in another process returns
    the time its call took there, so the pipe's round trip is not counted."""


def _timed(fn):
    start = time.perf_counter()
    result = fn()
    elapsed = time.perf_counter() - start
    return result, float(result) if isinstance(result, Timed) else elapsed


def interleaved(runners: dict, warmup: int, iterations: int, step=lambda: None,
                settle: float = 0.0, warm: bool = False, samples: dict | None = None) -> dict:
    """Median seconds per call of each runner, the runners taking turns so that
    the machine's noise hits them alike. `settle` seconds of idle before each
    turn let the previous runner's worker threads stop spinning: ONNX Runtime's
    spin after a run and slowed whichever runner came next (ResNet-50: 127 ms
    instead of 80 ms; docs/BENCHMARKS.md, "Host runtime"). With `warm`, each
    turn makes one untimed call before the timed one: steady-state latency,
    each runner's threads awake and its data in cache, as in back-to-back
    serving, instead of the first call after an idle pause (which measured
    10-25% slower for every runner, and more noisily). `samples`, if given, is
    filled with every runner's timed seconds in round order (for paired
    ratios: the same round saw the same machine)."""
    times: dict[str, list[float]] = {name: [] for name in runners}
    for i in range(warmup + iterations):
        for name, run in runners.items():
            time.sleep(settle)
            if warm:
                run()
            _, t = _timed(run)
            if i >= warmup:
                times[name].append(t)
        step()
    if samples is not None:
        samples.update(times)
    return {name: statistics.median(ts) for name, ts in times.items()}


def compile_zoo(name: str, batch_size: int, precision_mode: str | None = None
                ) -> tuple[torch.nn.Module, tuple, OptimizedGraph, OptimizedGraph, dict]:
    from tools.models import zoo_factory

    model, examples = zoo_factory(name)()
    examples = (examples,) if isinstance(examples, torch.Tensor) else tuple(examples)
    inputs = batched(examples, batch_size)
    model.eval()
    graph, t_import = _timed(lambda: NpuGraph(model, input_spec=inputs))
    optimized, t_opt = _timed(lambda: graph.optimize(precision_mode=precision_mode))
    _, t_load = _timed(lambda: optimized.executable)
    baseline = GraphOptimizer().optimize(graph, passes=[])
    times = {"import_s": t_import, "optimize_lower_plan_s": t_opt, "load_s": t_load}
    return model, inputs, optimized, baseline, times


def npu_inputs(graph: OptimizedGraph) -> tuple:
    fn = graph.executable
    shapes = [[max(d, 1) for d in t.get_shape()] for t in fn.arg_types]
    return batched(tuple(torch.empty(s, dtype=torch_dtype(t.element_type))
                         for s, t in zip(shapes, fn.arg_types)), None)


def measure(args) -> dict:
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.model.endswith(".npu"):
        if args.precision is not None:
            raise ValueError("--precision applies when compiling; a .npu file was compiled "
                             "with its own (see its pipeline)")
        optimized, t_load = _timed(lambda: load(args.model))
        model, baseline, times = None, None, {"load_s": t_load}
        inputs = npu_inputs(optimized)
    else:
        model, inputs, optimized, baseline, times = compile_zoo(args.model, args.batch_size,
                                                                args.precision)
    executor = GraphExecutor().load_graph(optimized)
    batch = inputs[0].shape[0] if inputs and inputs[0].dim() else 1

    runners = {"ours": lambda: executor.run(*inputs)}
    if model is not None:
        runners["eager"] = lambda: model(*inputs)
    progress = Progress(args.warmup + args.num_iterations, "ge-bench", not args.no_progress)
    with torch.no_grad():
        medians = interleaved(runners, args.warmup, args.num_iterations, progress.step)
        reference = model(*inputs) if model is not None else None
    output = executor.run(*inputs)
    stats = executor.get_stats()
    base = None
    if baseline is not None:
        baseline(*inputs)
        base = baseline.stats

    def per_s(seconds: float | None) -> float | None:
        return batch / seconds if seconds else None

    ours_s, eager_s = medians["ours"], medians.get("eager")
    device_s = stats["execution_time"] / 1e3
    base_s = base["execution_time"] / 1e3 if base else None
    result = {
        "model": args.model, "batch_size": batch, "num_iterations": args.num_iterations,
        "threads": torch.get_num_threads(), "load_average": list(os.getloadavg()),
        "host": {"ours_ms": ours_s * 1e3, "eager_ms": eager_s and eager_s * 1e3,
                 "ours_images_per_s": per_s(ours_s), "eager_images_per_s": per_s(eager_s),
                 "speedup_vs_eager": eager_s / ours_s if eager_s else None},
        "device": {"optimized_ms": device_s * 1e3, "unoptimized_ms": base_s and base_s * 1e3,
                   "optimized_images_per_s": per_s(device_s),
                   "unoptimized_images_per_s": per_s(base_s),
                   "speedup": base_s / device_s if base_s else None,
                   "hardware": optimized.executable.hardware.name,
                   "tasks": stats["num_tasks"], "streams": stats["num_streams"],
                   "unoptimized_tasks": base and base["num_tasks"]},
        "memory_mb": {"arena": stats["memory_usage"], "lower_bound": stats["memory_lower_bound"],
                      "naive": stats["memory_naive"], "host_workspace": stats["host_workspace"]},
        "compile_s": times,
        "pipeline": optimized.pipeline,
        "precision_mode": args.precision or "must_keep_origin_dtype",
        "cube_paths": optimized.executable.cube_paths(),
    }
    if reference is not None:
        outs = output if isinstance(output, tuple) else (output,)
        refs = reference if isinstance(reference, tuple) else (reference,)
        result["max_abs_diff_vs_eager"] = max(
            (o.float() - r.float()).abs().max().item() for o, r in zip(outs, refs))
    if args.trace:
        executor.export_chrome_trace(args.trace)
        result["chrome_trace"] = args.trace
    return result


def _fmt(value, spec: str = ".1f", unit: str = "") -> str:
    return "n/a" if value is None else f"{value:{spec}}{unit}"


def report(r: dict) -> str:
    h, d, m = r["host"], r["device"], r["memory_mb"]
    lines = [
        f"ge-bench {r['model']}  batch {r['batch_size']}  {r['num_iterations']} iterations  "
        f"{r['threads']} threads  load average {r['load_average'][0]:.2f}",
        "host (medians, interleaved):",
        f"  ours   {_fmt(h['ours_images_per_s'])} images/s  ({_fmt(h['ours_ms'], '.2f')} ms/batch)",
        f"  eager  {_fmt(h['eager_images_per_s'])} images/s  ({_fmt(h['eager_ms'], '.2f')} ms/batch)",
        f"  ours / eager throughput: {_fmt(h['speedup_vs_eager'], '.2f', 'x')}",
        f"simulated device ({d['hardware']}):",
        f"  optimized    {_fmt(d['optimized_images_per_s'])} images/s  "
        f"({_fmt(d['optimized_ms'], '.3f')} ms, {d['tasks']} tasks on {d['streams']} streams)",
        f"  unoptimized  {_fmt(d['unoptimized_images_per_s'])} images/s  "
        f"({_fmt(d['unoptimized_ms'], '.3f')} ms, ge-O0, 1 stream, "
        f"{_fmt(d['unoptimized_tasks'], 'd')} tasks)",
        f"  optimized / unoptimized: {_fmt(d['speedup'], '.2f', 'x')}",
        f"memory: arena {_fmt(m['arena'], '.2f')} MB, lower bound "
        f"{_fmt(m['lower_bound'], '.2f')} MB, naive {_fmt(m['naive'], '.2f')} MB; host "
        f"workspace {_fmt(m['host_workspace'], '.2f')} MB",
        "compile: " + ", ".join(f"{k[:-2]} {v:.2f} s" for k, v in r["compile_s"].items()),
        f"precision {r['precision_mode']}; cube tasks by weight type and host path: "
        + ", ".join(f"{k} x{n}" for k, n in r["cube_paths"].items()),
    ]
    if "max_abs_diff_vs_eager" in r:
        lines.append(f"max |ours - eager| = {r['max_abs_diff_vs_eager']:.2e}")
    if "chrome_trace" in r:
        lines.append(f"Chrome trace written to {r['chrome_trace']}")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="ge-bench", description=__doc__.split("\n")[0])
    p.add_argument("--model", required=True, help="zoo name or .npu file")
    p.add_argument("--batch_size", "--batch-size", type=int, default=1)
    p.add_argument("--num_iterations", "--num-iterations", type=int, default=20)
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--threads", type=int, default=0, help="torch threads (default: torch's)")
    p.add_argument("--trace", help="write the simulated timeline (Chrome trace JSON) here")
    p.add_argument("--json", action="store_true", help="print JSON instead of the table")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--precision", choices=list(MODES),
                   help="GE's precision_mode (default: must_keep_origin_dtype, the graph's fp32)")
    args = p.parse_args(argv)
    if args.num_iterations < 1 or args.batch_size < 1:
        p.error("--num_iterations and --batch_size must be at least 1")
    try:
        result = measure(args)
    except (NpuFileError, ValueError) as e:
        print(f"ge-bench: error: {str(e).splitlines()[0]}", file=sys.stderr)
        return 1
    print(json.dumps(result, indent=2) if args.json else report(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
