"""Diagnostics as MLIR prints them: `file:line:col: error: message`, the source
line, a caret under the token, then notes at related ops.

xDSL's verifier raises an exception that names no op, and its parser keeps
no positions once an op is built. So ge-opt parses with `LocatingParser`,
which remembers where each op's name stands and where each forward use was
written, and `locate` finds the op a verifier error belongs to. An op's
`loc("file":line:col)` (the importer writes the model's source line) wins
over the parsed position, as in MLIR.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from xdsl.dialects.builtin import FileLineColLoc
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException, ParseError
from xdsl.utils.lexer import Span

FUNCTION_NAMED = re.compile(r"(?:[\w-]+: )?@([\w.$-]+)\b")


@dataclasses.dataclass(frozen=True)
class Position:
    """A 1-based place in a file; `source` is its line's text, when known."""

    file: str
    line: int
    col: int
    source: str | None = None
    width: int = 1  # how many carets go under the token


@dataclasses.dataclass(frozen=True)
class Diagnostic:
    """One diagnostic; `where` is None for one that has no place in the input."""

    severity: str
    message: str
    where: Position | None = None
    notes: tuple[Diagnostic, ...] = ()

    def render(self) -> str:
        """The MLIR form, notes included; ends with a newline."""
        if self.where is None:
            head = f"error: {self.message}" if self.severity == "error" else \
                f"{self.severity}: {self.message}"
            text = head + "\n"
        else:
            w = self.where
            text = f"{w.file}:{w.line}:{w.col}: {self.severity}: {self.message}\n"
            if w.source is not None:
                text += w.source + "\n" + " " * (w.col - 1) + "^" * max(1, w.width) + "\n"
        return text + "".join(n.render() for n in self.notes)

    def all(self) -> list[Diagnostic]:
        """This diagnostic and its notes, each alone (for --verify-diagnostics)."""
        return [dataclasses.replace(self, notes=()), *(d for n in self.notes for d in n.all())]


def span_position(span: Span, line_offset: int = 0) -> Position:
    """Where a parser span starts, with its source line."""
    loc = span.get_location()
    content = span.input.content
    start = span.input.get_start_of_line(span.start)
    end = span.input.get_end_of_line(span.start)
    line = content[start:end]
    if isinstance(line, bytes):
        line = line.decode("utf-8", "replace")
    width = min(max(1, span.end - span.start), max(1, len(line) - loc.col + 1))
    return Position(loc.file, loc.line + line_offset, loc.col, line.rstrip("\r"), width)


class LocatingParser(Parser):
    """xDSL's parser that also records each op's name token and each forward use.

    Errors about an op then point at its name (MLIR's position for an op), and
    "values used but not defined" points at the first such use, not at the end
    of the input.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.op_spans: dict[Operation, Span] = {}
        self._name_spans: list[Span] = []  # a stack: ops nest
        self._forward_uses: dict[str, Span] = {}

    def _parse_op_result_list(self):
        results = super()._parse_op_result_list()
        self._name_spans.append(self._current_token.span)
        return results

    def parse_operation(self) -> Operation:
        depth = len(self._name_spans)
        try:
            op = super().parse_operation()
            self.op_spans[op] = self._name_spans[depth]
            return op
        except DiagnosticException as e:
            # An attribute or op refused while being built: the op's name is the place.
            if getattr(e, "parse_span", None) is None and len(self._name_spans) > depth:
                e.parse_span = self._name_spans[depth]
            raise
        finally:
            del self._name_spans[depth:]

    def _get_op_by_name(self, name: str):
        try:
            return super()._get_op_by_name(name)
        except ParseError as e:
            if self._name_spans:
                e.span = self._name_spans[-1]
            raise

    def resolve_operand(self, operand, type):
        name = operand.operand_name
        if name not in self.ssa_values and name not in self._forward_uses:
            self._forward_uses[name] = operand.span
        return super().resolve_operand(operand, type)

    def parse_module(self, allow_implicit_module: bool = True):
        try:
            return super().parse_module(allow_implicit_module)
        except ParseError as e:
            undefined = [self._forward_uses[n] for n in self.forward_ssa_references
                         if n in self._forward_uses]
            if e.msg.startswith("values used but not defined") and undefined:
                e.span = min(undefined, key=lambda s: s.start)
            raise


@dataclasses.dataclass
class SourceMap:
    """Where the ops of one parsed chunk stand: parsed spans, else their loc()."""

    op_spans: dict[Operation, Span] = dataclasses.field(default_factory=dict)
    line_offset: int = 0
    input_name: str = ""
    input_text: str = ""

    def position(self, op: Operation | None) -> Position | None:
        """The op's loc(...), else where its name was parsed, else its parent's place
        (as in MLIR, an explicit location wins over the parser's)."""
        while op is not None:
            loc = op.location
            if isinstance(loc, FileLineColLoc):
                file, line, col = loc.filename.data, loc.line.data, loc.column.data
                return Position(file, line, col, self._line_of(file, line))
            span = self.op_spans.get(op)
            if span is not None:
                return span_position(span, self.line_offset)
            op = op.parent_op()
        return None

    def _line_of(self, file: str, line: int) -> str | None:
        """The text of `line` in `file`: the input's own, or a small file on disk."""
        if file == self.input_name:
            lines = self.input_text.splitlines()
            index = line - 1 - self.line_offset
        else:
            try:
                path = Path(file)
                if not path.is_file() or path.stat().st_size > 2**24:
                    return None
                lines = path.read_text(errors="replace").splitlines()
            except OSError:
                return None
            index = line - 1
        return lines[index] if 0 <= index < len(lines) else None


def locate(root: Operation, error: BaseException) -> tuple[Operation | None, list]:
    """The op a verifier error is about, and related ops (op, what) for notes.

    A check that knows its op attaches it as `error.op` (and `error.related`);
    otherwise each op is verified alone until one fails the same way.
    """
    op = getattr(error, "op", None)
    if op is not None:
        return op, list(getattr(error, "related", ()))
    wanted = _headline(error)
    first = None
    for candidate in root.walk():
        try:
            candidate.verify(verify_nested_ops=False)
        except Exception as e:  # noqa: BLE001 - any failure of this op's own checks
            if _headline(e) == wanted:
                return candidate, []
            first = first or candidate
    if first is None:
        # A pass's message names the function first ("verify-plan: @f: ..."): its place.
        named = FUNCTION_NAMED.match(wanted)
        first = next((f for f in root.walk() if named and getattr(
            getattr(f, "sym_name", None), "data", None) == named.group(1)), None)
    return first, []


def _headline(error: BaseException) -> str:
    return str(error.args[0] if error.args else error).strip()


def message_of(error: BaseException) -> str:
    """A verifier exception's message without xDSL's IR dump and prefix, on one line."""
    text = _headline(error).removeprefix("Operation does not verify: ")
    return " ".join(line.strip() for line in text.splitlines() if line.strip())
