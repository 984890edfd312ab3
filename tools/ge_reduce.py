"""ge-reduce: shrink a .mlir graph while a test command still finds it interesting.

    ge-reduce bad.mlir --test 'ge-fuzz -p my-rules --load-pass-plugin my_rules.py --interesting'
    ge-reduce bad.mlir --test 'ge-bisect -p ge-O3 --model' --interesting-exit 3 -o small.mlir
    ge-reduce bad.mlir --test 'grep -q ge.tanh'

Like mlir-reduce: the test command gets a candidate file's path as its last
argument (or in place of `{}`), and the candidate is interesting when the
command exits with --interesting-exit (default 0). A test that is one of our
tools (ge-bisect, ge-opt, ge-fuzz) runs in this process, so PyTorch and the
passes load once; any other command runs in a shell. The strategies are
mlir-reduce's (npu_graph/reduce.py); the smallest graph is written to -o
(default: INPUT.reduced.mlir).

Exit status: 0 reduced (the reproducer is written); 1 a user error (unreadable
input, the input not interesting to begin with); 2 an internal error.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

OK, USER_ERROR, INTERNAL_ERROR = 0, 1, 2


def parse_args(argv):
    p = argparse.ArgumentParser(prog="ge-reduce", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("input", metavar="FILE.mlir")
    p.add_argument("--test", required=True, metavar="COMMAND",
                   help="the interestingness test, run with the candidate's path appended "
                        "(or substituted for {})")
    p.add_argument("--interesting-exit", type=int, default=0, metavar="N",
                   help="the test's exit status that means interesting (default 0)")
    p.add_argument("-o", "--output", help="where to write the result "
                                          "(default: INPUT.reduced.mlir)")
    p.add_argument("--timeout", type=float, default=120.0,
                   help="seconds one test may take; longer is not interesting (default 120)")
    return p.parse_args(argv)


# Our own tools run in this process (modules loaded once); anything else in a shell.
IN_PROCESS = {"ge-bisect": "tools.ge_bisect", "ge-opt": "tools.ge_opt",
              "ge-fuzz": "tools.ge_fuzz"}


def in_process_test(command: str, interesting_exit: int, workdir: Path):
    """is_interesting(module) calling our tool's main() here, or None when the
    command is not one of ours (or uses the shell: pipes, redirections, ...)."""
    import importlib

    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if not words or words[0] not in IN_PROCESS or any(
            w in ("|", "||", "&&", ";", ">", "<", "2>", "&") for w in words):
        return None
    tool = importlib.import_module(IN_PROCESS[words[0]])
    candidate = workdir / "candidate.mlir"

    def is_interesting(module) -> bool:
        candidate.write_text(str(module) + "\n")
        argv = [str(candidate) if w == "{}" else w for w in words[1:]]
        if "{}" not in words:
            argv.append(str(candidate))
        sink = io.StringIO()
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            try:
                status = tool.main(argv)
            except SystemExit as e:
                status = e.code if isinstance(e.code, int) else 1
        return status == interesting_exit

    return is_interesting


def shell_test(command: str, interesting_exit: int, timeout: float, workdir: Path):
    """is_interesting(module) for reduce(): write the candidate, run the command on it."""
    candidate = workdir / "candidate.mlir"

    def is_interesting(module) -> bool:
        candidate.write_text(str(module) + "\n")
        path = shlex.quote(str(candidate))
        line = command.replace("{}", path) if "{}" in command else f"{command} {path}"
        try:
            r = subprocess.run(line, shell=True, capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return False
        return r.returncode == interesting_exit

    return is_interesting


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        from xdsl.parser import Parser
        from xdsl.utils.exceptions import ParseError

        from ge_dialect import make_context
        from npu_graph.reduce import op_count, reduce

        try:
            module = Parser(make_context(), Path(args.input).read_text(),
                            name=args.input).parse_module()
            module.verify()
        except (OSError, ParseError, ValueError) as e:
            print(f"ge-reduce: error: {' '.join(str(e).split())}", file=sys.stderr)
            return USER_ERROR
        before = op_count(module)
        with tempfile.TemporaryDirectory(prefix="ge-reduce-") as tmp:
            test = (in_process_test(args.test, args.interesting_exit, Path(tmp))
                    or shell_test(args.test, args.interesting_exit, args.timeout, Path(tmp)))
            try:
                smaller = reduce(module, test, log=lambda m: print(f"ge-reduce: {m}",
                                                                     file=sys.stderr))
            except ValueError as e:
                print(f"ge-reduce: error: {e}", file=sys.stderr)
                return USER_ERROR
        out = Path(args.output or Path(args.input).with_suffix(".reduced.mlir"))
        out.write_text(str(smaller) + "\n")
        print(f"ge-reduce: {before} ops -> {op_count(smaller)} ops, written to {out}")
        return OK
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # noqa: BLE001 - last-resort guard, see module docstring
        print(f"ge-reduce: internal error ({type(e).__name__}: {e})", file=sys.stderr)
        return INTERNAL_ERROR


if __name__ == "__main__":
    sys.exit(main())
