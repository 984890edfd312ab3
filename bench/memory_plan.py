"""Memory plan and streams per model: arena vs lower bound vs naive, device time.

    python bench/memory_plan.py --model tiny_resnet --batch 1,8
    python bench/memory_plan.py --model all --check      # exit 1 if arena > 1.05 x bound
                                                         # or a plan does not verify

Models come from the zoo registry `test.models.ZOO` when this branch has it,
plus the small test models below. A requested model that is missing is
skipped with a message, not an error. For each model and batch size it
prints, for one stream (memory-reuse alone, every strategy) and for
streams + reuse (task-parallel,memory-reuse): the planned arena, the lower
bound the pass reports, the naive total, the simulated device time, and
whether the plan verifies (ge_dialect/plan_verifier.py: arena, events,
cross-stream uses, no overlap of buffers live at once); it runs the auto and
streams+auto plans and compares them with eager PyTorch.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402

from ge_dialect import ascend  # noqa: E402
from ge_dialect.plan_verifier import check_module, summary  # noqa: E402
from npu_graph.compiler import import_model, lower, optimize, run_pipeline  # noqa: E402
from runtime.executor import Executable  # noqa: E402
from test.models import article, branchy, resnet_block, tiny_resnet  # noqa: E402

LOCAL = {"article": article.make, "resnet_block": resnet_block.make,
         "tiny_resnet": tiny_resnet.make, "inception": branchy.make,
         "two_towers": branchy.make_two_towers, "split_heads": branchy.make_split_heads}
BACKENDS = {"best-fit": "memory-reuse{strategy=best-fit}",
            "size-class": "memory-reuse{strategy=size-class}",
            "auto": "memory-reuse",
            "streams+auto": "task-parallel,memory-reuse"}
BOUND = 1.05
MB = 1e6  # decimal MB, as the reference figures it is compared with


def _maker(entry):
    """A zoo entry as a make() function: a callable, or a module or object with make."""
    return entry.make if hasattr(entry, "make") else entry if callable(entry) else None


def registry() -> dict:
    models = dict(LOCAL)
    try:
        from test.models import ZOO
    except ImportError:
        return models
    for name, entry in ZOO.items():
        if _maker(entry) is not None:
            models[name] = _maker(entry)
    return models


def matching(keyword: str) -> list[str]:
    """Registry names containing `keyword` (case, '-' and '_' ignored)."""
    def norm(text: str) -> str:
        return text.lower().replace("-", "").replace("_", "")

    return [name for name in registry() if norm(keyword) in norm(name)]


def at_batch(inputs: tuple, batch: int) -> tuple:
    """The inputs at another batch size: every tensor with the first input's
    leading dimension repeats its first sample."""
    lead = inputs[0].shape[0] if inputs[0].dim() else None
    return tuple(x[:1].repeat(batch, *[1] * (x.dim() - 1))
                 if isinstance(x, torch.Tensor) and x.dim() and x.shape[0] == lead else x
                 for x in inputs)


def figures(module) -> tuple[int, int, int]:
    fn = module.ops.first
    return (ascend.arena_size(fn), fn.attributes["ascend.memory_lower_bound"].value.data,
            fn.attributes["ascend.memory_naive"].value.data)


def bench(name: str, make, batch: int, run: bool, trace: str | None) -> bool:
    """Print one model's table; False if a plan does not verify, misses the bound,
    or a run differs from eager by more than 1e-4."""
    model, inputs = make()
    inputs = at_batch(inputs, batch)
    lowered = lower(optimize(import_model(model, inputs)))
    with torch.no_grad():
        expected = model(*inputs)
    if isinstance(expected, torch.Tensor):
        expected = (expected,)
    ok = True
    print(f"\n{name} batch {batch}: {sum(1 for op in lowered.walk() if op.name == 'ascend.task')}"
          " tasks")
    print(f"  {'plan':<14}{'arena MB':>10}{'bound MB':>10}{'naive MB':>10}{'ratio':>8}"
          f"{'streams':>8}{'device ms':>11}  verify-plan")
    for label, backend in BACKENDS.items():
        module = run_pipeline(lowered.clone(), backend)
        arena, lower_bound, naive = figures(module)
        executable = Executable(module)
        stats = executable.stats
        ratio = arena / lower_bound if lower_bound else 1.0
        problems = check_module(module)
        print(f"  {label:<14}{arena / MB:>10.2f}{lower_bound / MB:>10.2f}{naive / MB:>10.2f}"
              f"{ratio:>8.3f}{stats['num_streams']:>8}{stats['execution_time']:>11.4f}  "
              f"{'verified' if not problems else 'BROKEN: ' + summary(problems)}")
        ok = ok and not problems
        if label in ("auto", "streams+auto"):
            ok = ok and ratio <= BOUND
            if run:
                outs = executable.run(*inputs)
                diff = max((o - e).abs().max().item() for o, e in zip(outs, expected))
                s = executable.stats
                print(f"    run: max |ours - eager| = {diff:.2e}; host {s['host_time']:.1f} ms "
                      f"(outside kernels {s['host_overhead_ms']:.2f} ms); "
                      f"{s['throughput']:.0f} samples/s simulated")
                ok = ok and diff <= 1e-4
                if trace:
                    executable.export_chrome_trace(trace)
    if trace and run:
        print(f"  chrome trace of the last run: {trace}")
    return ok


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="all", help="a model name, comma list, or 'all'")
    parser.add_argument("--batch", default="1", help="batch sizes, e.g. 1,8")
    parser.add_argument("--no-run", action="store_true", help="plan and simulate only")
    parser.add_argument("--check", action="store_true",
                        help=f"exit 1 if a plan does not verify, an arena (auto, streams+auto) "
                             f"exceeds {BOUND} x its lower bound, or a run differs from eager "
                             "by more than 1e-4")
    parser.add_argument("--trace", help="write the last run's Chrome trace here")
    args = parser.parse_args(argv)
    models = registry()
    names = sorted(models) if args.model == "all" else args.model.split(",")
    ok = True
    for name in names:
        if name not in models:
            print(f"skip: no model '{name}' in test.models.ZOO or the local test models on "
                  f"this branch (have: {', '.join(sorted(models))})")
            continue
        for batch in (int(b) for b in args.batch.split(",")):
            ok = bench(name, models[name], batch, not args.no_run, args.trace) and ok
    return 0 if ok or not args.check else 1


if __name__ == "__main__":
    sys.exit(main())
