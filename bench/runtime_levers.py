"""The host runtime's levers, measured one by one in one run.

    python -m bench.runtime_levers --models resnet50_bs1 --iterations 10 --threads 2

One compiled module per model; one Executable per lever configuration, each
adding one lever to the previous (runtime.executor.Options): the generic path,
+ zero-copy task runners (with their in-place epilogues), + the prepared
dispatch loop, + the per-shape conv/pool algorithms on the NCHW arena, +
the channels_last arena (NHWC views, with its algorithms), + oneDNN primitives
created at load instead of torch's mkldnn ops (runtime/host/onednn.py), + buffers only
those primitives touch held in oneDNN's blocked nChw16c layout
(runtime/host/blocked.py: the default); and
the channels_last arena with the library conv, to show the layout alone.
All of them, PyTorch eager and ONNX Runtime take turns on every iteration
(bench.benchmark.interleaved), so the machine's noise hits them alike. For
each it prints the median latency, the ratio to eager and to ORT, and the
runtime overhead: host time minus the time inside task calls, as a share of
host time (median over the iterations). The load average is printed at start
and end; figures from a busy machine are not comparable between runs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

import torch

from bench.suite import _models, compile_ours, ort_session
from runtime.executor import GENERIC, Executable, Options

LEVERS = {
    "generic": GENERIC,
    "+zero_copy": Options(zero_copy=True, prepared_loop=False, channels_last=False,
                          algorithms=False),
    "+prepared_loop": Options(zero_copy=True, prepared_loop=True, channels_last=False,
                              algorithms=False),
    "+algorithms": Options(zero_copy=True, prepared_loop=True, channels_last=False,
                           algorithms=True, primitives=False),
    "+channels_last": Options(primitives=False),
    "+primitives": Options(blocked=False),
    "+blocked": Options(),  # everything: the default
    # the layout alone, with the library conv
    "nhwc_library": Options(zero_copy=True, prepared_loop=True, channels_last=True,
                            algorithms=False),
}


def measure(name: str, make, args) -> dict:
    model, inputs = make()
    model.eval()
    optimized, _ = compile_ours(model, inputs)
    chosen = args.levers.split(",") if args.levers else list(LEVERS)
    executables = {k: Executable(optimized.module, options=LEVERS[k]) for k in chosen}
    runners = {k: (lambda e=e: e.run(*inputs)) for k, e in executables.items()}
    runners["eager"] = lambda: model(*inputs)
    with tempfile.TemporaryDirectory() as workdir:
        ort = None if args.no_ort else ort_session(model, inputs, workdir)
        if ort is not None:
            runners["onnxruntime"] = ort[0]
        times = {k: [] for k in runners}
        overhead = {k: [] for k in executables}
        with torch.no_grad():
            for i in range(args.warmup + args.iterations):
                for k, run in runners.items():
                    time.sleep(args.settle)
                    start = time.perf_counter()
                    run()
                    elapsed = time.perf_counter() - start
                    if i >= args.warmup:
                        times[k].append(elapsed)
                        if k in executables:
                            e = executables[k]
                            overhead[k].append(100 * (e.last_host_ms - e.last_kernel_ms)
                                               / e.last_host_ms)
    med = {k: statistics.median(v) * 1e3 for k, v in times.items()}
    default = next((k for k in chosen if LEVERS[k] == Options()), chosen[-1])
    last = executables[default]  # the slowest tasks and the profile: of the default
    extra = {}
    if args.tasks:
        extra["slowest_tasks"] = task_times(last, inputs, 3)[:args.tasks]
    if args.profile:  # the profiler sees torch ops only, not oneDNN primitives (ctypes)
        extra["profiled"] = "+channels_last" if "+channels_last" in executables else default
        extra["profiled_host_ms"], extra["profiled_aten_ms"] = torch_op_share(
            executables[extra["profiled"]], inputs)
    return {"model": name, "latency_ms": med, **extra,
            "overhead_pct": {k: statistics.median(v) for k, v in overhead.items()},
            "tasks": len(next(iter(executables.values())).tasks)}


def task_times(executable: Executable, inputs, iterations: int,
               warm: bool = False) -> list[tuple[str, str, float]]:
    """(task, runner, median ms) per task of `executable`, slowest first.

    In program order, each task timed as the run meets it; with `warm`, each
    task is called twice back to back and the second call is timed, so its
    weights, inputs and output are already in cache: the gap between the two
    is what the cache state left by the tasks before costs. (A task that
    accumulates in place then adds twice: the values are wrong, the times
    are not.)"""
    times: dict[int, list[float]] = {i: [] for i in range(len(executable.tasks))}
    with torch.no_grad():
        for _ in range(iterations):
            executable.run(*inputs)
            for args, k, j in executable._input_uses:  # run() unbinds the inputs after use
                args[k] = inputs[j]
            for i, (run, args) in zip(executable.host_order, executable._prepared):
                if warm:
                    run(*args)
                start = time.perf_counter()
                run(*args)
                times[i].append(time.perf_counter() - start)
    rows = [(executable.tasks[i].name, executable.runners[i].__name__,
             statistics.median(ts) * 1e3) for i, ts in times.items()]
    return sorted(rows, key=lambda r: -r[2])


def torch_op_share(executable: Executable, inputs) -> tuple[float, float]:
    """(host ms, ms inside top-level torch ops: aten::, mkldnn::) of one run under
    torch.profiler: the rest is Python and dispatch, what a C++ runtime would not
    pay. The profiler adds its own cost per op, so this is an estimate; it does
    not see calls into oneDNN primitives (runtime/host/onednn.py, ctypes), so it is
    taken on the torch-op configuration (+channels_last) when that was run."""
    from torch.profiler import ProfilerActivity, profile

    for _ in range(2):  # the first profiled run pays the profiler's start-up
        with torch.no_grad(), profile(activities=[ProfilerActivity.CPU]) as prof:
            start = time.perf_counter()
            executable.run(*inputs)
            host = time.perf_counter() - start
    top = [e for e in prof.events() if e.cpu_parent is None and "::" in e.name]
    return host * 1e3, sum(e.cpu_time_total for e in top) / 1e3


def table(row: dict) -> str:
    med, eager, ort = row["latency_ms"], row["latency_ms"]["eager"], row["latency_ms"].get(
        "onnxruntime")
    lines = [f"{row['model']} ({row['tasks']} tasks)",
             f"  {'configuration':<16} {'ms':>8} {'/eager':>7} {'/ORT':>7} {'overhead':>9}"]
    for k, ms in med.items():
        over = row["overhead_pct"].get(k)
        lines.append(f"  {k:<16} {ms:>8.1f} {ms / eager:>7.2f} "
                     f"{(ms / ort) if ort else float('nan'):>7.2f} "
                     + (f"{over:>8.1f}%" if over is not None else ""))
    for task, runner, ms in row.get("slowest_tasks", []):
        lines.append(f"    {task:<28} {runner:<14} {ms:8.3f} ms")
    if "profiled_host_ms" in row:
        host, aten = row["profiled_host_ms"], row["profiled_aten_ms"]
        lines.append(f"  under torch.profiler ({row['profiled']}): host {host:.1f} ms, "
                     f"in top-level torch ops "
                     f"{aten:.1f} ms, Python and dispatch {100 * (host - aten) / host:.1f}%")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="bench.runtime_levers", description=__doc__.split("\n")[0])
    p.add_argument("--models", default="resnet50_bs1")
    p.add_argument("--levers", help=f"comma-separated subset of {', '.join(LEVERS)}")
    p.add_argument("--iterations", type=int, default=10)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--no-ort", action="store_true")
    p.add_argument("--smoke", action="store_true", help="tiny models, one iteration")
    p.add_argument("--settle", type=float, default=0.2,
                   help="seconds of idle before each timed call, so that the previous "
                   "runner's spinning worker threads (ORT's, OpenMP's) have gone to sleep")
    p.add_argument("--tasks", type=int, default=0, help="print the N slowest tasks")
    p.add_argument("--profile", action="store_true",
                   help="also the share of host time outside torch ops (torch.profiler)")
    p.add_argument("--json")
    args = p.parse_args(argv)
    if args.smoke:
        args.iterations, args.warmup, args.no_ort = 1, 0, True
        args.models = "tiny_resnet_bs1"
    if args.threads:
        torch.set_num_threads(args.threads)
    models = _models(args.smoke)
    start_load = os.getloadavg()[0]
    print(f"load average {start_load:.2f}, {torch.get_num_threads()} threads, "
          f"torch {torch.__version__}", flush=True)
    rows = []
    for name in args.models.split(","):
        rows.append(measure(name, models[name], args))
        print(table(rows[-1]), flush=True)
    print(f"load average at end {os.getloadavg()[0]:.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"load_average": [start_load, os.getloadavg()[0]],
                       "threads": torch.get_num_threads(), "torch": torch.__version__,
                       "rows": rows}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
