"""What the pass under test matches, so ge-fuzz can draw graphs that make it fire.

A random graph over the whole op menu rarely holds the one op chain a pattern
looks for (relu of an add, say), so a wrong pattern goes unnoticed. ge-fuzz
therefore reads the pass's patterns first. Each is a `Target`: its name as
the pass driver credits its rewrites (passes/driver/instrument.py: the
pattern's class, or a table rule's summary), the GE ops it matches, and the
op chains it needs, producers first:

  * a table rule (`RewriteRule` of ge_dialect/patterns.py, op-fusion's
    `FusionRule`): its root and the `Op(...)` heads below it, each path from
    the root down through `Op` operands one chain:
    `Op(ge.ReluOp, Op(ge.AddOp))` -> (ge.add, ge.relu);
  * a `RewritePattern` class: the root op of its `op_type_rewrite_pattern`
    annotation, and the producers its match tests for (the GE op classes
    its source passes to `isinstance`; without any, every GE op class it
    names), each a chain (producer, root). Reading the source is a guess, a
    good one for the usual pattern; a rule's other conditions (a constant
    of zero, equal shapes) are left to chance.

Which passes are under test (`targets`): those the caller names; else the
passes plugins define and the table rules plugins register; else, with no
plugin, every pass of the pipeline (a ge-O<n> level stands for its stages).
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from types import UnionType
from typing import Union, get_args, get_origin

from xdsl.passes import ModulePass, PassPipeline
from xdsl.pattern_rewriter import RewritePattern

from ge_dialect import canonicalization, ge
from ge_dialect.patterns import Maybe, Op, RewriteRule
from passes import get_all_passes, op_fusion
from passes.driver.instrument import pattern_name
from passes.driver.plugins import plugin_of
from passes.pipelines import OptLevelPass


@dataclass(frozen=True)
class Target:
    """One pattern or table rule of a pass under test."""

    pass_name: str                        # the pass that applies it
    name: str                             # what the pass driver credits its rewrites to
    ops: frozenset[str]                   # GE op names it matches ("ge.relu")
    chains: tuple[tuple[str, ...], ...]   # op chains it needs, producers first, root last


def targets(pipeline: str, aim: Sequence[str] | None = None) -> list[Target]:
    """The targets of the passes under test in `pipeline` (see the module doc);
    `aim` names them, and naming a pass the pipeline does not run is a ValueError."""
    passes = list(_flat(PassPipeline.parse_spec(get_all_passes(), pipeline).passes))
    names = [p.name for p in passes]
    if aim is not None:
        unknown = [a for a in aim if a not in names]
        if unknown:
            raise ValueError(f"--aim names {', '.join(unknown)}, which '{pipeline}' does not "
                             f"run (its passes: {', '.join(dict.fromkeys(names))})")
        return list(dict.fromkeys(t for p in passes if p.name in aim for t in pass_targets(p)))
    found = [t for p in passes if plugin_of(p.name) is not None for t in pass_targets(p)]
    if "canonicalize" in names:
        found += [rule_target("canonicalize", r) for r in canonicalization.EXTRA_RULES]
    if "op-fusion" in names:
        found += [rule_target("op-fusion", r)
                  for r in (*op_fusion.FIRST_RULES, *op_fusion.EXTRA_RULES)]
    found = found or [t for p in passes for t in pass_targets(p)]
    return list(dict.fromkeys(found))  # a pass run twice is one pass under test


def _flat(passes: Sequence[ModulePass]) -> Iterator[ModulePass]:
    """The passes, each ge-O<n> level replaced by its stages."""
    registry = get_all_passes()
    for p in passes:
        if isinstance(p, OptLevelPass):
            yield from (registry[name]()() for name in p.stages())
        else:
            yield p


def pass_targets(p: ModulePass) -> list[Target]:
    """The targets of one pass: the rule tables of canonicalize and op-fusion, a
    plugin's PATTERNS, else the pattern classes and rules its module defines."""
    if p.name == "canonicalize":
        rules = (*canonicalization.RULES, *canonicalization.EXTRA_RULES)
        return [rule_target(p.name, r) for r in rules]
    if p.name == "op-fusion":
        return [rule_target(p.name, r) for r in op_fusion.all_rules()]
    patterns = getattr(type(p), "patterns", None)
    if patterns is None:
        found = vars(inspect.getmodule(type(p)))
        patterns = [v for v in found.values() if isinstance(v, RewriteRule) or (
            isinstance(v, type) and issubclass(v, RewritePattern) and v is not RewritePattern
            and v.__module__ == type(p).__module__)]
    return [rule_target(p.name, x) if isinstance(x, RewriteRule) else class_target(p.name, x)
            for x in patterns]


def rule_target(pass_name: str, rule) -> Target:
    """A RewriteRule or FusionRule: its pattern tree's op heads and root-to-leaf chains."""
    trees = rule.pattern if isinstance(rule.pattern, tuple) else (rule.pattern,)
    ops = frozenset(name for tree in trees for name in _heads(tree))
    chains = tuple(dict.fromkeys(tuple(reversed(path)) for tree in trees
                                 for path in _paths(tree)))
    return Target(pass_name, rule.name, ops, chains)


def _kinds(kind) -> tuple:
    return kind if isinstance(kind, tuple) else (kind,)


def _heads(pattern) -> Iterator[str]:
    if isinstance(pattern, Maybe):
        pattern = pattern.op
    if isinstance(pattern, Op):
        yield from (k.name for k in _kinds(pattern.kind))
        for operand in pattern.operands:
            yield from _heads(operand)


def _paths(pattern) -> Iterator[tuple[str, ...]]:
    """Root first; an alternative of kinds stands for its first one."""
    if isinstance(pattern, Maybe):
        pattern = pattern.op
    if not isinstance(pattern, Op):
        return
    head = _kinds(pattern.kind)[0].name
    below = [path for operand in pattern.operands for path in _paths(operand)]
    yield from ((head, *path) for path in below) if below else [(head,)]


def class_target(pass_name: str, pattern) -> Target:
    """A RewritePattern (class or instance): its annotated root and the ops its source names."""
    cls = pattern if isinstance(pattern, type) else type(pattern)
    roots = _root_ops(cls)
    tested, named = _named_ops(cls)
    producers = [n for n in (tested or [n for n in named if n not in roots])
                 if n != ge.ConstOp.name]  # the menu draws constants anyway
    chains = tuple((p, r) for r in roots for p in producers) or tuple((r,) for r in roots)
    name = pattern_name(pattern) if not isinstance(pattern, type) else cls.__name__
    return Target(pass_name, name, frozenset(roots) | frozenset(producers), chains)


def _root_ops(cls: type) -> tuple[str, ...]:
    """The op types xDSL's op_type_rewrite_pattern matches (kept in its closure),
    or the `op` parameter's annotation of an undecorated match_and_rewrite."""
    method = cls.match_and_rewrite
    try:
        kind = inspect.getclosurevars(method).nonlocals.get("expected_type")
        if kind is None:
            params = list(inspect.signature(method, eval_str=True).parameters.values())
            kind = params[-2].annotation
    except (TypeError, ValueError, NameError, IndexError):
        return ()
    kinds = get_args(kind) if get_origin(kind) in (Union, UnionType) else (kind,)
    return tuple(k.name for k in kinds if k in _GE_OPS.values())


def _named_ops(cls: type) -> tuple[list[str], list[str]]:
    """The GE ops the class's source tests operands for (`isinstance(v, ge.AddOp)`),
    and all it names, each in order of appearance."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    except (OSError, TypeError, SyntaxError):
        return [], []
    tests = [n.args[1] for n in ast.walk(tree) if isinstance(n, ast.Call)
             and isinstance(n.func, ast.Name) and n.func.id == "isinstance" and len(n.args) == 2]
    return _ge_names(tests), _ge_names([tree])


def _ge_names(trees: list[ast.AST]) -> list[str]:
    nodes = sorted((n for t in trees for n in ast.walk(t)
                    if isinstance(n, ast.Attribute | ast.Name)),
                   key=lambda n: (n.lineno, n.col_offset))
    words = [n.attr if isinstance(n, ast.Attribute) else n.id for n in nodes]
    return list(dict.fromkeys(_GE_OPS[w].name for w in words if w in _GE_OPS))


# class name -> GE op class, for reading a pattern's source
_GE_OPS: dict[str, type] = {op.__name__: op for op in ge.GE.operations}
