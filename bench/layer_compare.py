"""Where the time goes: our tasks against ONNX Runtime's nodes, conv shape by conv shape.

    python -m bench.layer_compare [--model resnet50_bs1] [--iterations 15] [--threads 2]

Our side: each task of the loaded graph timed alone, in program order, median
of --iterations runs (bench.runtime_levers.task_times), with the runner it got;
the `warm` column times each task's second call back to back instead, with
its weights and data in cache.
ONNX Runtime's side: its own profiler (per-node kernel time, median over the
same number of runs). Convs are keyed by (input shape, output shape, kernel)
in NCHW terms (ORT's NCHWc shapes are folded back), everything else by op
name, and each key sums all its instances. Sorted by how much slower we are.
Needs the optional `bench` extra (onnxruntime).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import io
import json
import os
import statistics
import tempfile

import torch

from bench.runtime_levers import task_times
from bench.suite import _models, compile_ours
from ge_dialect import ge


def _conv_key(x, y, kernel) -> tuple:
    return (tuple(x), tuple(y), tuple(kernel))


def ours_by_key(optimized, inputs, iterations: int, warm: bool = False
                ) -> tuple[dict, dict]:
    executable = optimized.executable
    tasks = {t.name: t for t in executable.tasks}
    times: dict[tuple, float] = collections.defaultdict(float)
    runners: dict[tuple, str] = {}
    for name, runner, ms in task_times(executable, inputs, iterations, warm):
        first = next(iter(tasks[name].op.body.block.ops))
        key = (_conv_key(first.input.type.get_shape(), first.output.type.get_shape(),
                         first.weight.type.get_shape()[2:])
               if isinstance(first, ge.Conv2dOp) else (first.name,))
        times[key] += ms
        runners[key] = runner
    return times, runners


def _nchw(shape: list[int]) -> tuple:
    return (shape[0], shape[1] * shape[4], shape[2], shape[3]) if len(shape) == 5 else tuple(shape)


def ort_by_key(model, inputs, iterations: int, workdir: str) -> dict:
    import onnxruntime as ort

    path = os.path.join(workdir, "model.onnx")
    with contextlib.redirect_stdout(io.StringIO()):
        torch.onnx.export(model, inputs, path, dynamo=True, optimize=True)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = torch.get_num_threads()
    options.enable_profiling = True
    options.profile_file_prefix = os.path.join(workdir, "ort_profile")
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    feeds = {i.name: x.numpy() for i, x in zip(session.get_inputs(), inputs)}
    for _ in range(iterations + 1):
        session.run(None, feeds)
    with open(session.end_profiling()) as f:
        events = json.load(f)
    per_node: dict[str, list] = collections.defaultdict(list)
    for e in events:
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            per_node[e["name"]].append(e)
    times: dict[tuple, float] = collections.defaultdict(float)
    for runs in per_node.values():
        args = runs[0]["args"]
        ms = statistics.median(e["dur"] for e in runs[1:] or runs) / 1e3
        op = args.get("op_name", "?")
        shapes = [list(s.values())[0] for s in args.get("input_type_shape", [])]
        outs = [list(s.values())[0] for s in args.get("output_type_shape", [])]
        if "Conv" in op and len(shapes) >= 2 and outs:
            key = _conv_key(_nchw(shapes[0]), _nchw(outs[0]), shapes[1][2:4])
        else:
            key = (op,)
        times[key] += ms
    return times


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="resnet50_bs1")
    ap.add_argument("--iterations", type=int, default=15)
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    models = _models(False)
    if args.model not in models:
        ap.error(f"unknown model '{args.model}'; the suite has {', '.join(models)}")
    print(f"load average {os.getloadavg()[0]:.2f}, {torch.get_num_threads()} threads")
    model, inputs = models[args.model]()
    model.eval()
    optimized, _ = compile_ours(model, inputs)
    ours, runners = ours_by_key(optimized, inputs, args.iterations)
    warm, _ = ours_by_key(optimized, inputs, args.iterations, warm=True)
    with tempfile.TemporaryDirectory() as workdir:
        theirs = ort_by_key(model, inputs, args.iterations, workdir)
    print(f"sum of task times: ours {sum(ours.values()):.2f} ms in sequence, "
          f"{sum(warm.values()):.2f} ms warm (each task's second call back to back); "
          f"ONNX Runtime {sum(theirs.values()):.2f} ms")
    keys = sorted(set(ours) | set(theirs), key=lambda k: theirs.get(k, 0) - ours.get(k, 0))
    print(f"{'conv (in, out, kernel) or op':<62} {'ours ms':>8} {'warm':>6} {'runner':<16} "
          f"{'ORT ms':>7} {'diff':>6}")
    for k in keys:
        a, w, b = ours.get(k, 0.0), warm.get(k, 0.0), theirs.get(k, 0.0)
        print(f"{str(k):<62} {a:8.2f} {w:6.2f} {runners.get(k, '-'):<16} {b:7.2f} "
              f"{a - b:+6.2f}")
    print(f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
