"""ge-opt's researcher flags: plugins, guard rails, IR dumps, timing, statistics, DOT.

Kept apart from tools/ge_opt.py so the driver stays a thin xDSL subclass; the
work itself lives in passes/driver/plugins.py, passes/driver/instrument.py and
ge_dialect/dot.py.
"""

from __future__ import annotations

import argparse
import sys

PLUGIN_FLAG = "--load-pass-plugin"


def add_toolkit_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        PLUGIN_FLAG, action="append", default=[], metavar="FILE",
        help="load passes and patterns from a Python file (repeatable); "
             "see docs/writing-a-pattern.md")
    parser.add_argument(
        "--no-guard-rails", action="store_true",
        help="turn off the guard rails that are on by default: a pattern that reports a "
             "rewrite without changing the IR, rewriting that does not converge within the "
             "cap, and a planning pass that breaks a correct device plan each stop with exit 2 "
             "(off: faster, but a buggy pattern may loop forever)")
    parser.add_argument(
        "--rewrite-cap", type=int, default=None, metavar="N",
        help="rewrites one pattern-based pass may apply before it counts as not converging "
             "(default: 10 per op + 100)")
    parser.add_argument(
        "--show-traceback", action="store_true",
        help="print the Python traceback of an internal error (exit 2) to stderr")
    parser.add_argument(
        "--verify-each", action="store_true",
        help="verify the IR after each pass, as mlir-opt's flag does; ge-opt always does, "
             "so the flag is accepted and changes nothing")
    parser.add_argument(
        "--print-ir-after-all", action="store_true",
        help="print the IR to stderr after every pass, nested ge-O<n> stages included")
    parser.add_argument(
        "--print-ir-after", action="append", default=[], metavar="PASS",
        help="print the IR to stderr after each run of PASS (repeatable or comma-separated)")
    parser.add_argument(
        "--print-ir-after-change", action="store_true",
        help="print the IR to stderr after each pass that changed it (nested stages included)")
    parser.add_argument(
        "--print-ir-diff", action="store_true",
        help="print a unified diff of the IR to stderr after each pass that changed it")
    parser.add_argument(
        "--timing", action="store_true",
        help="print a table of time per pass to stderr, start-up (imports, parsing) apart")
    parser.add_argument(
        "--pass-statistics", action="store_true",
        help="print the number of rewrites per pattern per pass to stderr")
    parser.add_argument(
        "--emit-dot", metavar="FILE", default=None,
        help="write the resulting module as a Graphviz DOT graph to FILE "
             "(and FILE.svg when `dot` is installed)")


def load_plugins_from_argv(argv) -> None:
    """Load every --load-pass-plugin file named in argv (before the parser exists)."""
    from passes.driver.plugins import load_pass_plugin

    scan = argparse.ArgumentParser(add_help=False)
    scan.add_argument(PLUGIN_FLAG, action="append", default=[])
    scan.error = _usage_error  # one line and exit 1, like ge-opt's own parser
    known, _ = scan.parse_known_args(list(argv))
    for path in known.load_pass_plugin:
        load_pass_plugin(path)


def _usage_error(message: str):
    raise ValueError(message)


def session_options(args: argparse.Namespace, known_passes) -> dict:
    """Options for passes.driver.instrument.session (always one: it also keeps
    source locations on the ops patterns create)."""
    from passes import canonical_name, get_all_passes

    after = [canonical_name(n) for flag in args.print_ir_after for n in flag.split(",") if n]
    guards = not args.no_guard_rails
    if args.rewrite_cap is not None and args.rewrite_cap < 1:
        raise ValueError(f"--rewrite-cap must be at least 1, got {args.rewrite_cap}")
    unknown = [n for n in after if n not in known_passes]
    if unknown:
        raise ValueError(f"--print-ir-after: unknown pass {', '.join(map(repr, unknown))}; "
                         f"GE passes: {', '.join(get_all_passes())}")
    return {"verify_each": guards, "print_after_all": args.print_ir_after_all,
            "print_after": frozenset(after), "max_rewrites": args.rewrite_cap,
            "print_after_change": args.print_ir_after_change,
            "print_diff": args.print_ir_diff}


def report_session(args: argparse.Namespace, s) -> None:
    if args.timing:
        sys.stderr.write(s.timing_table())
    if args.pass_statistics:
        sys.stderr.write(s.statistics_table())


def write_dot(module, path: str) -> None:
    from ge_dialect.dot import render_svg, to_dot

    text = to_dot(module)
    with open(path, "w") as f:
        f.write(text)
    render_svg(path)
