"""Numerical bisection: which pass, and which rewrite inside it, broke the numbers.

    result = bisect(module, inputs, "ge-O3,lower-to-ascend,memory-reuse")

The reference is the GE reference evaluator on the graph as given (before
any pass). The pipeline runs once under a passes.driver.instrument session that
runs the graph after every leaf pass (the stages of a ge-O<n> level count one
by one): GE IR on the reference evaluator, lowered and planned Ascend IR on
the runtime (`run_graph`), so lowering and the device plan are checked too.
The first pass whose outputs move past the tolerance is the bad pass. That
pass is then re-run from a snapshot of its input with a rewrite budget (like
LLVM's -opt-bisect-limit and MLIR's -debug-counter): a binary search over the
budget finds the first rewrite after which the outputs are off. Pattern
rewrites are counted by the session; a pass that edits IR directly counts its
own by asking `instrument.may_rewrite`; one that counts nothing (a lowering)
is itself the finding. It assumes that once a rewrite breaks the numbers,
later rewrites do not repair them.

A pass is bad when max |out - ref| > tol * max(1, max |ref|): absolute for
outputs of magnitude up to 1, relative above. The default tol is by the
outputs' dtype (TOLERANCE). `name_by_input` gives ops without a source
location one from the input, so findings name the input's ops.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import torch
from xdsl.dialects import func
from xdsl.dialects.builtin import (FileLineColLoc, IntAttr, ModuleOp, NameLoc, NoneAttr,
                                   StringAttr, UnknownLoc)
from xdsl.passes import ModulePass, PassPipeline

from passes import get_all_passes
from passes.driver import instrument
from passes.driver.instrument import Application, PassRecord, printed_name
from passes.driver.runner import run_pipeline
from runtime.reference import evaluate


@dataclass
class Step:
    """The error after one leaf pass; `note` when it could not be evaluated."""

    path: str
    error: float | None
    note: str | None = None


@dataclass
class BadRewrite:
    application: Application
    of: int                  # rewrites the pass made in all
    error_before: float
    error_after: float


@dataclass
class BisectResult:
    reference_scale: float
    tol: float = 1e-5
    steps: list[Step] = field(default_factory=list)
    bad_pass: str | None = None
    bad_pass_name: str | None = None
    error_before: float = 0.0
    error_after: float = 0.0
    rewrite: BadRewrite | None = None
    rewrites: int = 0               # counted rewrites of the bad pass
    reached_device: bool = False    # lowered IR was run on the runtime


class _Found(Exception):
    """Stops the pipeline at the first bad pass."""

    def __init__(self, record: PassRecord, p: ModulePass, snapshot: ModuleOp):
        self.record, self.pass_, self.snapshot = record, p, snapshot


class _Stop(Exception):
    """The IR can no longer be run (e.g. split into pipeline stages): stop checking."""


# Default tolerance by the outputs' dtype, relative to their scale: f32 tight
# enough that a constant rounded through f16 (relative error up to 2**-11)
# shows, half precisions as loose as their 8 and 11 bits of mantissa demand.
TOLERANCE = {torch.float64: 1e-9, torch.float32: 1e-5, torch.float16: 1e-2,
             torch.bfloat16: 5e-2}


def default_tolerance(outputs: list[torch.Tensor]) -> float:
    """The loosest tolerance among the outputs' dtypes (exact for integers)."""
    return max((TOLERANCE.get(o.dtype, 0.0) for o in outputs), default=1e-5)


def run_graph(module: ModuleOp, inputs) -> list[torch.Tensor]:
    """The outputs of `module` at any level: GE IR through the reference
    evaluator, lowered or planned Ascend IR through the runtime (so the
    lowering and the device plan are checked by running them)."""
    from ge_dialect import ascend, find_func
    from runtime.executor import Executable

    if ascend.arena_size(find_func(module, "main")) is None:
        return evaluate(module, *inputs)
    return Executable(module).run(*inputs)


def _lowered(module: ModuleOp) -> bool:
    from ge_dialect import ascend

    return any(ascend.arena_size(fn) is not None for fn in module.ops
               if isinstance(fn, func.FuncOp))


def max_error(module: ModuleOp, inputs, reference: list[torch.Tensor]) -> float:
    outputs = run_graph(module, inputs)
    return max((float((o.double() - r.double()).abs().max()) if o.numel() else 0.0)
               for o, r in zip(outputs, reference, strict=True))


def name_by_input(module: ModuleOp, path: str | None = None) -> None:
    """Give every op that has no source location one naming it in the input:
    `loc("graph.mlir":LINE:COL)` where `path` (the input file) defines its
    result, else `loc("%name")` with its name as the input prints it. Passes
    keep locations (passes/driver/instrument.py), so the op a finding names
    is the input's op, not a name from the middle of the pipeline."""
    lines = Path(path).read_text().splitlines() if path else []
    defined: dict[str, tuple[int, int]] = {}
    for number, line in enumerate(lines, 1):
        match = _DEFINITION.match(line)
        if match:
            for name in re.findall(r"%([\w.$-]+)", match.group(2)):
                defined.setdefault(name, (number, len(match.group(1)) + 1))
    for op in module.walk():
        if not op.results or not isinstance(op.location, UnknownLoc):
            continue
        name = printed_name(op.results[0], module.body)
        if name in defined:
            line, column = defined[name]
            op.location = FileLineColLoc(StringAttr(path), IntAttr(line), IntAttr(column))
        else:
            op.location = NameLoc(StringAttr(f"%{name}"), NoneAttr())


_DEFINITION = re.compile(r"^(\s*)(%[\w.$-]+(?::\d+)?(?:\s*,\s*%[\w.$-]+)*)\s*=")


def bisect(module: ModuleOp, inputs: tuple, pipeline: str,
           tol: float | None = None) -> BisectResult:
    """`tol` None: chosen by the outputs' dtype (TOLERANCE)."""
    reference = evaluate(module, *inputs)
    scale = max(1.0, max(float(r.abs().max()) if r.numel() else 0.0 for r in reference))
    if tol is None:
        tol = default_tolerance(reference)
    result = BisectResult(scale, tol=tol)
    bad = tol * scale
    work = module.clone()
    snapshots: list[ModuleOp] = []
    last = [0.0]

    def before(p: ModulePass, m: ModuleOp) -> None:
        snapshots.append(m.clone())

    def after(record: PassRecord, p: ModulePass, m: ModuleOp) -> None:
        snapshot = snapshots.pop()
        if not record.leaf:
            return
        try:
            error = max_error(m, inputs, reference)
        except Exception as e:  # noqa: BLE001 - e.g. IR split into pipeline stages
            result.steps.append(Step(record.path, None, f"not evaluated: {_first_line(e)}"))
            raise _Stop() from None
        result.steps.append(Step(record.path, error))
        result.reached_device = result.reached_device or _lowered(m)
        if error > bad:
            result.error_before, result.error_after = last[0], error
            raise _Found(record, p, snapshot)
        last[0] = error

    passes = PassPipeline.parse_spec(get_all_passes(), pipeline).passes
    try:
        # The guard rails are on: a pass that never converges stops with a
        # GuardError naming its patterns instead of hanging the bisection.
        with instrument.session(before_pass=before, after_pass=after, verify_each=True):
            run_pipeline(work, passes)
    except _Stop:
        return result
    except _Found as found:
        result.bad_pass, result.bad_pass_name = found.record.path, found.pass_.name
        count = found.record.last_rewrite - found.record.first_rewrite
        result.rewrites = count
        result.rewrite = _narrow(found.pass_, found.snapshot, count, inputs, reference, bad)
    return result


def _narrow(p: ModulePass, snapshot: ModuleOp, count: int, inputs, reference,
            bad: float) -> BadRewrite | None:
    """The first of the pass's `count` rewrites after which the error exceeds `bad`."""

    def run(limit: int) -> tuple[float, Application | None]:
        m = snapshot.clone()
        with instrument.session(limit=limit, capture=limit) as s:
            try:
                run_pipeline(m, [p])
                error = max_error(m, inputs, reference)
            except Exception:  # noqa: BLE001 - a half-applied pass may not even run
                error = float("inf")
        return error, (s.applications[-1] if s.applications else None)

    if count == 0 or run(count)[0] <= bad:
        return None  # the damage is not done by a pattern rewrite
    lo, hi = 1, count  # invariant: the outputs are bad after `hi` rewrites
    while lo < hi:
        mid = (lo + hi) // 2
        if run(mid)[0] > bad:
            hi = mid
        else:
            lo = mid + 1
    error_after, application = run(hi)
    error_before, _ = run(hi - 1)
    assert application is not None and application.index == hi
    return BadRewrite(application, count, error_before, error_after)


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0]}" if text else type(e).__name__


def seeded_inputs(examples: tuple, seed: int) -> tuple:
    """Fresh normal inputs shaped like `examples`, from `seed`."""
    generator = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(x.shape, generator=generator, dtype=x.dtype) for x in examples)
