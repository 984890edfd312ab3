"""Pass instrumentation: guard rails, timing, IR dumps, rewrite counts, a rewrite budget.

One mechanism serves every tool. While a `Session` is active, every
`PatternRewriteWalker` (the driver of every pattern-based pass: ours, xDSL's
canonicalize, plugins') runs its pattern through an observer that knows which
pattern rewrote which op inside which pass. Passes need no change; with no
session active nothing is wrapped and nothing costs.

    with instrument.session(verify_each=True, timing=True) as s:
        PassPipeline(passes, callback=instrument.pipeline_callback()).apply(ctx, module)
    print(s.timing_table())

What a session gives:

  * guard rails (`verify_each`): a pattern that reports success without
    changing the IR, and a rewrite that does not converge within a cap
    (naming the patterns that kept firing), raise GuardError; a pass that
    plans the device (a pass with `plans = True`) and turns a correct plan into a broken
    one (ge_dialect/plan_verifier.py) fails verification. Verification
    after each pass, naming the pass, is done by `pipeline_callback` always.
  * `passes`: one PassRecord per pass run (nested passes of ge-O<n> too), with
    its time and its rewrites per pattern (`timing_table`, `statistics_table`);
  * IR dumps after all or some passes (`print_after`);
  * `limit`: only the first N rewrites are applied, the rest are skipped (as
    LLVM's -opt-bisect-limit), which is how ge-bisect finds the first bad one;
    passes that edit IR directly count theirs by asking `may_rewrite`;
  * `applications`: every rewrite, numbered, with its pattern and op;
  * `origin`: which rewrite made each op, so a verifier failure after a pass
    names the failing op's pattern (PassVerifyError);
  * source locations kept: an op a rewrite inserts without a location takes
    the matched op's, a group (an op with a region) its members', fused.

A "rewrite" is one visit of an op in which the pass's pattern acted. Inside a
GreedyRewritePatternApplier it is credited to the sub-pattern that acted, or
to `fold` / `erase-dead-op` when the applier itself folded or removed the op.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import sys
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import TextIO

from xdsl.dialects.builtin import FusedLoc, LocationAttr, ModuleOp, NoneAttr, UnknownLoc
from xdsl.ir import Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.transforms.canonicalize import CanonicalizationRewritePattern
from xdsl.utils.exceptions import VerifyException

from ge_dialect.canonicalization import patterns_for
from ge_dialect.plan_verifier import check_module, summary
from ge_dialect.printing import format_ir
from passes import canonical_name
from passes.driver import gc_tuning


class GuardError(Exception):
    """A pass broke a guard rail: the message names the pass and the pattern."""


class PassVerifyError(VerifyException):
    """The IR after a pass does not verify: the pass's bug, not the input's.

    The message names the pass, the op that fails (with its source location)
    and, when a pattern rewrite made or changed that op, the pattern.
    """

    def __init__(self, message: str, pass_name: str, op: str | None = None,
                 made_by: Application | None = None):
        super().__init__(message)
        self.pass_name, self.op, self.made_by = pass_name, op, made_by


@dataclass
class Application:
    """One rewrite: the `index`-th of the session, by `pattern` on `op`."""

    index: int
    pass_path: str
    pattern: str
    op: str                 # "ge.relu %relu_1"
    location: str | None    # the op's source location, if the importer recorded one
    text: str | None = None  # the op as printed before the rewrite (Session.capture)
    source: str | None = None  # "file.py:LINE": the pattern class, or may_rewrite's caller


@dataclass
class PassRecord:
    path: str               # "ge-O3/canonicalize" for a stage of a level
    depth: int
    seconds: float = 0.0
    rewrites: Counter = field(default_factory=Counter)
    first_rewrite: int = 0  # session rewrite count when the pass started
    last_rewrite: int = 0   # ... and when it ended
    leaf: bool = True       # ran no nested passes


@dataclass
class Session:
    verify_each: bool = False
    print_after_all: bool = False
    print_after: frozenset[str] = frozenset()
    print_after_change: bool = False      # print after a pass only if it changed the IR
    print_diff: bool = False              # ... as a unified diff against the IR before it
    format_ir: Callable[[ModuleOp], str] = str
    stream: TextIO | None = None          # IR dumps; None means stderr
    limit: int | None = None              # apply only the first `limit` rewrites
    capture: int | None = None            # keep the printed op of this rewrite
    max_rewrites: int | None = None       # non-convergence cap; None: 10 per op + 100
    startup: float | None = None          # seconds before the first pass (imports, parsing)
    before_pass: Callable[[ModulePass, ModuleOp], None] | None = None
    after_pass: Callable[[PassRecord, ModulePass, ModuleOp], None] | None = None

    passes: list[PassRecord] = field(default_factory=list)
    plan_was_correct: bool = False  # the input of the running plan pass
    applications: list[Application] = field(default_factory=list)
    # The last rewrite that inserted or modified each op, so a verifier
    # failure after the pass can name the pattern behind the failing op.
    origin: dict[Operation, Application] = field(default_factory=dict)
    rewrites: int = 0
    overhead: float = 0.0  # seconds spent between passes (verifying, dumping IR, hooks)
    _stack: list[tuple[PassRecord, float]] = field(default_factory=list)
    _before: list[str | None] = field(default_factory=list)  # IR text before each open pass

    # ---- pass boundaries, driven by pipeline_callback

    def pass_started(self, p: ModulePass, module: ModuleOp) -> None:
        if self._stack:
            self._stack[-1][0].leaf = False
        path = f"{self._stack[-1][0].path}/{p.name}" if self._stack else p.name
        record = PassRecord(path, len(self._stack), first_rewrite=self.rewrites)
        self.passes.append(record)
        if self.before_pass is not None:
            self.before_pass(p, module)
        self._before.append(self.format_ir(module) if self._compares else None)
        self._stack.append((record, time.perf_counter() - self.overhead))

    def pass_finished(self, p: ModulePass, module: ModuleOp) -> PassRecord:
        record, start = self._stack.pop()
        # A level's time excludes what its stages spent between passes.
        record.seconds = time.perf_counter() - self.overhead - start
        record.last_rewrite = self.rewrites
        before = self._before.pop()
        if self._compares:
            self._print_change(record, before, self.format_ir(module))
        elif self.print_after_all or _matches(p.name, self.print_after):
            out = self.stream or sys.stderr
            out.write(f"// -----// IR Dump After {record.path} //----- //\n")
            out.write(self.format_ir(module).rstrip("\n") + "\n\n")
        return record

    @property
    def _compares(self) -> bool:
        return self.print_after_change or self.print_diff

    def _print_change(self, record: PassRecord, before: str, after: str) -> None:
        """After a pass that changed the IR: all of it, or its diff (--print-ir-diff);
        a pass that changed nothing prints nothing. A level prints only its stages."""
        if before == after or not record.leaf:
            return
        before, after = before.rstrip("\n") + "\n", after.rstrip("\n") + "\n"
        out = self.stream or sys.stderr
        if not self.print_diff:
            out.write(f"// -----// IR Dump After {record.path} (changed) //----- //\n")
            out.write(after.rstrip("\n") + "\n\n")
            return
        out.write(f"// -----// IR Diff After {record.path} //----- //\n")
        out.writelines(difflib.unified_diff(before.splitlines(True), after.splitlines(True),
                                            f"before {record.path}", f"after {record.path}",
                                            n=1))
        out.write("\n")

    @property
    def current_pass(self) -> str:
        return self._stack[-1][0].path if self._stack else "<no pass>"

    # ---- rewrites, driven by _Observer

    def exhausted(self) -> bool:
        return self.limit is not None and self.rewrites >= self.limit

    def record(self, pattern: str, op: str, location: str | None,
               text: str | None, source: str | None = None) -> Application:
        self.rewrites += 1
        if self._stack:
            self._stack[-1][0].rewrites[pattern] += 1
        app = Application(self.rewrites, self.current_pass, pattern, op, location, text, source)
        self.applications.append(app)
        return app

    # ---- reports

    def timing_table(self) -> str:
        total = sum(r.seconds for r in self.passes if r.depth == 0) or 1e-12
        lines = ["===- pass timing (wall clock; verifying and dumping IR excluded) -===",
                 f"  {'seconds':>9}  {'%':>6}  pass"]
        for r in self.passes:
            lines.append(f"  {r.seconds:9.4f}  {100 * r.seconds / total:6.1f}  "
                         f"{'  ' * r.depth}{r.path.rsplit('/', 1)[-1]}")
        lines.append(f"  {total:9.4f}  {100.0:6.1f}  total")
        if self.startup is not None:
            lines.append(f"  {self.startup:9.4f}          start-up before the first pass: "
                         "imports, parsing the input, building the pipeline (not in the total)")
        return "\n".join(lines) + "\n"

    def statistics_table(self) -> str:
        lines = ["===- pass statistics (rewrites per pattern) -==="]
        for r in self.passes:
            if not r.leaf and not r.rewrites:
                continue
            lines.append(f"  {r.path}")
            for pattern, n in sorted(r.rewrites.items(), key=lambda kv: (-kv[1], kv[0])):
                lines.append(f"    {n:6d}  {pattern}")
            if not r.rewrites:
                lines.append("         (no pattern rewrites)")
        return "\n".join(lines) + "\n"


def _matches(name: str, wanted: frozenset[str]) -> bool:
    if not wanted:
        return False
    return name in wanted or canonical_name(name) in wanted


def describe(op: Operation, scope: Region | None = None) -> str:
    """`ge.relu %relu`; with `scope`, the result's name as printing `scope` shows it
    (`%relu_1` for the second value hinted `relu`), which costs a walk."""
    if not op.results:
        return op.name
    if scope is None:
        hint = op.results[0].name_hint
        return f"{op.name} %{hint}" if hint else op.name
    return f"{op.name} %{printed_name(op.results[0], scope)}"


def printed_name(value: SSAValue, scope: Region) -> str:
    """The name xDSL's printer gives `value` when printing `scope`, where hints
    that repeat get `_1`, `_2`, ... in order of definition."""
    seen: Counter = Counter()
    unnamed = 0
    for o in scope.walk():
        defined = [*o.results, *(a for r in o.regions for b in r.blocks for a in b.args)]
        for v in defined:
            if v.name_hint:
                name = v.name_hint + (f"_{seen[v.name_hint]}" if seen[v.name_hint] else "")
                seen[v.name_hint] += 1
            else:
                name, unnamed = str(unnamed), unnamed + 1
            if v is value:
                return name
    return value.name_hint or "?"


def inherited_location(op: Operation, matched: LocationAttr) -> LocationAttr:
    """The location a new op gets when its pattern gave it none: a group
    (an op with a region, e.g. ge.fused) fuses its members' locations, any
    other op takes the location of the op the pattern matched."""
    if op.regions:
        inner: list[LocationAttr] = []
        for member in op.walk():
            loc = member.location
            if member is not op and not isinstance(loc, UnknownLoc) and loc not in inner:
                inner.append(loc)
        if len(inner) > 1:
            return FusedLoc(inner, NoneAttr())
        if inner:
            return inner[0]
    return matched


def location_of(op: Operation) -> str | None:
    loc = getattr(op, "location", None)
    return None if loc is None or isinstance(loc, UnknownLoc) else str(loc)


# ---- the rewrite counter for passes that edit IR directly

def may_rewrite(op: Operation, rewrite: str) -> bool:
    """Ask before one rewrite of `op` in a pass that does not use the rewrite
    driver (a PatternRewriteWalker is counted without asking); skip the
    rewrite when this says False.

        for op in list(block.ops):
            if matches(op) and instrument.may_rewrite(op, "DropMulByOne"):
                ...rewrite op...

    Like MLIR's -debug-counter: the rewrite is counted and recorded, and
    under a budget (`Session.limit`) only the first rewrites are allowed, so
    ge-bisect can narrow a wrong result to the single rewrite. Without an
    active session it costs one call and always says True.
    """
    s = active()
    if s is None:
        return True
    if s.exhausted():
        return False
    what, text, scope = describe(op), None, _top_region(op)
    if s.capture == s.rewrites + 1 and scope is not None:
        what, text = describe(op, scope), print_in_context(op, scope)
    caller = sys._getframe(1)
    app = s.record(rewrite, what, location_of(op), text,
                   f"{caller.f_code.co_filename}:{caller.f_lineno}")
    s.origin[op] = app
    return True


def _top_region(op: Operation) -> Region | None:
    """The body of the module holding `op` (the scope value names are printed in)."""
    top = op
    while top.parent_op() is not None:
        top = top.parent_op()
    return top.regions[0] if top is not op and top.regions else None


# ---- activation

_SESSIONS: list[Session] = []
# The plugin files loaded in this process (passes/driver/plugins.py adds each
# as it loads it): a change made from one of their lines is blamed there.
PLUGIN_FILES: set[str] = set()
_WALK = PatternRewriteWalker.rewrite_region


def active() -> Session | None:
    return _SESSIONS[-1] if _SESSIONS else None


@contextmanager
def session(**options) -> Iterator[Session]:
    """Activate a Session (they nest; the innermost one observes)."""
    s = Session(**options)
    if not _SESSIONS:
        PatternRewriteWalker.rewrite_region = _observed_rewrite_region
    _SESSIONS.append(s)
    try:
        yield s
    finally:
        _SESSIONS.remove(s)
        if not _SESSIONS:
            PatternRewriteWalker.rewrite_region = _WALK


def pipeline_callback(inner: Callable | None = None) -> Callable:
    """A PassPipeline callback: verify after each pass, naming it, and feed the session.

    `inner` is a callback to keep (ge-opt's, which verifies unless
    --disable-verify); without one the module is verified here.
    """

    def callback(prev: ModulePass | None, module: ModuleOp, nxt: ModulePass | None) -> None:
        s = active()
        entered = time.perf_counter()
        record = s.pass_finished(prev, module) if s is not None and prev is not None else None
        try:
            if inner is not None:
                inner(prev, module, nxt)
            else:
                module.verify()
            if s is not None and s.verify_each:
                _check_plan(s, prev, module, nxt)
        except VerifyException as e:
            if prev is None or isinstance(e, PassVerifyError):
                raise
            raise explain_failure(prev.name, module, e, s) from e
        if record is not None and s.after_pass is not None:
            s.after_pass(record, prev, module)
        gc_tuning.checkpoint()
        if s is not None:
            s.overhead += time.perf_counter() - entered
            if nxt is not None:
                s.pass_started(nxt, module)

    return callback


def explain_failure(pass_name: str, module: ModuleOp, error: VerifyException,
                    s: Session | None) -> PassVerifyError:
    """A PassVerifyError for `error`: the failing op, where it came from in the
    source, and the pattern rewrite that made it (or its operands' producer)."""
    reason = " ".join(line.strip() for line in str(error).splitlines() if line.strip())
    op = failing_op(module, str(error))
    if op is None:
        return PassVerifyError(f"IR after pass '{pass_name}' does not verify: {reason}",
                               pass_name)
    what = describe(op, module.body)
    where = location_of(op)
    made = None
    if s is not None:
        made = s.origin.get(op)
        if made is None:  # the op is untouched: blame the rewrite that made an operand
            made = next((s.origin[v.owner] for v in op.operands
                         if isinstance(v.owner, Operation) and v.owner in s.origin), None)
    by = ""
    if made is not None:
        by = f", made by pattern {made.pattern} (rewrite #{made.index}, on {made.op}"
        by += f", {made.source})" if made.source else ")"
    at = f" at {where}" if where else ""
    return PassVerifyError(
        f"IR after pass '{pass_name}' does not verify: {what}{at}{by}: {reason}",
        pass_name, what, made)


def failing_op(module: ModuleOp, message: str) -> Operation | None:
    """The op whose own verifier fails, preferring the one that gave `message`.

    xDSL's VerifyException does not carry the op, so each op is verified on
    its own (only after a failure, so the cost does not matter)."""
    first = None
    for op in module.walk():
        try:
            op.verify(verify_nested_ops=False)
        except Exception as e:  # noqa: BLE001 - any verifier complaint counts
            text = str(e)
            if text and (text in message or message in text):
                return op
            first = first or op
    return first


def _check_plan(s: Session, prev: ModulePass | None, module: ModuleOp,
                nxt: ModulePass | None) -> None:
    """A pass that plans (`plans = True`: it writes memory plans, streams or
    events) must not break a correct plan; a broken input plan is not its fault."""
    if getattr(prev, "plans", False) and s.plan_was_correct:
        problems = check_module(module)
        if problems:
            raise VerifyException(f"its device plan is broken: {summary(problems)}")
    if getattr(nxt, "plans", False):
        s.plan_was_correct = not check_module(module)


# ---- the observer

def _observed_rewrite_region(walker: PatternRewriteWalker, region: Region) -> bool:
    s = active()
    if s is None:
        return _WALK(walker, region)
    observer = _Observer(walker.pattern, s, region)
    saved = walker.pattern
    walker.pattern = observer
    try:
        changed = _WALK(walker, region)
    finally:
        walker.pattern = saved
    if observer.failure is not None:
        raise observer.failure
    return changed


class _Named(RewritePattern):
    """Runs `pattern`; if it is the one that acted, says so to the observer."""

    def __init__(self, pattern: RewritePattern, observer: _Observer):
        self.pattern, self.observer = pattern, observer

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        done = rewriter.has_done_action
        self.pattern.match_and_rewrite(op, rewriter)
        if rewriter.has_done_action and not done and self.observer.actor is None:
            self.observer.actor = pattern_name(self.pattern)
            self.observer.actor_source = (getattr(self.pattern, "defined_at", None)
                                          or source_of(type(self.pattern)))


@functools.cache
def source_of(cls: type) -> str | None:
    """`file.py:LINE` of the pattern class, to blame a pattern by place (its
    match_and_rewrite may be wrapped by xDSL's decorator, so the class it is)."""
    try:
        return f"{inspect.getsourcefile(cls)}:{inspect.getsourcelines(cls)[1]}"
    except (TypeError, OSError):
        return None


def pattern_name(pattern: RewritePattern) -> str:
    """A declarative rule's own summary ("x + 0 -> x"), else the pattern's class."""
    name = getattr(pattern, "name", None)
    return name if isinstance(name, str) else type(pattern).__name__


class _Canonicalization(RewritePattern):
    """The canonicalization dispatcher (xDSL's, or ours over the GE rule table),
    crediting the pattern that acted. Same patterns and order as
    TableCanonicalization; the trivially-dead check of xDSL's inner applier is
    left out because the outer applier has already done it.
    """

    def __init__(self, observer: _Observer):
        self.observer = observer

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        for pattern in patterns_for(op):
            pattern.match_and_rewrite(op, rewriter)
            if rewriter.has_done_action:
                if self.observer.actor is None:
                    self.observer.actor = pattern_name(pattern)
                    # a rule a plugin registered carries its plugin line
                    self.observer.actor_source = (getattr(pattern, "defined_at", None)
                                                  or source_of(type(pattern)))
                return


class _Observer(RewritePattern):
    """Wraps a walker's pattern: counts, budgets and checks each rewrite."""

    def __init__(self, pattern: RewritePattern, s: Session, region: Region):
        self.session, self.region = s, region
        self.pattern = self._credited(pattern)
        self.actor: str | None = None
        self.actor_source: str | None = None
        self.failure: GuardError | None = None
        self.count = 0
        self.sources: dict[str, str | None] = {}  # pattern -> where it is written
        self.recent: deque[tuple[str, str]] = deque(maxlen=100)
        self.cap = None
        if s.verify_each:
            self.cap = s.max_rewrites or 10 * sum(1 for _ in region.walk()) + 100

    def _credited(self, pattern: RewritePattern) -> RewritePattern:
        if isinstance(pattern, GreedyRewritePatternApplier):
            return replace(pattern, rewrite_patterns=[
                self._credited(p) for p in pattern.rewrite_patterns])
        if isinstance(pattern, CanonicalizationRewritePattern):
            return _Canonicalization(self)
        return _Named(pattern, self)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        s = self.session
        if self.failure is not None or s.exhausted():
            return
        before = local_signature(op) if s.verify_each else None
        changes = _Changes(rewriter)
        had_uses = any(r.uses for r in op.results)
        source_loc = op.location
        what, where = describe(op), location_of(op)  # before the rewrite renames or erases it
        text = None
        if s.capture == s.rewrites + 1:
            what, text = describe(op, self.region), print_in_context(op, self.region)
        self.actor = self.actor_source = None
        try:
            self.pattern.match_and_rewrite(op, rewriter)
        finally:
            changes.detach()
        if not rewriter.has_done_action:
            return
        label = self.actor or ("fold" if had_uses else "erase-dead-op")
        # The plugin line that made the change, when a plugin's code made it.
        app = s.record(label, what, where, text, changes.site or self.actor_source)
        self.sources[label] = app.source
        for made in (*changes.inserted, *changes.modified):
            s.origin[made] = app
        for made in changes.inserted:
            if isinstance(made.location, UnknownLoc) and made.parent is not None:
                made.location = inherited_location(made, source_loc)
        if s.verify_each:
            self._check(app, op, before, changes)

    def _check(self, app: Application, op: Operation, before: tuple,
               changes: _Changes) -> None:
        if changes.unchanged(op, before):
            self.failure = GuardError(
                f"pass '{app.pass_path}': pattern {app.pattern} reported a rewrite of "
                f"{app.op} but the IR did not change (report success only after "
                "changing the IR)")
            self.failure.sources = {app.pattern: app.source}
            return
        self.count += 1
        self.recent.append((app.pattern, app.op))
        if self.cap is not None and self.count > self.cap:
            firing = Counter(p for p, _ in self.recent).most_common()
            last = {p: o for p, o in self.recent}
            self.failure = GuardError(
                f"pass '{app.pass_path}': rewriting did not converge within {self.cap} "
                "rewrites; still firing: " + ", ".join(
                    f"{p} ({n}x, last on {last[p]})" for p, n in firing))
            self.failure.sources = {p: self.sources.get(p) for p, _ in firing}



class _Changes:
    """What one rewrite did, as the rewriter's listener reports it.

    Checking "did the IR change" this way costs what the rewrite touched;
    fingerprinting the whole function before and after each rewrite costs
    the function's size per rewrite, quadratic over a pass.
    """

    def __init__(self, rewriter: PatternRewriter):
        self.rewriter = rewriter
        self.inserted: list[Operation] = []
        self.removed: list[Operation] = []
        self.modified: list[Operation] = []
        self.other = False  # replaced results or created blocks
        self.site: str | None = None  # the plugin line behind the first change
        self._plugin_files = set(PLUGIN_FILES)
        self._hooks = [
            (rewriter.operation_insertion_handler, self._noting(self.inserted.append)),
            (rewriter.operation_removal_handler, self._noting(self.removed.append)),
            (rewriter.operation_modification_handler, self._noting(self.modified.append)),
            (rewriter.operation_replacement_handler, self._replaced),
            (rewriter.block_creation_handler, self._block),
        ]
        for handlers, hook in self._hooks:
            handlers.append(hook)

    def _replaced(self, op: Operation, new_results) -> None:
        self.other = True
        self._note_site()

    def _noting(self, hook):
        if not self._plugin_files:
            return hook

        def noted(op):
            hook(op)
            self._note_site()
        return noted

    def _note_site(self) -> None:
        """Remember the innermost frame in a plugin file (its `rewriter.replace(...)`
        line), so blame names that line rather than the pattern's class."""
        if self.site is not None or not self._plugin_files:
            return
        from pathlib import Path

        frame = sys._getframe(1)
        while frame is not None:
            file = frame.f_code.co_filename
            if file in self._plugin_files or str(Path(file).resolve()) in self._plugin_files:
                self.site = f"{Path(file).resolve()}:{frame.f_lineno}"
                return
            frame = frame.f_back

    def _block(self, block) -> None:
        self.other = True

    def detach(self) -> None:
        for handlers, hook in self._hooks:
            handlers.remove(hook)

    def unchanged(self, op: Operation, before: tuple) -> bool:
        """True if the rewrite provably left the IR as it was: nothing replaced,
        every inserted op removed again, and the only modified op the matched
        one, with its structure as before. Anything else counts as a change
        (a replacement by an identical clone then shows as non-convergence)."""
        if self.other:
            return False
        removed = set(self.removed)
        if any(o not in removed for o in self.inserted):
            return False
        inserted = set(self.inserted)
        if any(o not in inserted for o in self.removed):
            return False
        if any(o is not op for o in self.modified):
            return False
        return before is not None and op.parent is not None and local_signature(op) == before


def local_signature(op: Operation) -> tuple | None:
    """`op` itself, operands by identity; None for an op with regions (a function,
    a fused group), whose structure would cost its size to compare: a rewrite
    that reports a change of such an op is taken at its word."""
    if op.regions:
        return None
    return (op.name, tuple(id(v) for v in op.operands), tuple(r.type for r in op.results),
            tuple(op.properties.items()), tuple(op.attributes.items()))


def fingerprint(op: Operation) -> tuple:
    """The structure of `op` and everything nested in it, ignoring value names.

    Values are numbered by definition order, so an op replaced by an identical
    clone gives the same fingerprint while any real rewrite does not.
    """
    ops = list(op.walk())
    numbers: dict[SSAValue, int] = {}
    for o in ops:
        for r in o.regions:
            for b in r.blocks:
                for a in b.args:
                    numbers[a] = len(numbers)
        for res in o.results:
            numbers[res] = len(numbers)
    return tuple(
        (o.name, tuple(numbers.get(v, -id(v)) for v in o.operands),
         tuple(r.type for r in o.results), tuple(o.properties.items()),
         tuple(o.attributes.items()),
         tuple(tuple(a.type for a in b.args) for r in o.regions for b in r.blocks))
        for o in ops)


def print_in_context(op: Operation, scope: Region) -> str:
    """`op` as it reads when all of `scope` is printed (so value names match),
    weights elided; its nested regions included."""
    root = scope.parent_op()
    if root is None or not op.results:
        return format_ir(op, 16).strip()
    name = printed_name(op.results[0], scope)
    lines = format_ir(root, 16).splitlines()
    start = next((i for i, line in enumerate(lines)
                  if line.lstrip().startswith((f"%{name} =", f"%{name},"))), None)
    if start is None:
        return format_ir(op, 16).strip()
    indent = len(lines[start]) - len(lines[start].lstrip())
    end = start
    if lines[start].endswith("{"):  # up to the brace that closes its region
        end = next((j for j in range(start + 1, len(lines))
                    if lines[j] == " " * indent + "}"), start)
    return "\n".join(line[indent:] for line in lines[start:end + 1])
