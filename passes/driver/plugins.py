"""Out-of-tree passes: load a Python file of passes and patterns by path.

    ge-opt model.mlir --load-pass-plugin my_rules.py -p my-pass
    passes.driver.plugins.load_pass_plugin("my_rules.py")          # the Python API

A plugin file is plain Python. It may define

  * ModulePass subclasses with a `name` (frozen dataclasses, as in passes/):
    each becomes a pass of that name;
  * a module-level `PATTERNS` list of RewritePattern instances: they become
    one pass that applies them greedily until nothing changes (trivially dead
    ops are removed, as in canonicalize). It is named by `PASS_NAME` if the
    file sets it, else after the file (`my_rules.py` -> `my-rules`).

A plugin may also add to the built-in tables, so the built-in passes (and
the ge-O<n> levels, and ge-opt --fusion-report) use its rules:

    from passes.driver.plugins import register_canonicalization, register_fusion_rule
    register_canonicalization(RewriteRule("neg(neg(x)) -> x", ...))   # canonicalize
    register_fusion_rule(FusionRule("sigmoid_mul", ...))                 # op-fusion
    register_kernel(MyOp, lambda op: torch.tanh)                         # the runtime

A file that only registers rules needs no pass.

Loaded passes join `passes.get_all_passes()`, so ge-opt, the ge-O<n>
levels' `disable=`, ge-bisect and `npu_graph.compiler` all see them. Loading
is all or nothing: a file that fails to import, defines no pass, or reuses a
name (ours, xDSL's or another plugin's) registers nothing and raises
PluginError with a one-line message. Loading the same file again is a no-op.
"""

from __future__ import annotations

import importlib.util
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.transforms import get_all_passes as xdsl_passes

from ge_dialect import canonicalization
from ge_dialect.patterns import RewriteRule
from passes import ARTICLE_NAMES, PassFactory, add_plugin_table, builtin_passes, op_fusion
from passes.base import GEPass
from passes.driver import instrument


class PluginError(ValueError):
    """A plugin file cannot be loaded; the message is one line for the user."""


@dataclass(frozen=True)
class _Loaded:
    path: Path
    factories: dict[str, PassFactory]


# Process-wide: resolved file path -> what it registered.
_LOADED: dict[Path, _Loaded] = {}


def registered_passes() -> dict[str, PassFactory]:
    """Every pass that loaded plugins define, name -> factory (as get_all_passes)."""
    return {name: f for loaded in _LOADED.values() for name, f in loaded.factories.items()}


add_plugin_table(registered_passes)


def loaded_files() -> list[Path]:
    """Every plugin file loaded in this process, resolved."""
    return list(_LOADED)


def plugin_of(name: str) -> Path | None:
    """The file that defined pass `name`, or None for a built-in pass."""
    return next((p for p, loaded in _LOADED.items() if name in loaded.factories), None)


def import_file(path: str | Path, what: str = "plugin") -> ModuleType:
    """Import a Python file by path; any failure is a one-line PluginError.

    The module is entered in sys.modules under a private name first, because
    dataclasses (every ModulePass is one) look their module up there.
    """
    file = Path(path)
    if not file.is_file():
        raise PluginError(f"{what} file not found: {path}")
    file = file.resolve()
    key = f"_ge_plugin_{abs(hash(str(file))):x}_{file.stem}"
    spec = importlib.util.spec_from_file_location(key, file)
    if spec is None or spec.loader is None:
        raise PluginError(f"{path}: cannot be imported as Python (expected a .py file)")
    module = importlib.util.module_from_spec(spec)
    sys.modules[key] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        del sys.modules[key]
        raise PluginError(f"{path}:{e.lineno}: syntax error: {e.msg}") from None
    except Exception as e:  # noqa: BLE001 - any failure of user code is reported alike
        del sys.modules[key]
        raise PluginError(f"{_where(e, file, path)}: {type(e).__name__}: {e}") from None
    return module


def _where(e: BaseException, file: Path, shown: str | Path) -> str:
    """`shown:LINE` of the deepest frame inside the plugin file, else just `shown`."""
    lines = [f.lineno for f in traceback.extract_tb(e.__traceback__)
             if Path(f.filename).resolve() == file]
    return f"{shown}:{lines[-1]}" if lines else str(shown)


# ---- adding to the built-in tables

_REGISTERED: list[str] = []  # what register_* added, "canonicalization 'x -> y'", ...


def registered_rules() -> list[str]:
    """What plugins added to the built-in tables, one line each."""
    return list(_REGISTERED)


def register_canonicalization(rule) -> None:
    """Add a RewriteRule (ge_dialect/patterns.py) to canonicalize's table: it
    applies to the ops of its pattern's root kind, whatever their traits."""
    if not isinstance(rule, RewriteRule):
        raise PluginError(f"register_canonicalization takes a RewriteRule, got "
                          f"{type(rule).__name__}")
    if any(r.name == rule.name
           for r in (*canonicalization.RULES, *canonicalization.EXTRA_RULES)):
        raise PluginError(f"canonicalization '{rule.name}' is already in the table")
    # Blame a rule on its plugin's line, not on RewriteRule's class in ge_dialect.
    object.__setattr__(rule, "defined_at", _definition_site(rule.name, sys._getframe(1)))
    canonicalization.EXTRA_RULES.append(rule)
    _REGISTERED.append(f"canonicalization '{rule.name}'")


def _definition_site(name: str, caller) -> str:
    """`file:LINE` where the rule named `name` is written in the registering file:
    the line with its name as a string literal, else the registering call."""
    file, line = caller.f_code.co_filename, caller.f_lineno
    try:
        lines = Path(file).read_text().splitlines()
    except OSError:
        return f"{file}:{line}"
    quoted = (f'"{name}"', f"'{name}'")
    found = next((i for i, text in enumerate(lines, 1) if any(q in text for q in quoted)), line)
    return f"{Path(file).resolve()}:{found}"


def register_fusion_rule(rule, first: bool = False) -> None:
    """Add a FusionRule (passes/op_fusion.py) to op-fusion's table, after the
    built-in rules (`first=True`: before them, so it wins where both match)."""
    if not isinstance(rule, op_fusion.FusionRule):
        raise PluginError(f"register_fusion_rule takes a FusionRule, got {type(rule).__name__}")
    if any(r.name == rule.name for r in op_fusion.all_rules()):
        raise PluginError(f"fusion rule '{rule.name}' is already in the table")
    (op_fusion.FIRST_RULES if first else op_fusion.EXTRA_RULES).append(rule)
    _REGISTERED.append(f"fusion rule '{rule.name}'")


def register_kernel(op_type: type, preparer: Callable, replace: bool = False) -> None:
    """Give the runtime a host kernel for `op_type`: `preparer(op)` returns a
    callable over torch tensors (runtime/kernels.py). An op that has one
    already is refused unless `replace`."""
    from runtime.kernels import KERNELS  # torch: imported when a plugin adds a kernel

    if not callable(preparer):
        raise PluginError(f"register_kernel: the preparer for {op_type.__name__} is not callable")
    if op_type in KERNELS and not replace:
        raise PluginError(f"'{getattr(op_type, 'name', op_type.__name__)}' already has a host "
                          "kernel (pass replace=True to override it)")
    KERNELS[op_type] = preparer
    _REGISTERED.append(f"kernel for '{getattr(op_type, 'name', op_type.__name__)}'")


def load_pass_plugin(path: str | Path) -> list[str]:
    """Load the plugin file at `path` and register its passes; return their names."""
    resolved = Path(path).resolve()
    if resolved in _LOADED:
        return list(_LOADED[resolved].factories)
    registered = len(_REGISTERED)
    try:
        module = import_file(path)
    except PluginError:
        del _REGISTERED[registered:]
        raise
    found = _passes_in(module, path)
    if not found and len(_REGISTERED) > registered:  # it only adds to the tables
        _LOADED[resolved] = _Loaded(resolved, {})
        instrument.PLUGIN_FILES.add(str(resolved))
        return []
    if not found:
        raise PluginError(
            f"{path}: defines no pass (expected ModulePass subclasses with a `name`, "
            "or a module-level PATTERNS list of RewritePattern instances)")
    _check_names(found, path)
    _LOADED[resolved] = _Loaded(resolved, {name: (lambda c=cls: c) for name, cls in found})
    instrument.PLUGIN_FILES.add(str(resolved))
    return [name for name, _ in found]


def _passes_in(module: ModuleType, path: str | Path) -> list[tuple[str, type[ModulePass]]]:
    found = [(cls.name, cls) for cls in vars(module).values()
             if isinstance(cls, type) and issubclass(cls, ModulePass)
             and cls.__module__ == module.__name__ and isinstance(getattr(cls, "name", None), str)]
    patterns = getattr(module, "PATTERNS", None)
    if patterns is not None:
        found.append(_pattern_pass(module, patterns, path))
    return found


def _pattern_pass(module: ModuleType, patterns, path: str | Path
                  ) -> tuple[str, type[ModulePass]]:
    if not isinstance(patterns, list | tuple):
        raise PluginError(f"{path}: PATTERNS must be a list of RewritePattern instances, "
                          f"got {type(patterns).__name__}")
    for i, p in enumerate(patterns):
        if not isinstance(p, RewritePattern):
            hint = " (a class: instantiate it)" if isinstance(p, type) else ""
            raise PluginError(f"{path}: PATTERNS[{i}] is not a RewritePattern instance{hint}")
    stem = Path(path).stem.replace("_", "-")
    name = getattr(module, "PASS_NAME", stem)
    if not isinstance(name, str) or not name:
        raise PluginError(f"{path}: PASS_NAME must be a non-empty string")
    doc = (module.__doc__ or "").strip().splitlines()
    return name, pattern_pass(name, tuple(patterns), doc[0] if doc else None)


def pattern_pass(name: str, patterns: tuple[RewritePattern, ...],
                 doc: str | None = None) -> type[ModulePass]:
    """A pass class named `name` that applies `patterns` greedily to a fixpoint."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(GreedyRewritePatternApplier(list(patterns))).rewrite_module(op)

    summary = doc or f"Apply {', '.join(type(p).__name__ for p in patterns)} (plugin)."
    # `patterns` stays readable on the class: ge-fuzz aims its graphs at what they match.
    cls = type(f"PatternPass_{name}", (GEPass,),
               {"name": name, "apply": apply, "patterns": patterns, "__doc__": summary})
    return dataclass(frozen=True)(cls)


def _check_names(found: list[tuple[str, type[ModulePass]]], path: str | Path) -> None:
    ours = set(builtin_passes()) | set(ARTICLE_NAMES)
    seen: set[str] = set()
    for name, _ in found:
        if name in seen:
            raise PluginError(f"{path}: defines pass '{name}' twice")
        seen.add(name)
        if name in ours:
            raise PluginError(f"{path}: pass '{name}' clashes with a built-in GE pass")
        if name in _xdsl_pass_names():
            raise PluginError(f"{path}: pass '{name}' clashes with an xDSL pass")
        if (other := plugin_of(name)) is not None:
            raise PluginError(f"{path}: pass '{name}' is already defined by plugin {other}")


def _xdsl_pass_names() -> set[str]:
    return set(xdsl_passes())
