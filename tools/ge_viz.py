"""ge-viz: draw GE or Ascend IR as a Graphviz DOT (or Mermaid) graph.

    ge-viz graph.mlir -o graph.dot                 # IR from a file (or stdin)
    ge-viz --model resnet_block -p ge-O3 -o block.dot --svg
    ge-opt graph.mlir -p ge-O3 | ge-viz --format mermaid

Fused groups are clusters, Ascend tasks are coloured by unit and grouped by
stream, events are dashed edges (see ge_dialect/dot.py). `--svg` also runs
Graphviz's `dot` when it is installed. Exit status 1 for user errors.
"""

from __future__ import annotations

import argparse
import sys


def parse_args(argv):
    p = argparse.ArgumentParser(prog="ge-viz", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("input", nargs="?", help="an .mlir file (default: stdin)")
    p.add_argument("--model", help="a zoo name or FILE.py:FUNCTION instead of IR")
    p.add_argument("-p", "--passes", default="", help="pipeline to run first")
    p.add_argument("--load-pass-plugin", action="append", default=[], metavar="FILE")
    p.add_argument("-o", "--output", help="output file (default: stdout)")
    p.add_argument("--format", choices=("dot", "mermaid"), default="dot")
    p.add_argument("--weights", action="store_true", help="draw weight constants too")
    p.add_argument("--svg", action="store_true", help="also write OUTPUT.svg with `dot`")
    return p.parse_args(argv)


def read_module(args):
    from xdsl.parser import Parser

    from ge_dialect import make_context
    from tools.models import load_model

    if args.model:
        return load_model(args.model, 0)[0]
    text = open(args.input).read() if args.input else sys.stdin.read()
    module = Parser(make_context(), text, name=args.input or "<stdin>").parse_module()
    module.verify()
    return module


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        from lowering.torch_to_ge import GEImportError
        from xdsl.utils.exceptions import DiagnosticException, ParseError

        from ge_dialect.dot import render_svg, to_dot, to_mermaid
        from npu_graph.compiler import run_pipeline

        module = read_module(args)
        if args.passes:
            run_pipeline(module, args.passes, plugins=args.load_pass_plugin)
        text = (to_dot if args.format == "dot" else to_mermaid)(module, args.weights)
        if args.output is None:
            sys.stdout.write(text)
        else:
            with open(args.output, "w") as f:
                f.write(text)
            if args.svg and args.format == "dot" and render_svg(args.output) is None:
                print("ge-viz: note: Graphviz `dot` is not installed; wrote DOT only",
                      file=sys.stderr)
    except (ValueError, OSError, GEImportError, ParseError, DiagnosticException) as e:
        print(f"ge-viz: error: {' '.join(str(e).split()[:60])}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
