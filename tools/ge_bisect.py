"""ge-bisect: find the pass, and the rewrite inside it, that broke the numbers.

    ge-bisect --model resnet_block -p ge-O3
    ge-bisect --model my_model.py:make -p 'ge-O2,my-rules' --load-pass-plugin my_rules.py
    ge-bisect --model graph.mlir -p ge-O3 --tol 1e-5 --seed 1

MODEL is a zoo name (test/models), a Python file and a function in it that
returns (model, example_inputs) (a torch.nn.Module, or GE IR as a ModuleOp),
or a .mlir file of GE IR. Inputs are drawn from --seed in the example
inputs' shapes. See npu_graph/bisect.py for the method.

Exit status: 0 no pass moves the outputs past the tolerance; 3 a bad pass was
found (and reported); 1 a user error (unknown model, bad pipeline, plugin
error); 2 an internal error.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from tools.models import load_model

OK, USER_ERROR, INTERNAL_ERROR, FOUND = 0, 1, 2, 3


def parse_args(argv):
    p = argparse.ArgumentParser(prog="ge-bisect", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("--model", required=True,
                   help="zoo name, FILE.py:FUNCTION or FILE.mlir")
    p.add_argument("-p", "--passes", default="ge-O3", help="pipeline (default ge-O3)")
    p.add_argument("--no-lower", action="store_true",
                   help="stop at the pipeline's end; by default a pipeline that stays on GE IR "
                        "is followed by lower-to-ascend and the planning passes, whose IR is "
                        "run on the runtime and checked too")
    p.add_argument("--tol", type=float, default=None,
                   help="bad when max|out - ref| > TOL * max(1, max|ref|) (default by the "
                        "outputs' dtype: 1e-5 for f32, 1e-2 for f16, 5e-2 for bf16)")
    p.add_argument("--seed", type=int, default=0, help="seed of the inputs (default 0)")
    p.add_argument("--load-pass-plugin", action="append", default=[], metavar="FILE",
                   help="load passes from a Python file (repeatable)")
    return p.parse_args(argv)


def reduce_hint(args) -> str | None:
    """The ge-reduce command that shrinks a .mlir model while ge-bisect still finds."""
    if not args.model.endswith(".mlir"):
        return None
    parts = ["ge-bisect", "-p", shlex.quote(args.passes), "--seed", str(args.seed)]
    for plugin in args.load_pass_plugin:
        parts += ["--load-pass-plugin", shlex.quote(str(Path(plugin).resolve()))]
    if args.tol is not None:
        parts += ["--tol", str(args.tol)]
    if args.no_lower:
        parts.append("--no-lower")
    test = " ".join([*parts, "--model"])
    return f"shrink it: ge-reduce {args.model} --test {shlex.quote(test)} --interesting-exit 3"


def report(args, result, pipeline: str) -> int:
    status = _report(args, result, pipeline)
    hint = reduce_hint(args) if status == FOUND else None
    if hint:
        print(hint)
    return status


def _report(args, result, pipeline: str) -> int:
    from passes.driver.plugins import plugin_of

    print(f"ge-bisect: model {args.model}, pipeline '{pipeline}', seed {args.seed}, "
          f"tol {result.tol:g} times the outputs' scale {result.reference_scale:.3g}")
    print("max |out - ref| after each pass (ref: the graph before any pass):")
    for step in result.steps:
        value = f"{step.error:10.3e}" if step.error is not None else f"{'-':>10}"
        mark = "  <- first bad pass" if step.path == result.bad_pass else ""
        print(f"  {value}  {step.path}{step.note and '  (' + step.note + ')' or ''}{mark}")
    if result.bad_pass is None:
        checked = "lowered and planned IR run on the runtime" if result.reached_device else \
            "GE IR only"
        print(f"no pass moves the outputs past the tolerance ({checked})")
        return OK
    plugin = plugin_of(result.bad_pass_name)
    origin = f" (plugin {plugin})" if plugin else ""
    print(f"first bad pass: {result.bad_pass}{origin}")
    print(f"  max abs error {result.error_before:.3e} before it, "
          f"{result.error_after:.3e} after it")
    bad = result.rewrite
    if bad is None:
        if result.rewrites == 0:
            print("first bad rewrite: the pass counts no rewrites (it edits the IR directly "
                  "without asking passes.driver.instrument.may_rewrite); the pass is the "
                  "finding")
        else:
            print(f"first bad rewrite: none of its {result.rewrites} counted rewrites; the "
                  "pass changes the numbers outside them")
        return FOUND
    app = bad.application
    print(f"first bad rewrite: #{app.index} of {bad.of} in {result.bad_pass}, "
          f"pattern {app.pattern}")
    print(f"  on {app.op} at {app.location or 'an unknown source location (none recorded)'}")
    if app.source:
        print(f"  rewritten by {app.source}")
    for line in (app.text or "").splitlines()[:12]:
        print(f"    {line}")
    print(f"  max abs error {bad.error_before:.3e} before it, {bad.error_after:.3e} after it")
    return FOUND


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        from lowering.torch_to_ge import GEImportError
        from npu_graph.bisect import bisect, name_by_input
        from passes.pipelines import through_device
        from passes.driver.instrument import PassVerifyError
        from passes.driver.plugins import load_pass_plugin
        from xdsl.utils.exceptions import DiagnosticException, ParseError

        for path in args.load_pass_plugin:
            load_pass_plugin(path)
        module, inputs = load_model(args.model, args.seed)
        name_by_input(module, args.model if args.model.endswith(".mlir") else None)
        pipeline = args.passes if args.no_lower else through_device(args.passes)
        result = bisect(module, inputs, pipeline, args.tol)
    except PassVerifyError as e:  # a pass's output does not verify: its bug, not the user's
        print(f"ge-bisect: internal error: {' '.join(str(e).split())}", file=sys.stderr)
        return INTERNAL_ERROR
    except (ValueError, OSError, GEImportError, ParseError, DiagnosticException) as e:
        print(f"ge-bisect: error: {' '.join(str(e).split()) or type(e).__name__}",
              file=sys.stderr)
        return USER_ERROR
    except Exception as e:  # noqa: BLE001 - last-resort guard, see module docstring
        print(f"ge-bisect: internal error ({type(e).__name__}: {e})", file=sys.stderr)
        return INTERNAL_ERROR
    return report(args, result, pipeline)


if __name__ == "__main__":
    sys.exit(main())
