"""ge-opt: the GE pass driver, xDSL's opt main with our dialects and passes.

User errors (bad IR, unknown passes, bad options, unreadable files) print one
diagnostic line and exit 1. Anything else is a compiler bug: exit 2.
"""

import argparse
import dataclasses
import os
import sys

from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from passes import get_all_passes, instrument
from passes.pipelines import ARTICLE_NAMES, article_alias
from tools.toolkit_flags import (
    add_toolkit_arguments,
    load_plugins_from_argv,
    report_session,
    session_options,
    write_dot,
)

USER_ERROR, INTERNAL_ERROR = 1, 2


class UsageError(Exception):
    """A bad command line; argparse would print its usage block and exit 2."""


def _raise_usage_error(message: str):
    raise UsageError(message)


class GeOptMain(xDSLOptMain):
    version_format = "ge-opt (xdsl {xdsl_version})"

    def __init__(self, description: str = "", args=None):
        # xDSL builds the pass registry and parses the pipeline inside __init__,
        # so plugin passes must be registered before it runs.
        load_plugins_from_argv(sys.argv[1:] if args is None else args)
        super().__init__(description, args)

    def register_all_dialects(self):
        super().register_all_dialects()
        from ge_dialect.ascend import Ascend
        from ge_dialect.ge import GE

        for dialect in (GE, Ascend):
            if dialect.name not in self.ctx.registered_dialect_names:
                self.ctx.register_dialect(dialect.name, lambda d=dialect: d)

    def register_all_passes(self):
        super().register_all_passes()
        registry = get_all_passes()
        for name, factory in registry.items():
            self.register_pass(name, factory)
        for alias, name in ARTICLE_NAMES.items():
            if name in registry:
                self.register_pass(
                    alias, lambda f=registry[name], a=alias: article_alias(f(), a))

    def register_all_arguments(self, arg_parser):
        super().register_all_arguments(arg_parser)
        arg_parser.error = _raise_usage_error
        arg_parser.formatter_class = argparse.RawDescriptionHelpFormatter
        arg_parser.epilog = _pass_table()
        arg_parser.add_argument(
            "--elide-elementsattrs-if-larger", type=int, metavar="N", default=None,
            help="print dense constants with more than N elements as "
                 "dense_resource<__elided__> (for reading; the output loses the data)")
        arg_parser.add_argument(
            "--fusion-report", metavar="FILE", default=None,
            help="write op-fusion's JSON report (per rule: matched, applied, rejected "
                 "with reasons) to FILE")
        arg_parser.add_argument(
            "--memory-report", action="store_true",
            help="after the passes, print each planned function's arena, its lower bound "
                 "(peak live bytes) and the naive total (no reuse) to stderr")
        add_toolkit_arguments(arg_parser)

    def setup_pipeline(self):
        super().setup_pipeline()
        path = self.args.fusion_report
        if path is not None:
            # Every op-fusion run, alone or inside a ge-O<n> level, writes the report.
            self.pipeline = dataclasses.replace(self.pipeline, passes=tuple(
                _with_report(p, path) for p in self.pipeline.passes))
        self.pipeline = dataclasses.replace(
            self.pipeline, callback=instrument.pipeline_callback(self.pipeline.callback))
        self.toolkit_session = session_options(self.args, self.available_passes)

    def apply_passes(self, prog):
        options = self.toolkit_session
        if options is None:
            super().apply_passes(prog)
        else:
            with instrument.session(**options, format_ir=self._format_ir) as s:
                super().apply_passes(prog)
            report_session(self.args, s)
        if self.args.emit_dot is not None:
            write_dot(prog, self.args.emit_dot)

    def _format_ir(self, module) -> str:
        from ge_dialect.printing import format_ir

        limit = self.args.elide_elementsattrs_if_larger
        return format_ir(module, limit) if limit is not None else str(module)

    def output_resulting_program(self, prog):
        if self.args.memory_report:
            from passes.memory_reuse import memory_report

            print(memory_report(prog) or "memory-report: no function has a memory plan "
                  "(run memory-reuse)", file=sys.stderr)
        limit = self.args.elide_elementsattrs_if_larger
        if limit is None:
            return super().output_resulting_program(prog)
        from ge_dialect.printing import format_ir

        return format_ir(prog, limit) + "\n"


def _with_report(p, path: str):
    from passes.op_fusion import OpFusionPass
    from passes.pipelines import OptLevelPass

    if isinstance(p, OpFusionPass):
        return dataclasses.replace(p, report=path)
    if isinstance(p, OptLevelPass):
        return dataclasses.replace(p, fusion_report=path)
    return p


def _describe() -> str:
    return ("GE graph optimizer: runs pass pipelines (-p a,b{opt=v}) over GE and "
            "Ascend IR. Every xDSL pass (canonicalize, cse, ...) is available too.")


def _pass_table() -> str:
    rows = []
    for name, factory in get_all_passes().items():
        doc = (factory().__doc__ or "").strip().splitlines()
        rows.append(f"  {name:<20} {doc[0] if doc else ''}")
    return "GE passes:\n" + "\n".join(rows)


def _one_line(e: BaseException) -> str:
    if isinstance(e, ParseError):
        return f"{e.span.get_location()}: error: {e.msg}"
    text = str(e).strip()
    if isinstance(e, ArgSpecParseError):
        return "error: invalid pass pipeline: " + " ".join(text.split())
    # Verifier messages put the reason on the lines after the headline.
    lines = [line.strip() for line in text.splitlines() if line.strip()][:3]
    return "error: " + (" ".join(lines) if lines else type(e).__name__)


def main(argv=None) -> int:
    try:
        GeOptMain(description=_describe(), args=argv).run()
    except (ParseError, DiagnosticException, ArgSpecParseError, UsageError) as e:
        print(f"ge-opt: {_one_line(e)}", file=sys.stderr)
        return USER_ERROR
    except (ValueError, OSError) as e:
        # Unknown passes, bad pass options and unreadable files surface as these.
        print(f"ge-opt: {_one_line(e)}", file=sys.stderr)
        return USER_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader (`ge-opt ... | head`) has gone; that is not an error.
        sys.stdout = open(os.devnull, "w")
        return 0
    except Exception as e:  # noqa: BLE001 - last-resort guard, see module docstring
        print(f"ge-opt: internal compiler error ({type(e).__name__}: {e}); "
              "please report it with the input file", file=sys.stderr)
        return INTERNAL_ERROR
    return 0


if __name__ == "__main__":
    sys.exit(main())
