"""ge-fuzz: random graphs through your pipeline, checked against the reference evaluator.

    ge-fuzz -p 'ge-O3,my-rules' --load-pass-plugin my_rules.py --examples 100
    ge-fuzz -p my-rules --load-pass-plugin my_rules.py --reduce --out finds/
    ge-fuzz -p my-rules --load-pass-plugin my_rules.py --interesting graph.mlir

Graphs are drawn by the project's generator (test/fuzz/graphs.py) over every
op of its menu (or --ops), each run through the pipeline, lowered and planned,
on the runtime, and compared with the GE reference evaluator on the graph as
drawn (npu_graph/fuzz.py). Each failing graph is written to --out as
`find-N.mlir`, with the problem and the command that re-checks it in its
header; --reduce shrinks it first (npu_graph/reduce.py, as ge-reduce does) to
`find-N.reduced.mlir`.

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
    p.add_argument("--reduce", action="store_true", help="shrink each failing graph too")
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


def fuzz(args) -> int:
    from npu_graph.fuzz import check_module, fuzz
    from npu_graph.reduce import op_count, reduce
    from tools.models import fuzz_graphs

    ops = args.ops.split(",") if args.ops else None
    findings = fuzz(fuzz_graphs(), args.passes, args.examples, args.seed, args.max_nodes,
                    ops, args.tol)
    print(f"ge-fuzz: {args.examples} graphs through '{args.passes}', "
          f"{len(findings)} wrong")
    if not findings:
        return OK
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for n, found in enumerate(findings):
        path = out / f"find-{n}.mlir"
        write(path, found.module, [f"ge-fuzz: {found.problem}",
                                   f"re-check: {recheck_command(args, path)}"])
        print(f"  {path}: {found.problem} ({op_count(found.module)} ops)")
        if args.reduce:
            small = reduce(found.module, lambda m: check_module(
                m, args.passes, args.seed, args.tol) is not None)
            small_path = out / f"find-{n}.reduced.mlir"
            problem = check_module(small, args.passes, args.seed, args.tol)
            write(small_path, small, [f"ge-fuzz: {problem}",
                                      f"re-check: {recheck_command(args, small_path)}"])
            print(f"    reduced to {op_count(small)} ops: {small_path}")
        else:
            print(f"    shrink it: ge-reduce {path} --test "
                  f"{shlex.quote(recheck_command(args, None))}")
    return FOUND


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
