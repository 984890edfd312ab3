"""Where the time goes against OpenVINO: our tasks by kind beside its nodes by type.

    python -m bench.openvino_compare [--model bert_base_seq128] [--rounds 10] [--threads 2]
    python -m bench.openvino_compare --bf16     # ours in bf16 against OpenVINO's default

Both run in one process, taking turns (0.2 s idle, one untimed and one timed
call each, as in bench.suite). Our side: every task runner of the loaded
graph timed inside real runs and summed by task kind (its name without the
number: linear, attention, ...). OpenVINO's side: its own per-node counters
(PERF_COUNT, f32 inference precision, or its default with --bf16) of the timed runs, summed by node type
and the kernel it ran (FullyConnected/gemm_mlas_f32, ...). Milliseconds per
run. Unlike bench.layer_compare (ONNX Runtime), the times are taken inside
whole runs, so each kind pays the cache state the kinds before it leave.
Needs the optional `bench` extra (openvino, onnx).
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import statistics
import tempfile
import time

import torch

from bench.suite import BF16_MODE, _models, compile_ours, export_onnx, openvino_missing


def timed_by_kind(executable) -> dict[str, float]:
    """Wrap the executable's prepared runners so that each run adds their
    seconds into the returned dict, by task kind."""
    seconds: dict[str, float] = collections.defaultdict(float)
    names = [executable.tasks[i].name for i in executable.host_order]

    def timed(run, kind):
        def run_timed(*args):
            start = time.perf_counter()
            run(*args)
            seconds[kind] += time.perf_counter() - start
        return run_timed

    executable._prepared = [(timed(run, re.sub(r"_\d+$", "", name)), args)
                            for name, (run, args) in zip(names, executable._prepared)]
    return seconds


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="bert_base_seq128")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--bf16", action="store_true",
                    help=f"ours under {BF16_MODE}, OpenVINO with its default precision")
    args = ap.parse_args(argv)
    missing = openvino_missing()
    if missing:
        print(missing)
        return 1
    import openvino as ov

    if args.threads:
        torch.set_num_threads(args.threads)
    print(f"load average {os.getloadavg()[0]:.2f}, {torch.get_num_threads()} threads")
    model, inputs = _models(False)[args.model]()
    model.eval()
    optimized, _ = compile_ours(model, inputs, BF16_MODE if args.bf16 else None)
    executable = optimized.executable
    ours = timed_by_kind(executable)
    peer = "openvino_default" if args.bf16 else "openvino_f32"
    with tempfile.TemporaryDirectory() as workdir:
        path, _ = export_onnx(model, inputs, workdir)
        compiled = ov.Core().compile_model(path, "CPU", {
            "INFERENCE_NUM_THREADS": torch.get_num_threads(), "PERF_COUNT": True,
            **({} if args.bf16 else {"INFERENCE_PRECISION_HINT": "f32"})})
    request, feeds = compiled.create_infer_request(), [x.numpy() for x in inputs]
    theirs: dict[str, float] = collections.defaultdict(float)
    latency: dict[str, list[float]] = {"ours": [], peer: []}
    with torch.no_grad():
        for _ in range(args.rounds):
            for name, run in (("ours", lambda: executable.run(*inputs)),
                              (peer, lambda: request.infer(feeds))):
                time.sleep(0.2)
                before = dict(ours)
                run()  # untimed: our kinds count the timed call only, as their counters do
                ours.clear()
                ours.update(before)
                start = time.perf_counter()
                run()
                latency[name].append(time.perf_counter() - start)
            for node in request.profiling_info:
                if node.status.name == "EXECUTED":
                    theirs[f"{node.node_type}/{node.exec_type}"] += (
                        node.real_time.total_seconds())
    print(f"{args.model}: ours {statistics.median(latency['ours']) * 1e3:.1f} ms, {peer} "
          f"{statistics.median(latency[peer]) * 1e3:.1f} ms (medians; their "
          f"counters cost a little)")
    for title, table, per in (("ours, by task kind", ours, args.rounds),
                              (f"{peer}, by node type / kernel", theirs, args.rounds)):
        print(f"  {title}: {sum(table.values()) / per * 1e3:.1f} ms per run")
        for kind, s in sorted(table.items(), key=lambda kv: -kv[1])[:12]:
            print(f"    {s / per * 1e3:8.2f} ms  {kind}")
    print(f"load average at end {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
