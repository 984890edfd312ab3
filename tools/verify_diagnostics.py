"""`--verify-diagnostics` as mlir-opt has it: the input says which diagnostics it
expects, and any difference fails.

    // expected-error @+1 {{shapes 2x4 and 3x5 do not broadcast}}
    %y = ge.add %a, %b : ...

The designators are MLIR's: none (this line), `@+N` / `@-N` (N lines below or
above), `@above` / `@below` (the nearest line without an annotation),
`@unknown` (a diagnostic with no position). The text in `{{...}}`
must occur in the message. A diagnostic nobody expected, or an expected one
that did not come, is reported at its line and makes ge-opt exit 1.
"""

from __future__ import annotations

import dataclasses
import re

from ge_dialect.diagnostics import Diagnostic, Position

ANNOTATION = re.compile(
    r"expected-(?P<severity>error|warning|note|remark)"
    r"(?:\s*@(?P<where>[+-]\d+|above|below|unknown))?\s*\{\{(?P<text>.*?)\}\}")


@dataclasses.dataclass
class Expected:
    severity: str
    text: str
    line: int | None  # None: @unknown
    at: Position  # the annotation itself, for "was not produced"
    seen: bool = False


def has_annotations(text: str) -> bool:
    return ANNOTATION.search(text) is not None


def expectations(text: str, file: str, line_offset: int) -> list[Expected]:
    """The annotations of one chunk, with the lines they refer to (1-based, in the file)."""
    lines = text.splitlines()
    found: list[Expected] = []
    waiting: list[Expected] = []  # @below: resolved at the next plain line
    last_plain = None
    for index, line in enumerate(lines):
        number = index + 1 + line_offset
        matches = list(ANNOTATION.finditer(line))
        if not matches:  # as MLIR: any line without an annotation
            for e in waiting:
                e.line = number
            waiting, last_plain = [], number
        for m in matches:
            where = m.group("where")
            at = Position(file, number, m.start() + 1, line, len(m.group("severity")) + 9)
            e = Expected(m.group("severity"), m.group("text"), number, at)
            if where == "unknown":
                e.line = None
            elif where == "above":
                e.line = last_plain if last_plain is not None else number
            elif where == "below":
                waiting.append(e)
            elif where:
                e.line = number + int(where)
            found.append(e)
    return found


def check(expected: list[Expected], produced: list[Diagnostic]) -> list[Diagnostic]:
    """The failures, as diagnostics to print: unexpected ones, then missing ones."""
    failures = []
    for d in produced:
        line = d.where.line if d.where is not None else None
        match = next((e for e in expected if not e.seen and e.severity == d.severity
                      and e.line == line and e.text in d.message), None)
        if match is None:
            failures.append(Diagnostic("error", f"unexpected {d.severity}: {d.message}",
                                       d.where))
        else:
            match.seen = True
    for e in expected:
        if not e.seen:
            failures.append(Diagnostic(
                "error", f'expected {e.severity} "{e.text}" was not produced', e.at))
    return failures

