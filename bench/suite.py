"""The benchmark suite: our host runtime against PyTorch eager, ONNX Runtime,
OpenVINO and torch.compile, on the same machine, in one run, iterations interleaved.

    python -m bench.suite                       # the full table (minutes)
    python -m bench.suite --torch-compile       # also Inductor (about a minute per model)
    python -m bench.suite --smoke               # tiny sizes, one iteration (run by pytest)
    python -m bench.suite --int8                # int8: ours, ORT and OpenVINO NNCF
    python -m bench.suite --models resnet50_bs1 --iterations 20 --json out.json

For each model it reports median latencies and their ratios (ours / peer:
below 1.0 means we are faster), our compile time by stage (export+import,
GE passes, lowering, device planning, load), the tasks after fusion, the
memory plan (arena vs lower bound vs no reuse), the simulated device time, and
the runtime's overhead (host time minus the time inside kernels), and each
system's FLOP rate beside the best single kernel's on this machine
(bench/peak.py). ONNX
Runtime and OpenVINO come from the optional `bench` extra (`pip install -e
'.[bench]'`); without one, its columns are n/a and the reason is printed.

Ours runs twice: fp32 (`ours`, GE's default must_keep_origin_dtype) and
`ours_bf16` (allow_mix_precision_bf16). OpenVINO runs with the f32
inference-precision hint (`openvino_f32`) and with its defaults
(`openvino_default`: bf16 where the CPU has AMX or AVX512_BF16, f32
elsewhere; the precision it chose is printed). The ISA line names the CPU's
vector extensions (lscpu), the kernel oneDNN picks for an fp32 and a bf16
conv, and the host path of our bf16 cube tasks, so a bf16 figure from fp32
kernels (a CPU without bf16 instructions) is never mistaken for bf16 speed.
With `--int8` (by default on ResNet-50 at batch 1 and 8, MobileNetV2 and
BERT-base) three more columns calibrate on the same batches
(bench/int8_peers.py): `ours_int8` (`npu_graph.quantize`, minmax, then the
default pipeline with ours_bf16's precision mode for the ops left in float,
as NNCF's OpenVINO runs them in bf16 on a CPU with AMX or AVX512_BF16),
`ort_int8` (ONNX Runtime's `quantize_static`, QDQ) and
`nncf_int8` (OpenVINO's `nncf.quantize`, in a venv of its own through
bench/int8_worker.py); a second table gives ours_int8 against the faster
int8 peer, our bf16 and our fp32, each column's error against eager on the
timed inputs and the matrix ops each ran in int8 or float.
Two ratios are the suite's targets (below 1.0: we are faster): ours_bf16 /
openvino_default and ours / min(onnxruntime, openvino_f32). Check the load average it prints: with another
process on one of two cores, figures are not comparable between runs, only
within one (docs/BENCHMARKS.md).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import sys
import tempfile
import time

import torch

import npu_graph
from bench import int8_peers
from bench.benchmark import interleaved
from bench.peak import attainable_gflops
from npu_graph import GraphParser, OptimizedGraph
from passes.driver.runner import run_pipeline
from passes.pipelines import build_pipeline
from runtime.host import onednn


STAGE_COLUMNS = {"ge": "passes", "lowering": "lowering", "device": "planning"}
BF16_MODE = "allow_mix_precision_bf16"  # the precision mode of ours_bf16
INT8_MODELS = ["resnet50_bs1", "resnet50_bs8", "mobilenet_v2_bs1", "bert_base_seq128"]
INT8_COLUMNS = ["ours_int8", "ort_int8", "nncf_int8"]


def _models(smoke: bool) -> dict:
    """name -> () -> (model, inputs). Full sizes are the reference table's
    (docs/BENCHMARKS.md): ResNet-50 at batch 1 and 8, MobileNetV2, BERT-base, GPT-2."""
    from test.models import bert, gpt2, mobilenet, resnet

    def seeded(make):
        def build():
            torch.manual_seed(0)
            return make()
        return build

    if smoke:
        return {"tiny_resnet_bs1": seeded(lambda: _zoo("tiny_resnet")),
                "bert_tiny": seeded(lambda: _zoo("bert"))}
    return {
        "resnet50_bs1": seeded(lambda: (resnet.make_resnet50()[0], (torch.randn(1, 3, 224, 224),))),
        "resnet50_bs8": seeded(lambda: (resnet.make_resnet50()[0], (torch.randn(8, 3, 224, 224),))),
        "mobilenet_v2_bs1": seeded(mobilenet.make_v2_full),
        "bert_base_seq128": seeded(lambda: (
            bert.Bert(vocab=30522, dim=768, heads=12, layers=12, max_len=512).eval(),
            (torch.randint(0, 30522, (1, 128)), torch.ones(1, 128, dtype=torch.int64)))),
        "gpt2_style_seq128": seeded(lambda: (
            gpt2.GPT2(vocab=50257, dim=768, heads=12, max_len=1024).eval(),
            (torch.randint(0, 50257, (1, 128)),))),
    }


def _zoo(name: str):
    from tools.models import zoo_factory

    model, inputs = zoo_factory(name)()
    return model, tuple(inputs)


def warm_up_export() -> float:
    """The first torch.export in a process imports dynamo, sympy and friends: a cost
    of the process, not of compiling a model. Pay it on a toy; return its seconds."""
    start = time.perf_counter()
    toy = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.ReLU()).eval()
    GraphParser().parse_pytorch_model(toy, input_spec=(torch.randn(1, 3, 8, 8),))
    return time.perf_counter() - start


def compile_ours(model, inputs, precision_mode: str | None = None,
                 calibration: list[tuple] | None = None) -> tuple[OptimizedGraph, dict]:
    """The default optimize() pipeline (with `precision_mode`'s passes), stage
    by stage, each timed; with `calibration` batches, the imported graph is
    first quantized to int8 by `npu_graph.quantize` on them (minmax)."""
    times = {}
    start = time.perf_counter()
    graph = GraphParser().parse_pytorch_model(model, input_spec=inputs)
    times["import"] = time.perf_counter() - start
    if calibration is not None:
        start = time.perf_counter()
        graph = npu_graph.quantize(graph, calibration, scheme="minmax")
        times["quantize"] = time.perf_counter() - start
    pipeline = build_pipeline(precision_mode=precision_mode)
    module = graph.module
    for stage, spec in pipeline.stages():
        start = time.perf_counter()
        run_pipeline(module, spec)
        times[STAGE_COLUMNS[stage]] = time.perf_counter() - start
    optimized = OptimizedGraph(module, pipeline.spec(), graph.name)
    start = time.perf_counter()
    optimized.executable
    times["load"] = time.perf_counter() - start
    return optimized, times


def export_onnx(model, inputs, workdir: str) -> tuple[str, float]:
    """The model as an ONNX file (torch's dynamo exporter), for ORT and OpenVINO,
    and the seconds it took."""
    start = time.perf_counter()
    path = os.path.join(workdir, "model.onnx")
    if not os.path.exists(path):
        with contextlib.redirect_stdout(io.StringIO()):  # the exporter narrates its steps
            torch.onnx.export(model, inputs, path, dynamo=True, optimize=True)
    return path, time.perf_counter() - start


def ort_session(model, inputs, workdir: str):
    """(run, seconds to export+load) for ONNX Runtime at ORT_ENABLE_ALL, or None."""
    try:
        import onnxruntime as ort
    except ImportError:
        return None
    start = time.perf_counter()
    path, _ = export_onnx(model, inputs, workdir)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = torch.get_num_threads()
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    feeds = {n: x.numpy() for n, x in zip(names, inputs)}
    return (lambda: session.run(None, feeds)), time.perf_counter() - start


def openvino_missing() -> str | None:
    """Why OpenVINO cannot run here, or None."""
    try:
        import openvino  # noqa: F401
    except ImportError as e:
        return f"openvino is not installed ({e}); pip install -e '.[bench]'"
    return None


def openvino_models(model, inputs, workdir: str) -> dict:
    """{"openvino_f32": ..., "openvino_default": ...}: each (run, seconds to
    export+compile, the inference precision OpenVINO chose), from the ONNX
    file, on the CPU plugin with the latency hint and torch's thread count
    (the same cores as every other runner); one OpenVINO cannot compile is
    left out, with the reason printed."""
    import openvino as ov

    core = ov.Core()
    path, export_s = export_onnx(model, inputs, workdir)
    common = {"PERFORMANCE_HINT": "LATENCY", "INFERENCE_NUM_THREADS": torch.get_num_threads()}
    out = {}
    for name, extra in (("openvino_f32", {"INFERENCE_PRECISION_HINT": "f32"}),
                        ("openvino_default", {})):
        start = time.perf_counter()
        try:
            compiled = core.compile_model(core.read_model(path), "CPU", {**common, **extra})
        except RuntimeError as e:  # its columns are n/a, the reason printed
            reason = [line.strip() for line in str(e).splitlines() if line.strip()][-1]
            print(f"{name}: OpenVINO cannot compile this model here: {reason}")
            continue
        request = compiled.create_infer_request()
        feeds = [x.numpy() for x in inputs]
        hint = compiled.get_property("INFERENCE_PRECISION_HINT")
        precision = hint.get_type_name() if hasattr(hint, "get_type_name") else str(hint)
        out[name] = ((lambda r=request, f=feeds: r.infer(f)),
                     export_s + time.perf_counter() - start, precision)
    return out


def isa_line(bf16_paths: dict[str, int] | None = None) -> str:
    """The CPU's SIMD and matrix extensions (lscpu flags), the kernels oneDNN picks
    for a 3x3 conv in fp32 and in bf16, and our bf16 cube tasks' host paths."""
    try:
        import subprocess

        text = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        text = ""
    flags = next((line.split(":", 1)[1].split() for line in text.splitlines()
                  if line.startswith("Flags:")), [])
    wanted = sorted(f for f in flags if f.startswith(("avx", "amx", "fma")))
    model = next((line.split(":", 1)[1].strip() for line in text.splitlines()
                  if line.startswith("Model name:")), "?")
    paths = (", ".join(f"{k} x{n}" for k, n in bf16_paths.items()) if bf16_paths else "n/a")
    return (f"CPU {model}: {' '.join(wanted) or 'n/a'}; oneDNN conv fp32 "
            f"{onednn.conv_impl(torch.float32) or 'n/a'}, bf16 "
            f"{onednn.conv_impl(torch.bfloat16) or 'n/a'}; our bf16 cube tasks: {paths}")


def compiled_model(model, inputs):
    """(run, compile seconds) for torch.compile (Inductor), timed to the first result,
    with Inductor's on-disk caches off: a second model of the same shapes (ResNet-50
    at batch 8 after batch 1, or a rerun of the suite) would otherwise reuse the
    first one's compiled kernels and report a fraction of a real compile."""
    import torch._inductor.config as inductor_config

    inductor_config.force_disable_caches = True
    torch._dynamo.reset()
    compiled = torch.compile(model)
    start = time.perf_counter()
    with torch.no_grad():
        compiled(*inputs)
    return (lambda: compiled(*inputs)), time.perf_counter() - start


def bench_model(name: str, make, args) -> dict:
    model, inputs = make()
    model.eval()
    optimized, stages = compile_ours(model, inputs)
    runners = {"ours": lambda: optimized(*inputs), "eager": lambda: model(*inputs)}
    peers_compile, precisions, bf16_paths = {}, {}, None
    if not args.no_bf16:
        bf16_graph, bf16_stages = compile_ours(model, inputs, BF16_MODE)
        runners["ours_bf16"] = lambda: bf16_graph(*inputs)
        peers_compile["ours_bf16"] = sum(bf16_stages.values())
        bf16_paths = bf16_graph.executable.cube_paths()
    with tempfile.TemporaryDirectory() as workdir:
        ort_run = None if args.no_ort else ort_session(model, inputs, workdir)
        if ort_run is not None:
            runners["onnxruntime"], peers_compile["onnxruntime"] = ort_run
        if not args.no_openvino and openvino_missing() is None:
            for peer, (run, seconds, precision) in openvino_models(model, inputs,
                                                                   workdir).items():
                runners[peer], peers_compile[peer], precisions[peer] = run, seconds, precision
        if args.torch_compile:
            runners["torch_compile"], peers_compile["torch_compile"] = compiled_model(model,
                                                                                   inputs)
        int8, nncf = (add_int8(model, inputs, args, workdir, runners, peers_compile)
                      if args.int8 else (None, None))
        samples: dict[str, list[float]] = {}
        try:
            with torch.no_grad():
                medians = interleaved(runners, args.warmup, args.iterations,
                                      settle=args.settle, warm=not args.cold, samples=samples)
                if int8 is not None:
                    int8_errors(int8, model, inputs, runners, nncf, workdir)
        finally:
            if nncf is not None:
                nncf.close()
    stats = optimized.stats
    ours = medians["ours"]
    gflop = sum(t["cube_flops"] for t in stats["tasks"]) / 1e9
    fp32_peers = [medians[k] for k in ("onnxruntime", "openvino_f32") if k in medians]
    targets = {}
    if "ours_bf16" in medians and "openvino_default" in medians:
        targets["ours_bf16/openvino_default"] = medians["ours_bf16"] / medians["openvino_default"]
        targets["paired"] = paired_quartiles(samples["ours_bf16"], samples["openvino_default"])
    if fp32_peers:
        targets["ours/min(ort,ov_f32)"] = ours / min(fp32_peers)
    if int8 is not None:
        int8["ratios"] = int8_ratios(medians, samples)
    return {
        "model": name,
        "int8": int8,
        "latency_ms": {k: v * 1e3 for k, v in medians.items()},
        "ratio_ours_to": {k: ours / v for k, v in medians.items() if k != "ours"},
        "targets": targets,
        "openvino_precision": precisions,
        "bf16_cube_paths": bf16_paths,
        "gflop": gflop,  # the convs' and matmuls' (target/cost_model.py cube_flops)
        "gflop_per_s": {k: gflop / v for k, v in medians.items()},
        "paired_ratio_quartiles": {k: paired_quartiles(samples["ours"], ts)
                                   for k, ts in samples.items() if k != "ours"},
        "compile_s": {**stages, "total": sum(stages.values())},
        "peer_compile_s": peers_compile,
        "tasks": stats["num_tasks"],
        "streams": stats["num_streams"],
        "memory_mb": {"arena": stats["memory_usage"], "lower_bound": stats["memory_lower_bound"],
                      "naive": stats["memory_naive"]},
        "device_ms": stats["execution_time"],
        "overhead_pct": 100 * stats["host_overhead_ms"] / stats["host_time"]
        if stats["host_time"] else None,
    }


def add_int8(model, inputs, args, workdir: str, runners: dict, peers_compile: dict):
    """ours_int8, ort_int8 and nncf_int8 added to `runners`, each quantized from
    the fp32 model on the same calibration batches; (the row's int8 facts,
    the NNCF peer to close or None). A peer that cannot run is left out and
    its note says why."""
    threads = torch.get_num_threads()
    batches = int8_peers.calibration_batches(inputs, args.calibration_batches)
    info = {"calibration": f"{len(batches)} batches shaped like the timed inputs",
            "notes": {}, "matrix_ops": {}, "quantize_s": {}}
    graph, stages = compile_ours(model, inputs, BF16_MODE, calibration=batches)
    runners["ours_int8"] = lambda: graph(*inputs)
    peers_compile["ours_int8"] = sum(stages.values())
    info["quantize_s"]["ours_int8"] = stages["quantize"]
    info["matrix_ops"]["ours_int8"] = graph.executable.cube_paths()
    missing = "left out (--no-ort)" if args.no_ort else int8_peers.ort_missing()
    if missing:
        info["notes"]["ort_int8"] = missing
    else:
        try:
            path, _ = export_onnx(model, inputs, workdir)
            run, seconds, ops = int8_peers.ort_int8_session(path, inputs, batches, workdir,
                                                            threads)
            runners["ort_int8"], peers_compile["ort_int8"] = run, seconds
            info["matrix_ops"]["ort_int8"] = ops
        except Exception as e:  # noqa: BLE001 - a peer's failure is its row's note
            info["notes"]["ort_int8"] = f"failed: {first_line(e)}"
    nncf = None
    if args.no_openvino:
        info["notes"]["nncf_int8"] = "left out (--no-openvino)"
    else:
        path, _ = export_onnx(model, inputs, workdir)
        nncf = int8_peers.NNCFPeer(path, inputs, batches, workdir, threads,
                                   transformer=not inputs[0].dtype.is_floating_point)
        if nncf.error:
            info["notes"]["nncf_int8"], nncf = nncf.error, None
        else:
            runners["nncf_int8"], peers_compile["nncf_int8"] = nncf.run, nncf.seconds
            info["matrix_ops"]["nncf_int8"] = nncf.ready["int8_layers"]
            info["quantize_s"]["nncf_int8"] = nncf.ready["quantize_s"]
            info["nncf"] = {k: nncf.ready[k] for k in ("precision", "versions")}
    return info, nncf


def first_line(error: BaseException) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return f"{type(error).__name__}: {lines[0] if lines else ''}"


def int8_errors(int8: dict, model, inputs, runners: dict, nncf, workdir: str) -> None:
    """Each reduced-precision column's max |out - eager| / max |eager| on the
    timed inputs, written into the row's int8 facts: a fast column that
    computes something else is seen at once."""
    want = model(*inputs)
    errors = {k: int8_peers.relative_error(runners[k](), want)
              for k in ("ours_bf16", "ours_int8", "ort_int8") if k in runners}
    if nncf is not None:
        errors["nncf_int8"] = int8_peers.relative_error(nncf.outputs(workdir), want)
    int8["rel_error_vs_eager"] = errors


def int8_ratios(medians: dict, samples: dict) -> dict:
    """ours_int8 against the faster int8 peer (with the paired quartiles), our
    bf16 and our fp32; below 1.0 ours_int8 is faster."""
    out = {}
    peers = [k for k in ("ort_int8", "nncf_int8") if k in medians]
    if peers:
        best = min(peers, key=medians.get)
        out["best_peer"] = best
        out["vs_best_peer"] = medians["ours_int8"] / medians[best]
        out["vs_best_peer_paired"] = paired_quartiles(samples["ours_int8"], samples[best])
    for k in ("ours_bf16", "ours"):
        if k in medians:
            out[f"vs_{k}"] = medians["ours_int8"] / medians[k]
    return out


def int8_table(rows: list[dict]) -> str:
    """The int8 columns: latencies, ratios, errors, which kernels ran, why a peer is absent."""
    rows = [r for r in rows if r.get("int8")]
    cols = ["ours", "ours_bf16", *INT8_COLUMNS]
    ratios = [("vs_best_peer", "int8/best peer"), ("vs_ours_bf16", "int8/ours_bf16"),
              ("vs_ours", "int8/ours")]
    lines = ["int8 (medians in ms; a ratio below 1.0: ours_int8 is faster)",
             f"{'model':<20} " + " ".join(f"{c:>10}" for c in cols) + " "
             + " ".join(f"{title:>15}" for _, title in ratios) + "  best peer"]
    for r in rows:
        lat, ratio = r["latency_ms"], r["int8"]["ratios"]
        lines.append(f"{r['model']:<20} " + " ".join(f"{_cell(lat.get(c)):>10}" for c in cols)
                     + " " + " ".join(f"{_cell(ratio.get(k), '.2f'):>15}" for k, _ in ratios)
                     + f"  {ratio.get('best_peer', 'n/a')}")
    for r in rows:
        i = r["int8"]
        paired = i["ratios"].get("vs_best_peer_paired")
        lines.append(f"{r['model']}: calibration {i['calibration']}; max|out - eager| / "
                     "max|eager|: " + ", ".join(f"{k} {v:.1e}" for k, v in
                                                 i.get("rel_error_vs_eager", {}).items())
                     + (f"; ours_int8 / {i['ratios']['best_peer']} paired q1 median q3 "
                        + " ".join(f"{q:.2f}" for q in paired) if paired else ""))
        lines.append("  matrix ops by path: " + "; ".join(
            f"{k} " + ", ".join(f"{p} x{n}" for p, n in v.items())
            for k, v in i["matrix_ops"].items()))
        lines.append("  quantize s: " + ", ".join(f"{k} {v:.1f}" for k, v in i["quantize_s"].items())
                     + (f"; nncf_int8: {i['nncf']['versions']}, inference precision "
                        f"{i['nncf']['precision']}" if "nncf" in i else ""))
        for k, note in i["notes"].items():
            lines.append(f"  {k}: n/a, {note}")
    return "\n".join(lines)


def paired_quartiles(ours: list[float], peer: list[float]) -> list[float]:
    """Quartiles (q1, median, q3) of ours / peer round by round. Each round's
    two calls ran seconds apart, so the machine's drift (20% over minutes
    here) cancels in their ratio: the spread says whether a ratio of 1.1 is
    distinguishable from 1.0 in this run."""
    ratios = sorted(a / b for a, b in zip(ours, peer))
    if len(ratios) < 2:
        return [ratios[0]] * 3
    q1, q2, q3 = statistics.quantiles(ratios, n=4, method="inclusive")
    return [q1, q2, q3]


def _cell(value, spec=".1f") -> str:
    return "n/a" if value is None else format(value, spec)


def table(rows: list[dict]) -> str:
    peers = ["ours_bf16", "eager", "onnxruntime", "openvino_f32", "openvino_default",
             "torch_compile"]
    head = (f"{'model':<20} {'ours ms':>9} " + " ".join(f"{p + ' ms':>14}" for p in peers)
            + " " + " ".join(f"{'/' + p:>14}" for p in peers)
            + f" {'compile s':>9} {'tasks':>5} {'arena MB':>9} {'bound MB':>9} {'naive MB':>9}"
            f" {'device ms':>9} {'overhead':>8}")
    lines = [head]
    for r in rows:
        lat, ratio, mem = r["latency_ms"], r["ratio_ours_to"], r["memory_mb"]
        lines.append(
            f"{r['model']:<20} {lat['ours']:>9.1f} "
            + " ".join(f"{_cell(lat.get(p)):>14}" for p in peers) + " "
            + " ".join(f"{_cell(ratio.get(p), '.2f'):>14}" for p in peers)
            + f" {r['compile_s']['total']:>9.2f} {r['tasks']:>5} {mem['arena']:>9.1f}"
            f" {_cell(mem['lower_bound']):>9} {mem['naive']:>9.1f} {r['device_ms']:>9.3f}"
            f" {_cell(r['overhead_pct']):>7}%")
    lines.append("targets: " + "; ".join(
        f"{r['model']}: " + ", ".join(f"{k} {v:.2f}" for k, v in r["targets"].items()
                                      if k != "paired")
        + (" (paired q1 median q3 {:.2f} {:.2f} {:.2f})".format(*r["targets"]["paired"])
           if "paired" in r["targets"] else "") for r in rows))
    lines.append("OpenVINO inference precision: " + "; ".join(
        f"{r['model']}: " + (", ".join(f"{k} {v}" for k, v in r["openvino_precision"].items())
                             or "n/a") for r in rows))
    lines.append("ours / peer paired round by round, q1 median q3: " + "; ".join(
        f"{r['model']}: " + ", ".join(f"{k} {q1:.2f} {q2:.2f} {q3:.2f}"
                                      for k, (q1, q2, q3) in r["paired_ratio_quartiles"].items())
        for r in rows))
    lines.append("GFLOP/s (conv and matmul FLOPs / latency): " + "; ".join(
        f"{r['model']} ({r['gflop']:.2f} GFLOP): " + ", ".join(
            f"{k} {v:.0f}" for k, v in r["gflop_per_s"].items())
        + f", at half eager's latency {2 * r['gflop_per_s']['eager']:.0f}" for r in rows))
    lines.append("compile by stage (s): " + "; ".join(
        f"{r['model']}: " + ", ".join(f"{k} {v:.2f}" for k, v in r["compile_s"].items())
        for r in rows))
    lines.append("peers' compile (s): " + "; ".join(
        f"{r['model']}: " + (", ".join(f"{k} {v:.1f} (ours / {k} {r['compile_s']['total'] / v:.3f})"
                                       for k, v in r["peer_compile_s"].items()) or "-")
        for r in rows))
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="bench.suite", description=__doc__.split("\n")[0])
    p.add_argument("--models", help="comma-separated subset of the suite's models")
    p.add_argument("--iterations", type=int, default=10)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--settle", type=float, default=0.2,
                   help="idle seconds before each timed call (peers' spinning threads)")
    p.add_argument("--cold", action="store_true",
                   help="time the first call after each settle, not the second (steady state)")
    p.add_argument("--torch-compile", action="store_true", help="also time torch.compile")
    p.add_argument("--no-ort", action="store_true", help="leave ONNX Runtime out")
    p.add_argument("--no-openvino", action="store_true", help="leave OpenVINO out")
    p.add_argument("--no-bf16", action="store_true", help=f"leave ours with {BF16_MODE} out")
    p.add_argument("--int8", action="store_true",
                   help="also ours_int8, ort_int8 and nncf_int8 (by default on "
                        f"{', '.join(INT8_MODELS)})")
    p.add_argument("--calibration-batches", type=int, default=8,
                   help="batches (shaped like the timed inputs) every int8 column calibrates on")
    p.add_argument("--smoke", action="store_true", help="tiny models, one iteration")
    p.add_argument("--json", help="write the results here")
    args = p.parse_args(argv)
    if args.smoke:
        args.iterations, args.warmup, args.settle = 1, 1, 0.0
    if args.threads:
        torch.set_num_threads(args.threads)
    models = _models(args.smoke)
    default = INT8_MODELS if args.int8 and not args.smoke else list(models)
    chosen = args.models.split(",") if args.models else default
    if args.calibration_batches < 1:
        p.error(f"--calibration-batches must be at least 1, got {args.calibration_batches}")
    unknown = [m for m in chosen if m not in models]
    if unknown:
        p.error(f"unknown model(s) {', '.join(unknown)}; the suite has {', '.join(models)}")
    load_start = os.getloadavg()
    protocol = (f"interleaved, settle {args.settle} s, "
                f"{'cold: first call' if args.cold else 'warm: one untimed call first'}")
    primitives = onednn.version() or "n/a (torch's mkldnn ops)"
    print(f"load average {os.getloadavg()[0]:.2f}, {torch.get_num_threads()} threads, "
          f"torch {torch.__version__}, oneDNN primitives {primitives}, {protocol}", flush=True)
    missing = openvino_missing()
    if missing and not args.no_openvino:
        print(f"OpenVINO skipped: {missing}")
    try:
        import onnxruntime  # noqa: F401
    except ImportError as e:
        if not args.no_ort:
            print(f"ONNX Runtime skipped: onnxruntime is not installed ({e}); "
                  "pip install -e '.[bench]'")
    if args.int8 and not args.no_openvino and int8_peers.nncf_missing():
        print(f"NNCF int8 skipped: {int8_peers.nncf_missing()}")
    peak = attainable_gflops(args.iterations)
    print("attainable: " + ", ".join(f"{k} {v:.0f} GFLOP/s" for k, v in peak.items()))
    warmup = warm_up_export()
    print(f"(first torch.export in this process, on a toy model, not counted: {warmup:.2f} s)")
    rows = []
    for name in chosen:
        rows.append(bench_model(name, models[name], args))
        print(f"done {name}", file=sys.stderr, flush=True)
    print(table(rows))
    if args.int8:
        print(int8_table(rows))
    print(isa_line(rows[0]["bf16_cube_paths"] if rows else None))
    print(f"load average at end {os.getloadavg()[0]:.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"load_start": load_start, "load_average": os.getloadavg(), "threads": torch.get_num_threads(),
                       "protocol": protocol, "iterations": args.iterations,
                       "torch": torch.__version__, "onednn_primitives": onednn.version(),
                       "attainable_gflop_per_s": peak,
                       "isa": isa_line(rows[0]["bf16_cube_paths"] if rows else None),
                       "rows": rows}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
