"""`make demo`: the GE article's "ResNet-50 in five steps", on the CPU.

1. load the model (the zoo's ResNet-50, random weights) and parse it to a GE graph
2. optimize: BN folding, fusion, hardware mapping, streams, memory reuse
3. save the optimized graph to a self-contained .npu file
4. load the .npu file into a GraphExecutor (no model code, no torch.export)
5. run it, compare with PyTorch eager, print the stats and a short benchmark

    python examples/demo.py [--model NAME] [--out DIR] [--iterations N]
"""

import argparse
import sys
import time
from pathlib import Path

import torch

from bench.benchmark import interleaved
from npu_graph import GraphExecutor, NpuGraph
from tools.models import zoo_factory


def step(n: int, title: str) -> float:
    print(f"\n=== {n}. {title} " + "=" * max(0, 68 - len(title)))
    return time.perf_counter()


def done(start: float) -> None:
    print(f"    ({time.perf_counter() - start:.1f} s)")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", default="resnet50", help="zoo name (default resnet50)")
    p.add_argument("--out", default="build", help="where the .npu file and trace go")
    p.add_argument("--iterations", type=int, default=3, help="benchmark iterations")
    args = p.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    t = step(1, f"Load {args.model} and parse it into a GE graph")
    model, inputs = zoo_factory(args.model)()
    x = inputs[0]
    graph = NpuGraph(model.eval(), input_spec=(x,))
    nodes = graph.nodes()
    print("\n".join(nodes[:4] + ["..."] + nodes[-2:]))
    print(f"-> {len(nodes)} nodes, {sum(' BatchNorm ' in n for n in nodes)} of them BatchNorm")
    done(t)

    t = step(2, "Optimize (the article's flags, all on)")
    optimized = graph.optimize(enable_op_fusion=True, enable_memory_reuse=True,
                               enable_task_parallel=True, enable_hardware_mapping=True)
    tasks = optimized.nodes()
    print(f"pipeline: {optimized.pipeline}")
    print("\n".join(tasks[:3] + ["..."]))
    print(f"-> {len(tasks)} device tasks, "
          f"{sum('batch_norm' in str(op.name) for op in optimized.module.walk())} batch_norm ops left")
    done(t)

    t = step(3, "Save the optimized graph")
    path = out / f"{args.model}_optimized.npu"
    optimized.save(str(path))
    print(f"saved {path} ({path.stat().st_size / 1e6:.1f} MB)")
    done(t)

    t = step(4, "Load it from the .npu file")
    executor = GraphExecutor()
    executor.load_graph(str(path))
    print(f"loaded {path}: inputs {executor.graph.input_names}")
    done(t)

    t = step(5, "Run, compare with PyTorch eager, stats and a short benchmark")
    output = executor.run(input_data=x)
    with torch.no_grad():
        expected = model(x)
    error = (output - expected).abs().max().item()
    stats = executor.get_stats()
    print(f"output {tuple(output.shape)}; max |npu_graph - eager| = {error:.2e}")
    print(f"simulated Ascend 910: {stats['execution_time']:.3f} ms, "
          f"{stats['throughput']:.0f} images/s, {stats['num_tasks']} tasks on "
          f"{stats['num_streams']} stream(s)")
    print(f"memory: arena {stats['memory_usage']:.1f} MB, lower bound "
          f"{stats['memory_lower_bound']:.1f} MB, without reuse {stats['memory_naive']:.1f} MB")
    with torch.no_grad():
        medians = interleaved({"npu_graph": lambda: executor.run(x), "eager": lambda: model(x)},
                              warmup=1, iterations=args.iterations)
    print(f"host ({args.iterations} interleaved runs, medians): npu_graph "
          f"{medians['npu_graph'] * 1e3:.0f} ms, eager {medians['eager'] * 1e3:.0f} ms "
          f"(a shared machine is noisy; see ge-bench for more runs)")
    trace = executor.export_chrome_trace(str(out / f"{args.model}_trace.json"))
    print(f"Chrome trace of the simulated timeline written to {trace} "
          "(open in https://ui.perfetto.dev)")
    done(t)
    if error > 1e-4:
        print("FAIL: the compiled model does not match PyTorch eager", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
