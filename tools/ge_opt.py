"""ge-opt: the GE pass driver, xDSL's opt main with our dialects and passes.

User errors (bad IR, unknown passes, bad options, unreadable files, a pass
refusing its input with a diagnostic) print one diagnostic line and exit 1.
Anything else is a compiler bug (an exception in a pass, a pass whose output
does not verify, a crash while parsing or printing): ge-opt says so, names
the pass that was running, writes a reproducer (the input as received under
a `// ge-opt reproducer: -p '<pipeline>'` header, as MLIR's crash reproducers
do) under the user's cache dir (see crash_dir), and exits 2.
"""

import time

STARTED = time.perf_counter()  # first thing: --timing reports start-up apart from passes

import argparse  # noqa: E402 - after the start-up clock
import contextlib
import dataclasses
import hashlib
import os
import re
import sys
import tempfile
import threading
import traceback
from pathlib import Path
from io import BytesIO

from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from ge_dialect.diagnostics import (
    Diagnostic, LocatingParser, SourceMap, locate, message_of, span_position)
from ge_dialect.verifier import check_dominance
from passes import ARTICLE_NAMES, get_all_passes
from passes.driver import instrument
from passes.driver.gc_tuning import fewer_collections
from passes.pipelines import article_alias
from tools.toolkit_flags import (
    add_toolkit_arguments,
    load_plugins_from_argv,
    report_session,
    session_options,
    write_dot,
)
from tools import mlir_spellings, verify_diagnostics

USER_ERROR, INTERNAL_ERROR = 1, 2


class UsageError(Exception):
    """A bad command line; argparse would print its usage block and exit 2."""


def _raise_usage_error(message: str):
    raise UsageError(message)


class DiagnosticsMismatch(Exception):
    """--verify-diagnostics found a difference; the failures are already printed."""


class CompilerBug(Exception):
    """An internal error; `where` says what ge-opt was doing ("in pass 'dce'")."""

    def __init__(self, where: str, cause: BaseException):
        super().__init__(where)
        self.where, self.cause = where, cause


class GeOptMain(xDSLOptMain):
    version_format = "ge-opt (xdsl {xdsl_version})"
    stage = "while starting up"  # what is running, for crash reports
    input_text: bytes | None = None  # the chunk being compiled, as received
    chunk_offset = 0  # lines of the input file above the chunk being compiled
    source_map = SourceMap()  # where the ops of that chunk were written
    module = None  # that chunk, once parsed
    expecting = False  # --verify-diagnostics and the input has expected-* annotations

    def __init__(self, description: str = "", args=None):
        # xDSL builds the pass registry and parses the pipeline inside __init__,
        # so plugin passes must be registered before it runs.
        argv = mlir_spellings.rewrite_argv(sys.argv[1:] if args is None else list(args))
        load_plugins_from_argv(argv)
        # The pass table imports every pass (constant-fold pulls in torch, ~1.5 s):
        # build it only when help is asked for.
        self.wants_help = any(a in ("-h", "--help") for a in argv)
        super().__init__(description, argv)

    def get_input_stream(self):
        """`-` is standard input, as in mlir-opt."""
        if self.args.input_file == "-":
            return sys.stdin.buffer, "mlir"
        return super().get_input_stream()

    def prepare_input(self):
        """Under --verify-diagnostics, chunks are read up front to find annotations."""
        chunks, extension = super().prepare_input()
        if self.args.verify_diagnostics:
            chunks = [(BytesIO(chunk.read()), offset) for chunk, offset in chunks]
            self.expecting = any(verify_diagnostics.has_annotations(
                c.getvalue().decode("utf-8", "replace")) for c, _ in chunks)
        return chunks, extension

    def parse_chunk(self, chunk, file_extension, start_offset=0):
        self.stage, self.input_text = "while parsing the input", chunk.read()
        self.chunk_offset, self.module = start_offset, None
        return super().parse_chunk(BytesIO(self.input_text), file_extension, start_offset)

    def register_all_frontends(self):
        """MLIR text goes through LocatingParser, which keeps where each op was written."""
        super().register_all_frontends()

        def parse_mlir(stream):
            data, name = stream.read(), self.get_input_name()
            parser = LocatingParser(self.ctx, data, name)
            self.source_map = SourceMap(parser.op_spans, self.chunk_offset, name,
                                        data.decode("utf-8", "replace"))
            self.module = parser.parse_module(not self.args.no_implicit_module)
            return self.module

        self.available_frontends["mlir"] = parse_mlir

    def diagnostic(self, error: BaseException) -> Diagnostic | None:
        """A parse or verifier error as a positioned diagnostic, when it has a place."""
        if isinstance(error, ParseError):
            notes = tuple(Diagnostic("note", text or "", span_position(span))
                          for span, text in getattr(error, "refs", ()))
            return Diagnostic("error", error.msg.strip(), span_position(error.span), notes)
        if not isinstance(error, DiagnosticException):
            return None
        span = getattr(error, "parse_span", None)
        if span is not None:
            return Diagnostic("error", message_of(error), span_position(span, self.chunk_offset))
        if self.module is None:
            return None
        op, related = locate(self.module, error)
        notes = tuple(Diagnostic("note", what, self.source_map.position(other))
                      for other, what in related)
        return Diagnostic("error", message_of(error), self.source_map.position(op), notes)

    def run(self):
        """mlir-opt's --verify-diagnostics when the input says what it expects;
        otherwise xDSL's (print the diagnostic, exit 0), which FileCheck tests use."""
        if self.args.list_passes:
            sys.stdout.write(_pass_table(everything=self.args.all,
                                         available=self.available_passes) + "\n")
            return
        chunks, extension = self.prepare_input()
        if not self.expecting:
            self.prepare_input = lambda: (chunks, extension)
            return super().run()
        output, failures = self.prepare_output(), []
        try:
            for i, (chunk, offset) in enumerate(chunks):
                text = chunk.getvalue().decode("utf-8", "replace")
                produced: list[Diagnostic] = []
                if i > 0:
                    output.write("// -----\n")
                try:
                    module = self.parse_chunk(chunk, extension, offset)
                    if module is not None:
                        self.apply_passes(module)
                        output.write(self.output_resulting_program(module))
                except ParseError as e:
                    e.span = dataclasses.replace(e.span, line_offset=offset)
                    produced = self.diagnostic(e).all()
                except DiagnosticException as e:
                    d = self.diagnostic(e) or Diagnostic("error", message_of(e))
                    produced = d.all()
                expected = verify_diagnostics.expectations(text, self.get_input_name(), offset)
                failures += verify_diagnostics.check(expected, produced)
        finally:
            if output is not sys.stdout:
                output.close()
        for failure in failures:
            sys.stderr.write(failure.render())
        if failures:
            raise DiagnosticsMismatch()

    def setup_pipeline(self):
        """Track the running pass; invalid IR after a pass is that pass's bug."""
        try:
            super().setup_pipeline()
        except ValueError as e:
            raise ValueError(_with_pass_hints(str(e), self.available_passes)) from e
        path = self.args.fusion_report
        if path is not None:
            # Every op-fusion run, alone or inside a ge-O<n> level, writes the report.
            self.pipeline = dataclasses.replace(self.pipeline, passes=tuple(
                _with_report(p, path) for p in self.pipeline.passes))
        verify_time_and_print = instrument.pipeline_callback(self.pipeline.callback)
        self.toolkit_session = session_options(self.args, self.available_passes)

        def between_passes(previous, module, next_pass):
            self.stage = (f"after pass '{previous.name}'" if previous
                          else "while verifying the input")
            try:
                # xDSL's --time-passes and --print-between-passes print to stdout: to
                # stderr with them, so stdout is the IR only.
                with contextlib.redirect_stdout(sys.stderr):
                    verify_time_and_print(previous, module, next_pass)
                if not self.args.disable_verify:
                    check_dominance(module)
            except DiagnosticException as e:
                if previous is None:
                    raise  # the input does not verify: the user's error
                raise CompilerBug(f"in pass '{previous.name}' (its output does not verify)",
                                  e) from e
            self.stage = (f"in pass '{next_pass.name}'" if next_pass
                          else "while printing the output")

        self.pipeline = dataclasses.replace(self.pipeline, callback=between_passes)

    def apply_passes(self, prog):
        try:
            startup = time.perf_counter() - STARTED
            with instrument.session(**self.toolkit_session, format_ir=self._format_ir,
                                    startup=startup) as s:
                super().apply_passes(prog)
            report_session(self.args, s)
        except (DiagnosticException, CompilerBug):
            raise  # a pass refused its input with a diagnostic, or already classified
        except Exception as e:
            raise CompilerBug(self.stage, e) from e
        if self.args.emit_dot is not None:
            write_dot(prog, self.args.emit_dot)

    def _format_ir(self, module) -> str:
        from ge_dialect.printing import format_ir

        limit = self.args.elide_elementsattrs_if_larger
        debuginfo = self.args.print_debuginfo
        if limit is None and not debuginfo:
            return str(module)
        return format_ir(module, 2**62 if limit is None else limit, debuginfo)

    def write_reproducer(self) -> str:
        """The input as received, under a header naming the pipeline; returns its path.

        Crash files live in one directory (--crash-dir, else the user's cache dir),
        named by a hash of their text so a repeat overwrites its own; the oldest
        go beyond MAX_CRASH_FILES. Running a reproducer writes nothing new: the
        reproducer it runs is returned.
        """
        text = self.input_text or b""
        if text.startswith(REPRODUCER_HEADER) and self.args.input_file not in (None, "-"):
            return str(Path(self.args.input_file).resolve())
        data = f"{REPRODUCER_HEADER.decode()}-p {_quote(self.args.passes)}\n".encode() + text
        folder = crash_dir(self.args.crash_dir)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"ge-opt-crash-{hashlib.sha256(data).hexdigest()[:16]}.mlir"
        partial = path.with_suffix(f".tmp{os.getpid()}")
        partial.write_bytes(data)
        os.replace(partial, path)  # a reader never sees half a file
        _cap_crash_dir(folder, keep=path)
        return str(path)

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
        arg_parser.error = lambda message: _raise_usage_error(
            message + _flag_hint(message, arg_parser))
        arg_parser.formatter_class = argparse.RawDescriptionHelpFormatter
        for action in arg_parser._actions:
            if "--passes" in action.option_strings:  # xDSL's help lists ~130 passes
                action.help = ("comma-separated pass pipeline, with options as "
                               "name{key=value ...}; the same as MLIR's --pass-pipeline="
                               "'builtin.module(...)'; see the passes below")
        if self.wants_help:
            arg_parser.epilog = (_pass_table(everything=False, available=self.available_passes)
                                 + "\n\n" + _spellings_note())
        arg_parser.add_argument(
            "--pass-pipeline", metavar="PIPELINE", default=None,
            help="MLIR's textual pipeline, e.g. 'builtin.module(func.func(canonicalize),cse)' "
                 "(anchors flatten: every pass runs on each function)")
        arg_parser.add_argument(
            "--list-passes", action="store_true",
            help="list GE's passes and the common xDSL ones, then exit (with --all: every pass)")
        arg_parser.add_argument("--all", action="store_true", help="with --list-passes: all")
        arg_parser.add_argument(
            "--crash-dir", metavar="DIR", default=None,
            help="where internal errors write their reproducer (default: $GE_OPT_CRASH_DIR, "
                 "else the user's cache dir, ~/.cache/ge-opt/crashes; at most "
                 f"{MAX_CRASH_FILES} files, named by content, so a repeated crash "
                 "overwrites its file)")
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

    def output_resulting_program(self, prog):
        if self.args.memory_report:
            from passes.memory_reuse import memory_report

            print(memory_report(prog) or "memory-report: no function has a memory plan "
                  "(run memory-reuse)", file=sys.stderr)
        limit = self.args.elide_elementsattrs_if_larger
        if limit is None:
            return super().output_resulting_program(prog)
        from ge_dialect.printing import format_ir

        return format_ir(prog, limit, self.args.print_debuginfo) + "\n"


REPRODUCER_HEADER = b"// ge-opt reproducer: "
MAX_CRASH_FILES = 32


def crash_dir(override: str | None) -> Path:
    """Where crash reproducers go: --crash-dir, else $GE_OPT_CRASH_DIR (the test
    suites set it, so their planted crashes stay out of the user's cache), else
    $XDG_CACHE_HOME/ge-opt/crashes (~/.cache/ge-opt/crashes), else the temp dir
    when there is no home."""
    if override:
        return Path(override)
    if os.environ.get("GE_OPT_CRASH_DIR"):
        return Path(os.environ["GE_OPT_CRASH_DIR"])
    cache = os.environ.get("XDG_CACHE_HOME")
    if not cache:
        try:
            cache = str(Path.home() / ".cache")
        except RuntimeError:  # no home directory known
            cache = tempfile.gettempdir()
    return Path(cache) / "ge-opt" / "crashes"


def _cap_crash_dir(folder: Path, keep: Path) -> None:
    """Remove the oldest crash files beyond MAX_CRASH_FILES (never `keep`)."""
    files = sorted(folder.glob("ge-opt-crash-*.mlir"), key=lambda p: p.stat().st_mtime)
    for old in [p for p in files if p != keep][:max(0, len(files) - MAX_CRASH_FILES)]:
        with contextlib.suppress(OSError):
            old.unlink()


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


# The xDSL passes a GE user reaches for; --list-passes --all shows the other ~120.
COMMON_XDSL_PASSES = ("canonicalize", "cse", "dce", "licm", "apply-pdl", "constant-fold-interp",
                      "reconcile-unrealized-casts", "mlir-opt")


def _pass_table(everything: bool, available) -> str:
    def rows(names, factory_of):
        lines = []
        for name in names:
            doc = (factory_of(name)().__doc__ or "").strip().splitlines()
            lines.append(f"  {name:<28} {doc[0].strip() if doc else ''}")
        return "\n".join(lines)

    ge = get_all_passes()
    others = sorted(n for n in available if n not in ge and n not in ARTICLE_NAMES)
    shown = others if everything else [n for n in COMMON_XDSL_PASSES if n in others]
    title = "xDSL passes:" if everything else \
        "Common xDSL passes (ge-opt --list-passes --all lists all of them):"
    return (f"GE passes:\n{rows(ge, ge.__getitem__)}\n\n{title}\n"
            f"{rows(shown, available.__getitem__)}")


def _spellings_note() -> str:
    aliases = ", ".join(a for a, ours in mlir_spellings.FLAG_ALIASES.items() if ours)
    return ("mlir-opt spellings are accepted: --pass-pipeline='builtin.module(...)' "
            f"for -p, and {aliases}.")


def _with_pass_hints(message: str, available) -> str:
    """xDSL's "Unrecognized passes: [...]" with a "did you mean" for each name."""
    if not message.startswith("Unrecognized passes: "):
        return message
    import ast

    try:
        names = ast.literal_eval(message.removeprefix("Unrecognized passes: "))
    except (ValueError, SyntaxError):
        return message
    hints = [f"'{n}'{h}" for n in names
             if (h := mlir_spellings.did_you_mean(n, list(available) + list(ARTICLE_NAMES)))]
    if len(names) == 1:
        return message + "".join(h.removeprefix(f"'{names[0]}'") for h in hints)
    return message + ("; " + ", ".join(hints) if hints else "")


def _flag_hint(message: str, parser: argparse.ArgumentParser) -> str:
    """For "unrecognized arguments: --x", the nearest flag ge-opt knows."""
    if not message.startswith("unrecognized arguments: "):
        return ""
    known = [o for a in parser._actions for o in a.option_strings if o.startswith("--")]
    known += list(mlir_spellings.FLAG_ALIASES)
    hints = [h for arg in message.split()[2:] if arg.startswith("-")
             if (h := mlir_spellings.did_you_mean(arg.split("=")[0], known))]
    return "".join(hints)


def _one_line(e: BaseException) -> str:
    if isinstance(e, ParseError):
        return f"{e.span.get_location()}: error: {e.msg}"
    text = str(e).strip()
    if isinstance(e, ArgSpecParseError):
        return "error: invalid pass pipeline: " + " ".join(text.split())
    # Verifier messages put the reason on the lines after the headline.
    lines = [line.strip() for line in text.splitlines() if line.strip()][:3]
    return "error: " + (" ".join(lines) if lines else type(e).__name__)


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _blame(error: BaseException, where: str) -> str:
    """Whose bug: the innermost frame in a loaded plugin file, else the plugin
    that defines the pass named in `where`, else ge-opt."""
    from passes.driver.plugins import loaded_files, plugin_of

    files = {str(p) for p in loaded_files()}
    frames = [f for f in traceback.extract_tb(error.__traceback__)
              if str(Path(f.filename).resolve()) in files]
    if frames:
        return f"the plugin {frames[-1].filename}:{frames[-1].lineno}"
    made = getattr(_root_cause(error), "made_by", None)  # a verifier failure's pattern
    if made is not None and made.source:
        file = made.source.rsplit(":", 1)[0]
        if str(Path(file).resolve()) in files:
            return f"the plugin {made.source} (pattern {made.pattern})"
    # A guard rail's patterns (rules that undo each other, a no-op "success").
    sources = getattr(_root_cause(error), "sources", None) or {}
    blamed = [f"{where} (pattern {pattern})" for pattern, where in sources.items()
              if where and str(Path(where.rsplit(":", 1)[0]).resolve()) in files]
    if blamed:
        return "the plugin " + " and ".join(blamed)
    named = re.search(r"pass '([^']+)'", where)
    path = plugin_of(named.group(1).split("/")[-1]) if named else None
    return f"the plugin {path} (pass '{named.group(1)}')" if path else "ge-opt"


def _root_cause(error: BaseException) -> BaseException:
    """The PassVerifyError (or guard-rail error) behind `error`, if it was raised from one."""
    from passes.driver.instrument import PassVerifyError

    seen = error
    while seen is not None and not isinstance(seen, PassVerifyError) \
            and not hasattr(seen, "sources"):
        seen = seen.__cause__
    return seen if seen is not None else error


def _reproduce_command(tool: GeOptMain, path: str) -> str:
    """The command line that reproduces the run: pipeline, plugins and guard-rail flags."""
    args = tool.args
    parts = ["ge-opt", path, "-p", _quote(args.passes)]
    for plugin in args.load_pass_plugin:
        parts += ["--load-pass-plugin", _quote(str(Path(plugin).resolve()))]
    if args.no_guard_rails:
        parts.append("--no-guard-rails")
    if args.rewrite_cap is not None:
        parts += ["--rewrite-cap", str(args.rewrite_cap)]
    if args.crash_dir is not None:
        parts += ["--crash-dir", _quote(str(Path(args.crash_dir).resolve()))]
    return " ".join(parts)


def _report_bug(tool: GeOptMain | None, where: str, error: BaseException) -> int:
    """Two lines on stderr: the error and where, then the reproducer to send."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    # The whole message on one line (a verifier's reason is on its last lines).
    detail = f"{type(error).__name__}: {' '.join(lines)[:800]}" if lines else type(error).__name__
    print(f"ge-opt: internal compiler error {where}: {detail}", file=sys.stderr)
    if tool is not None and getattr(tool.args, "show_traceback", False):
        traceback.print_exception(error, file=sys.stderr)
    culprit = _blame(error, where)
    if tool is None or tool.input_text is None:
        print(f"ge-opt: this is a bug in {culprit}, not in your input; please report it with "
              "the command line", file=sys.stderr)
        return INTERNAL_ERROR
    try:
        path = tool.write_reproducer()
    except OSError as e:
        print(f"ge-opt: this is a bug in {culprit}, not in your input; could not write a "
              f"reproducer ({e})", file=sys.stderr)
        return INTERNAL_ERROR
    print(f"ge-opt: this is a bug in {culprit}, not in your input; please report it with "
          f"{path} (reproduce: {_reproduce_command(tool, str(path))})", file=sys.stderr)
    return INTERNAL_ERROR


# xDSL's parser, verifier and printer walk nested regions by recursion, so deep
# IR needs a deep Python stack: ge-opt runs on a thread with a large stack and
# a recursion limit that covers MAX_NESTING levels of regions (each level
# takes fewer than 20 frames). Deeper input is refused with a clear limit.
MAX_NESTING = 2000
STACK_BYTES = 512 * 2**20  # reserved address space; only what is used is touched


def main(argv=None, tool_class: type[GeOptMain] = GeOptMain) -> int:
    """Run ge-opt; `tool_class` lets a plugin driver add its passes and dialects."""
    result: list[int] = []
    old_limit, old_stack = sys.getrecursionlimit(), threading.stack_size()
    sys.setrecursionlimit(max(old_limit, 20 * MAX_NESTING + 1000))
    threading.stack_size(STACK_BYTES)
    try:
        worker = threading.Thread(target=_run_into, args=(result, argv, tool_class),
                                  name="ge-opt")
        worker.start()
    finally:
        threading.stack_size(old_stack)
    try:
        worker.join()
    finally:
        sys.setrecursionlimit(old_limit)
    return result[0] if result else INTERNAL_ERROR


def _run_into(result: list[int], argv, tool_class: type[GeOptMain]) -> None:
    """_main's exit status into `result`; `--help` and argparse errors exit
    through SystemExit, which on a thread must become a status too."""
    try:
        result.append(_main(argv, tool_class))
    except SystemExit as e:
        result.append(e.code if isinstance(e.code, int) else 0 if e.code is None else 1)
        if not isinstance(e.code, int | None):
            print(e.code, file=sys.stderr)


def _main(argv, tool_class: type[GeOptMain]) -> int:
    tool = None
    try:
        tool = tool_class(description=_describe(), args=argv)
        with fewer_collections():
            tool.run()
    except CompilerBug as e:
        return _report_bug(tool, e.where, e.cause)
    except DiagnosticsMismatch:
        return USER_ERROR
    except (ParseError, DiagnosticException, ArgSpecParseError, UsageError) as e:
        located = tool.diagnostic(e) if tool is not None else None
        if located is not None and located.where is not None:
            sys.stderr.write(located.render())
        else:
            print(f"ge-opt: {_one_line(e)}", file=sys.stderr)
        return USER_ERROR
    except BrokenPipeError:
        # The reader (`ge-opt ... | head`) has gone; that is not an error.
        sys.stdout = open(os.devnull, "w")
        return 0
    except (ValueError, OSError) as e:
        # Unknown passes, bad pass options and unreadable files surface as these.
        print(f"ge-opt: {_one_line(e)}", file=sys.stderr)
        return USER_ERROR
    except KeyboardInterrupt:
        return 130
    except RecursionError:
        where = tool.stage if tool else "while starting up"
        print(f"ge-opt: error: the IR nests regions deeper than ge-opt supports ({where}); "
              f"it supports at least {MAX_NESTING} levels: flatten the nesting or split the "
              "module", file=sys.stderr)
        return USER_ERROR
    except Exception as e:  # noqa: BLE001 - last-resort guard, see module docstring
        return _report_bug(tool, tool.stage if tool else "while starting up", e)
    return 0


if __name__ == "__main__":
    sys.exit(main())
