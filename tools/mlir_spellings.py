"""mlir-opt's spellings for ge-opt: `--pass-pipeline='builtin.module(...)'` (also
taken by `-p`) and
the `--mlir-*` flags, rewritten to ge-opt's own before argparse sees them, and
"did you mean" for a misspelled pass or flag.

A pipeline's anchors (`builtin.module(...)`, `func.func(...)`) only say which
ops a pass runs on. Every GE and xDSL pass here is a module pass that visits
each function, so nesting flattens to the plain list `-p` takes; options in
`{...}` are written the same way in both (space-separated `key=value`).
"""

from __future__ import annotations

import difflib

# mlir-opt's flag -> ge-opt's (None: accepted, nothing to do here).
FLAG_ALIASES = {
    "--mlir-print-ir-after-all": "--print-ir-after-all",
    "--mlir-print-ir-after": "--print-ir-after",
    "--mlir-print-ir-after-change": "--print-ir-after-change",
    "--mlir-timing": "--timing",
    "--mlir-pass-statistics": "--pass-statistics",
    "--mlir-print-op-generic": "--print-op-generic",
    "--mlir-print-debuginfo": "--print-debuginfo",
    "--mlir-elide-elementsattrs-if-larger": "--elide-elementsattrs-if-larger",
    "--mlir-disable-threading": None,  # ge-opt runs passes on one thread
}
ANCHORS = ("builtin.module", "func.func", "any")


class PipelineSyntaxError(ValueError):
    """A --pass-pipeline string that is not MLIR's textual pipeline."""


def rewrite_argv(argv: list[str]) -> list[str]:
    """argv with MLIR's spellings replaced by ge-opt's (a single dash works too)."""
    out: list[str] = []
    args = iter(argv)
    for arg in args:
        name, eq, value = arg.partition("=")
        if not name.startswith("--") and ("-" + name in FLAG_ALIASES
                                          or name == "-pass-pipeline"):
            name = "-" + name  # mlir-opt takes -flag and --flag alike
        if name == "--pass-pipeline":
            text = value if eq else next(args, None)
            if text is None:
                raise PipelineSyntaxError("--pass-pipeline needs a value, for example "
                                          "--pass-pipeline='builtin.module(canonicalize)'")
            out += ["-p", flatten_pipeline(text)]
        elif name in ("-p", "--passes") and not eq:
            text = next(args, "")
            out += [name, flatten_pipeline(text) if "(" in text else text]
        elif name in FLAG_ALIASES:
            ours = FLAG_ALIASES[name]
            if ours is not None:
                out.append(ours + eq + value)
        else:
            out.append(arg)
    return out


def flatten_pipeline(text: str) -> str:
    """`builtin.module(func.func(a{x=1}), b)` -> `a{x=1},b`, checking the brackets."""
    passes: list[str] = []
    _parse_list(text.strip(), 0, passes, closing=None)
    return ",".join(passes)


def _parse_list(text: str, i: int, passes: list[str], closing: str | None) -> int:
    """Parse `element (, element)*` from i up to `closing`; returns the index after it."""
    while True:
        i = _skip_space(text, i)
        start = i
        while i < len(text) and text[i] not in "(){},":
            i += 1
        name = text[start:i].strip()
        if not name:
            raise PipelineSyntaxError(f"expected a pass or an anchor at column {i + 1} of "
                                      f"'{text}'")
        if i < len(text) and text[i] == "(":
            if name not in ANCHORS and "." not in name:
                raise PipelineSyntaxError(f"'{name}(' in '{text}': only op anchors such as "
                                          f"{', '.join(ANCHORS)} take a nested pipeline")
            i = _parse_list(text, i + 1, passes, closing=")")
        else:
            if i < len(text) and text[i] == "{":
                end = text.find("}", i)
                if end < 0:
                    raise PipelineSyntaxError(f"unclosed '{{' after '{name}' in '{text}'")
                name, i = name + text[i:end + 1], end + 1
            passes.append(name)
        i = _skip_space(text, i)
        if i < len(text) and text[i] == ",":
            i += 1
            continue
        if closing is None:
            if i != len(text):
                raise PipelineSyntaxError(f"unexpected '{text[i]}' at column {i + 1} of "
                                          f"'{text}'")
            return i
        if i >= len(text) or text[i] != closing:
            raise PipelineSyntaxError(f"missing '{closing}' at the end of '{text}'")
        return i + 1


def _skip_space(text: str, i: int) -> int:
    while i < len(text) and text[i].isspace():
        i += 1
    return i


def did_you_mean(word: str, choices) -> str:
    """` (did you mean 'x'?)` for the nearest choice, or '' when none is close."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.75)
    return f" (did you mean '{close[0]}'?)" if close else ""
