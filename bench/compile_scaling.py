"""Compile time per stage, on synthetic graphs of growing size and on ResNet-50.

    python bench/compile_scaling.py                       # chain, residual, branches at 1k, 10k
    python bench/compile_scaling.py --sizes 1000,10000,100000 --json out.json
    python bench/compile_scaling.py --shapes residual --sizes 10000 --profile prof.out
    python bench/compile_scaling.py --resnet50            # ResNet-50 only (zoo model)
    python bench/compile_scaling.py --resnet50 --repeat 3 # ... median of 3 runs
    python bench/compile_scaling.py --smoke               # tiny sizes, seconds (pytest)

Stages, each timed alone on one module: build (synthetic graphs) or export +
import (ResNet-50), print, parse, every pass of ge-O3, lower-to-ascend,
task-parallel, memory-reuse, and loading the Executable. Passes run as
`npu_graph.compiler` runs them: one instrumentation session with the
verify-each guard rails on, the module verified after every pass; the
`verify` column is that verification, the pass column the rest. The pipeline
runs on the parsed module, so a printer/parser mismatch shows up.

For every shape measured at two sizes, it prints the growth ratio of each
stage and of the total from the smaller to the larger; the project's target
is at most 12 from 10k to 100k ops (10x the ops).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from xdsl.parser import Parser  # noqa: E402
from xdsl.passes import PassPipeline  # noqa: E402
from xdsl.printer import Printer  # noqa: E402

from bench import synthetic  # noqa: E402
from ge_dialect import make_context  # noqa: E402
from ge_dialect.verifier import verify  # noqa: E402
from passes import get_all_passes
from passes.driver import instrument  # noqa: E402
from passes.driver.gc_tuning import fewer_collections  # noqa: E402
from passes.pipelines import LEVELS  # noqa: E402
from runtime.executor import Executable  # noqa: E402

PASSES = (*LEVELS["ge-O3"], "lower-to-ascend", "task-parallel", "memory-reuse")
TARGET_GROWTH = 12.0


def run_passes(module, names=PASSES) -> list[tuple[str, float, float]]:
    """(pass, seconds in the pass, seconds verifying after it) for each pass."""
    registry = get_all_passes()
    passes = [registry[name]()() for name in names]
    inner = instrument.pipeline_callback()
    times: list[tuple[str, float, float]] = []
    mark = [0.0]

    def callback(prev, module, nxt):
        entered = time.perf_counter()
        inner(prev, module, nxt)
        left = time.perf_counter()
        if prev is not None:
            times.append((prev.name, entered - mark[0], left - entered))
        mark[0] = left

    with instrument.session(verify_each=True):
        PassPipeline(tuple(passes), callback=callback).apply(make_context(), module)
    return times


def timed(stages: list, name: str, fn, *args):
    start = time.perf_counter()
    result = fn(*args)
    stages.append({"stage": name, "seconds": time.perf_counter() - start, "verify": 0.0})
    return result


def print_module(module) -> str:
    out = io.StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue()


def parse_module(text: str):
    return Parser(make_context(), text).parse_module()


def compile_stages(module, stages: list) -> None:
    """Print, parse, every pass (with its verification), load: appended to `stages`."""
    text = timed(stages, "print", print_module, module)
    module = timed(stages, "parse", parse_module, text)
    del text
    for name, seconds, verifying in run_passes(module):
        stages.append({"stage": name, "seconds": seconds, "verify": verifying})
    timed(stages, "load", Executable, module)


def measure_synthetic(shape: str, size: int) -> dict:
    gc.collect()
    stages: list = []
    with fewer_collections():  # as npu_graph.compiler and ge-opt run
        module = timed(stages, "build", synthetic.build, shape, size)
        ops = synthetic.count_ops(module)
        compile_stages(module, stages)
    return {"case": f"{shape}-{size}", "shape": shape, "size": size, "ops": ops,
            "stages": stages, "total": sum(s["seconds"] + s["verify"] for s in stages)}


def measure_resnet50() -> dict:
    import torch

    from lowering.torch_to_ge import export, import_exported
    from test.models import ZOO

    # The first torch.export in a process loads dynamo, sympy and friends: a
    # one-off cost of the process, not of compiling this model. Pay it on a toy.
    toy = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4),
                              torch.nn.ReLU()).eval()
    start = time.perf_counter()
    export(toy, (torch.randn(1, 3, 8, 8),))
    warmup = time.perf_counter() - start
    model, inputs = ZOO["resnet50"]()
    model.eval()
    gc.collect()
    stages: list = []
    with fewer_collections():
        ep = timed(stages, "export", export, model, inputs)
        module = timed(stages, "import", import_exported, ep)
        timed(stages, "verify-import", verify, module)
        ops = synthetic.count_ops(module)
        for name, seconds, verifying in run_passes(module):
            stages.append({"stage": name, "seconds": seconds, "verify": verifying})
        timed(stages, "load", Executable, module)
    total = sum(s["seconds"] + s["verify"] for s in stages)
    return {"case": "resnet50", "shape": "resnet50", "size": ops, "ops": ops,
            "stages": stages, "total": total, "first_export_in_process": warmup}


def median_run(runs: list[dict]) -> dict:
    """Per stage, the median over `runs` (same stages in each); total of the medians."""
    if len(runs) == 1:
        return runs[0]
    result = dict(runs[0], runs=len(runs), stages=[])
    for k, first in enumerate(runs[0]["stages"]):
        result["stages"].append({"stage": first["stage"],
                                 **{key: statistics.median(r["stages"][k][key] for r in runs)
                                    for key in ("seconds", "verify")}})
    result["total"] = sum(s["seconds"] + s["verify"] for s in result["stages"])
    result["totals"] = [r["total"] for r in runs]
    return result


def table(result: dict) -> str:
    lines = [f"{result['case']}: {result['ops']} GE ops, total {result['total']:.3f} s",
             f"  {'stage':<16} {'seconds':>9} {'verify':>8}"]
    for s in result["stages"]:
        lines.append(f"  {s['stage']:<16} {s['seconds']:9.3f} {s['verify']:8.3f}")
    return "\n".join(lines)


def growth(small: dict, large: dict) -> list[dict]:
    """Per stage (pass time + its verification) and total: large / small."""
    rows = []
    for a, b in zip(small["stages"], large["stages"]):
        ta, tb = a["seconds"] + a["verify"], b["seconds"] + b["verify"]
        rows.append({"stage": a["stage"], "small": ta, "large": tb,
                     "ratio": tb / ta if ta > 0 else float("inf")})
    rows.append({"stage": "total", "small": small["total"], "large": large["total"],
                 "ratio": large["total"] / small["total"]})
    return rows


def growth_table(shape: str, small: dict, large: dict, rows: list[dict]) -> str:
    lines = [f"{shape}: growth {small['ops']} -> {large['ops']} ops "
             f"({large['ops'] / small['ops']:.1f}x the ops)",
             f"  {'stage':<16} {'small s':>9} {'large s':>9} {'ratio':>7}"]
    for r in rows:
        lines.append(f"  {r['stage']:<16} {r['small']:9.3f} {r['large']:9.3f} {r['ratio']:7.1f}")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", default=",".join(synthetic.SHAPES))
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--resnet50", action="store_true", help="measure the zoo's ResNet-50 only")
    ap.add_argument("--repeat", type=int, default=1,
                    help="with --resnet50: runs, reporting the median of each stage")
    ap.add_argument("--smoke", action="store_true", help="tiny sizes (60, 200), for the tests")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--profile", help="write cProfile stats of the whole run here")
    args = ap.parse_args(argv)
    sizes = [60, 200] if args.smoke else [int(s) for s in args.sizes.split(",")]
    shapes = args.shapes.split(",")
    for shape in shapes:
        if shape not in synthetic.SHAPES:
            ap.error(f"unknown shape '{shape}'; known: {', '.join(synthetic.SHAPES)}")

    profiler = cProfile.Profile() if args.profile else None
    if profiler:
        profiler.enable()
    load = os.getloadavg()
    print(f"load average at start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} "
          f"({os.cpu_count()} CPUs)")
    results, growths = [], {}
    if args.resnet50:
        runs = [measure_resnet50() for _ in range(args.repeat)]
        results.append(median_run(runs))
        print(f"(first torch.export in this process, on a toy model, not counted: "
              f"{results[-1]['first_export_in_process']:.3f} s)")
        print(table(results[-1]))
    else:
        for shape in shapes:
            runs = []
            for size in sizes:
                runs.append(measure_synthetic(shape, size))
                print(table(runs[-1]), flush=True)
            results += runs
            if len(runs) >= 2:
                rows = growth(runs[-2], runs[-1])
                growths[shape] = rows
                print(growth_table(shape, runs[-2], runs[-1], rows), flush=True)
    end = os.getloadavg()
    print(f"load average at end: {end[0]:.2f} {end[1]:.2f} {end[2]:.2f}")
    if profiler:
        profiler.disable()
        profiler.dump_stats(args.profile)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"load_start": load, "load_end": end, "results": results,
                       "growth": growths}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
