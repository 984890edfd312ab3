"""ge-fuzz: random graphs through your pipeline, checked against the reference evaluator.

    ge-fuzz -p 'ge-O2,my-rules' --load-pass-plugin my_rules.py --examples 100
    ge-fuzz -p my-rules --load-pass-plugin my_rules.py --no-reduce --out finds/
    ge-fuzz -p my-rules --load-pass-plugin my_rules.py --interesting graph.mlir

Graphs are drawn by the project's generator (test/fuzz/graphs.py) over its
menu (or --ops), aimed at the passes under test (npu_graph/fuzz_aim.py: the
plugins' passes and table rules, else every pass of -p, or --aim's): most
draws are the ops and op chains their patterns match, and the coverage, how
many graphs made each pattern fire, is printed. Each graph runs through the
pipeline, lowered and planned, on the runtime, and is compared with the GE
reference evaluator on the graph as drawn (npu_graph/fuzz.py). Each failing
graph is written to --out as `find-N.mlir`, with the problem and the command
that re-checks it in its header; the first three are shrunk
(npu_graph/reduce.py, as ge-reduce does) to `find-N.reduced.mlir`, whose
header also names the rewrite that breaks it (npu_graph/bisect.py).

--interesting FILE checks one .mlir file instead: exit 0 if the pipeline is
still wrong on it, 1 if not, which is what ge-reduce's --test wants.

Exit status: 0 no failure; 3 failures found (and written); 1 a user error
(bad pipeline, plugin error); 2 an internal error.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

OK, USER_ERROR, INTERNAL_ERROR, FOUND = 0, 1, 2, 3


def parse_args(argv):
    p = argparse.ArgumentParser(prog="ge-fuzz", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("-p", "--passes", default="ge-O3", help="pipeline (default ge-O3)")
    p.add_argument("--load-pass-plugin", action="append", default=[], metavar="FILE",
                   help="load passes from a Python file (repeatable)")
    p.add_argument("--examples", type=int, default=50, help="graphs to draw (default 50)")
    p.add_argument("--seed", type=int, default=0, help="seed of graphs and inputs (default 0)")
    p.add_argument("--max-nodes", type=int, default=8, help="ops per graph at most (default 8)")
    p.add_argument("--ops", help="comma-separated menu entries to draw from (default: all)")
    p.add_argument("--tol", type=float, default=None,
                   help="relative tolerance (default by dtype: 1e-5 for f32)")
    p.add_argument("--out", default="ge-fuzz-finds", help="folder for failing graphs")
    p.add_argument("--reduce", action=argparse.BooleanOptionalAction, default=True,
                   help=f"shrink the first {REDUCE_FIRST} failing graphs and name the rewrite "
                        "that breaks each (default: on)")
    p.add_argument("--aim", metavar="PASSES",
                   help="comma-separated passes of -p whose patterns the graphs aim at "
                        "(default: the plugins' passes and rules, else every pass of -p; "
                        "'none': the whole menu evenly)")
    p.add_argument("--interesting", metavar="FILE.mlir",
                   help="check this file only: exit 0 if the pipeline is wrong on it")
    return p.parse_args(argv)


def recheck_command(args, path: Path | None) -> str:
    """The ge-fuzz command that checks `path` again (None: the path left off the
    end, for ge-reduce, which appends each candidate's path)."""
    parts = ["ge-fuzz", "-p", shlex.quote(args.passes), "--seed", str(args.seed)]
    for plugin in args.load_pass_plugin:
        parts += ["--load-pass-plugin", shlex.quote(str(Path(plugin).resolve()))]
    if args.tol is not None:
        parts += ["--tol", str(args.tol)]
    parts.append("--interesting")
    if path is not None:
        parts.append(str(path))
    return " ".join(parts)


def interesting(args) -> int:
    from xdsl.parser import Parser

    from ge_dialect import make_context
    from npu_graph.fuzz import check_module

    module = Parser(make_context(), Path(args.interesting).read_text(),
                    name=args.interesting).parse_module()
    module.verify()
    problem = check_module(module, args.passes, args.seed, args.tol)
    print(f"ge-fuzz: {problem}" if problem else "ge-fuzz: the pipeline is right on it")
    return OK if problem else USER_ERROR


def write(path: Path, module, lines: list[str]) -> None:
    header = "".join(f"// {line}\n" for line in lines)
    path.write_text(header + str(module) + "\n")


# Finds beyond the first few are written but not reduced (each reduction
# re-checks the graph dozens of times); their ge-reduce command is printed.
REDUCE_FIRST = 3


def fuzz(args) -> int:
    from npu_graph.fuzz import fuzz
    from npu_graph.reduce import op_count
    from tools.models import fuzz_graphs

    ops = args.ops.split(",") if args.ops else None
    result = fuzz(fuzz_graphs(), args.passes, args.examples, args.seed, args.max_nodes,
                  ops, args.tol, aim_of(args))
    print(aim_line(result))
    print(f"ge-fuzz: {result.graphs} graphs through '{args.passes}', "
          f"{len(result.findings)} wrong")
    print(coverage_report(result), end="")
    if not result.findings:
        return OK
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    shown = REDUCE_FIRST if args.reduce else len(result.findings)
    for n, found in enumerate(result.findings):
        path = out / f"find-{n}.mlir"
        write(path, found.module, [f"ge-fuzz: {found.problem}",
                                   f"re-check: {recheck_command(args, path)}"])
        if n >= shown:
            continue
        print(f"  {path}: {found.problem} ({op_count(found.module)} ops)")
        if args.reduce:
            reduce_and_blame(args, found, out / f"find-{n}.reduced.mlir")
        else:
            print(f"    shrink it: ge-reduce {path} --test "
                  f"{shlex.quote(recheck_command(args, None))}")
    if len(result.findings) > shown:
        print(f"  {len(result.findings) - shown} more: {out / f'find-{shown}.mlir'} .. "
              f"{out / f'find-{len(result.findings) - 1}.mlir'} (shrink one: ge-reduce FILE "
              f"--test {shlex.quote(recheck_command(args, None))})")
    return FOUND


def aim_of(args) -> list[str] | None:
    if args.aim is None:
        return None
    return [] if args.aim == "none" else [a for a in args.aim.split(",") if a]


def aim_line(result) -> str:
    found = result.targets
    if not result.aimed:
        return "ge-fuzz: not aimed: graphs drawn from the whole menu"
    ops = sorted({op.removeprefix("ge.") for t in found for op in t.ops})
    passes = ", ".join(dict.fromkeys(t.pass_name for t in found))
    shown = ", ".join(ops[:12]) + (f" and {len(ops) - 12} more" if len(ops) > 12 else "")
    return f"ge-fuzz: aimed at {len(found)} pattern(s) of {passes}: mostly {shown}"


def coverage_report(result) -> str:
    """How many graphs made each aimed pattern fire; the ones that never did."""
    if not result.targets:
        return ""
    lines = [f"ge-fuzz: coverage: the patterns under test fired on {result.fired} of "
             f"{result.graphs} graphs"]
    for t, graphs in result.coverage.most_common():
        lines.append(f"  {graphs:5d} graphs {result.rewrites[t]:6d} rewrites  "
                     f"{t.pass_name}: {t.name}")
    never = [f"{t.pass_name}: {t.name}" for t in dict.fromkeys(result.targets)
             if not result.coverage[t]]
    if never:
        lines.append(f"  never fired ({len(never)}): " + "; ".join(never))
    return "\n".join(lines) + "\n"


def reduce_and_blame(args, found, small_path: Path) -> None:
    """Shrink the find (npu_graph/reduce.py), write it, and name the rewrite
    that breaks it (npu_graph/bisect.py on the reduced graph)."""
    from npu_graph.fuzz import check_module
    from npu_graph.reduce import op_count, reduce

    small = reduce(found.module, lambda m: check_module(
        m, args.passes, args.seed, args.tol) is not None)
    problem = check_module(small, args.passes, args.seed, args.tol)
    blame = rewrite_that_broke(args, small, problem)
    write(small_path, small, [f"ge-fuzz: {problem}",
                              f"re-check: {recheck_command(args, small_path)}",
                              *([f"broken by: {blame}"] if blame else [])])
    print(f"    reduced to {op_count(small)} ops: {small_path}")
    if blame:
        print(f"    broken by: {blame}")


def rewrite_that_broke(args, module, problem: str | None) -> str | None:
    """ge-bisect's finding on `module`: the pass and the rewrite after which the
    numbers are off. None when there is none to name (an internal error names
    its pattern itself)."""
    from npu_graph.bisect import bisect
    from npu_graph.fuzz import inputs_for
    from passes.pipelines import through_device

    if problem is None or problem.startswith("internal error"):
        return None
    try:
        found = bisect(module, inputs_for(module, args.seed), through_device(args.passes),
                       args.tol)
    except Exception as e:  # noqa: BLE001 - the find stands without its blame
        return f"(not bisected: {type(e).__name__}: {' '.join(str(e).split())[:200]})"
    if found.bad_pass is None:
        return None
    if found.rewrite is None:
        return f"pass '{found.bad_pass}' (not one pattern rewrite of its {found.rewrites})"
    app = found.rewrite.application
    where = f" ({app.source})" if app.source else ""
    return (f"pass '{found.bad_pass}', rewrite {app.index} of {found.rewrite.of}: "
            f"{app.pattern} on {app.op}{where}")


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        from lowering.torch_to_ge import GEImportError
        from passes.driver.plugins import load_pass_plugin
        from passes.pipelines import through_device
        from xdsl.utils.exceptions import ParseError

        for path in args.load_pass_plugin:
            load_pass_plugin(path)
        through_device(args.passes)  # a bad pipeline is a user error before anything runs
        if aim_of(args):
            from npu_graph.fuzz_aim import targets

            targets(args.passes, aim_of(args))  # so is an --aim naming no pass of it
        if args.examples < 1:
            raise ValueError(f"--examples must be at least 1, got {args.examples}")
    except (ValueError, OSError, ParseError) as e:
        print(f"ge-fuzz: error: {' '.join(str(e).split())}", file=sys.stderr)
        return USER_ERROR
    try:
        return interesting(args) if args.interesting else fuzz(args)
    except (ValueError, OSError, ParseError, GEImportError) as e:
        print(f"ge-fuzz: error: {' '.join(str(e).split())}", file=sys.stderr)
        return USER_ERROR
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # noqa: BLE001 - last-resort guard, see module docstring
        print(f"ge-fuzz: internal error ({type(e).__name__}: {e})", file=sys.stderr)
        return INTERNAL_ERROR


if __name__ == "__main__":
    sys.exit(main())
