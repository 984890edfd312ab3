"""Differential checks of a pipeline on graphs, for ge-fuzz and ge-reduce.

    problem = check_module(module, "ge-O3,my-rules")   # None: the pipeline is right
    result = fuzz(generator, "ge-O2,my-rules")          # random graphs aimed at my-rules

The oracle is the GE reference evaluator on the graph before any pass; the
checked result is the graph after the pipeline, lowered and planned
(`passes.pipelines.through_device`), run on the runtime. A wrong answer, or
an internal error of a pass (an exception, IR that does not verify, a guard
rail), is a problem; a pass refusing its input with a diagnostic (a graph it
does not support) is not. `check` also counts the rewrites each pattern made,
which is how `fuzz` measures the coverage of the patterns it aims at
(npu_graph/fuzz_aim.py reads what they match).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

import torch
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import DiagnosticException

from ge_dialect import find_func, ge
from npu_graph.bisect import default_tolerance, run_graph, seeded_inputs
from npu_graph.compiler import run_pipeline
from npu_graph.fuzz_aim import Target, targets
from passes.driver import instrument
from passes.driver.instrument import PassVerifyError
from passes.pipelines import through_device
from runtime.reference import evaluate


def inputs_for(module: ModuleOp, seed: int = 0) -> tuple[torch.Tensor, ...]:
    """Seeded normal inputs in @main's argument types (a `?` dim is 2)."""
    from runtime.kernels import torch_dtype

    types = find_func(module).function_type.inputs.data
    examples = tuple(torch.empty([d if d > 0 else 2 for d in t.get_shape()],
                                 dtype=torch_dtype(t.element_type)) for t in types)
    return seeded_inputs(examples, seed)


@dataclass
class Checked:
    """What one graph showed: the problem (None: the pipeline is right on it) and
    the rewrites each pattern made, by (pass, pattern) as the pass driver credits
    them; op-fusion's groups count under their rule's name."""

    problem: str | None
    fired: Counter = field(default_factory=Counter)


def check_module(module: ModuleOp, pipeline: str, seed: int = 0,
                 tol: float | None = None) -> str | None:
    """None if `pipeline` computes what `module` computes, else what went wrong."""
    return check(module, pipeline, seed, tol).problem


def check(module: ModuleOp, pipeline: str, seed: int = 0, tol: float | None = None) -> Checked:
    """check_module, with the rewrites the pipeline made on the way."""
    fired: Counter = Counter()

    def count_groups(record, p, m: ModuleOp) -> None:
        if p.name == "op-fusion":
            fired.update(("op-fusion", op.kind.data) for op in m.walk()
                         if isinstance(op, ge.FusedOp))

    inputs = inputs_for(module, seed)
    reference = evaluate(module, *inputs)
    if tol is None:
        tol = default_tolerance(reference)
    work = module.clone()
    with instrument.session(verify_each=True, after_pass=count_groups) as s:
        problem = _compile(work, pipeline)
    for record in s.passes:
        if record.leaf:
            name = record.path.rsplit("/", 1)[-1]
            fired.update({(name, pattern): n for pattern, n in record.rewrites.items()})
    if problem == "":
        return Checked(None, fired)  # a pass refuses this graph by design: not a finding
    if problem is None:
        problem = _compare(work, inputs, reference, tol)
    return Checked(problem, fired)


def _compile(work: ModuleOp, pipeline: str) -> str | None:
    """Run the pipeline to planned IR: None if it went through, "" if a pass
    refused the graph with a diagnostic, else the internal error."""
    try:
        run_pipeline(work, through_device(pipeline))
    except PassVerifyError as e:
        return f"internal error: {_one_line(e)}"
    except DiagnosticException:
        return ""
    except Exception as e:  # noqa: BLE001 - any crash of a pass is a finding
        return f"internal error: {type(e).__name__}: {_one_line(e)}"
    return None


def _compare(work: ModuleOp, inputs, reference, tol: float) -> str | None:
    try:
        outputs = run_graph(work, inputs)
    except Exception as e:  # noqa: BLE001 - the compiled graph does not run
        return f"the compiled graph does not run: {type(e).__name__}: {_one_line(e)}"
    for i, (got, want) in enumerate(zip(outputs, reference, strict=True)):
        if got.shape != want.shape:
            return f"output {i}: shape {list(got.shape)}, expected {list(want.shape)}"
        scale = max(1.0, float(want.abs().max()) if want.numel() else 0.0)
        error = float((got.double() - want.double()).abs().max()) if got.numel() else 0.0
        if not error <= tol * scale:  # NaN is wrong too
            return f"output {i}: max |out - ref| = {error:.3e} > {tol:g} x {scale:.3g}"
    return None


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split())[:400]


@dataclass
class Finding:
    module: ModuleOp    # the graph as generated, before any pass
    problem: str
    example: int        # which drawn graph (0-based)


@dataclass
class FuzzResult:
    findings: list[Finding]
    graphs: int                                   # graphs drawn and checked
    targets: list[Target]                         # the patterns under test
    aimed: bool = True                            # the graphs were aimed at them
    coverage: Counter = field(default_factory=Counter)  # target -> graphs it fired on
    rewrites: Counter = field(default_factory=Counter)  # target -> rewrites in all
    fired: int = 0                                # graphs on which any target fired


# The share of the generator's draws aimed at the targets' op chains (three
# quarters of it) and ops (the rest); the rest of the menu keeps the
# remainder, so the ops around them vary too.
AIM_SHARE = 0.75


def aimed(generator, menu, found: list[Target]) -> list[tuple[str, ...]]:
    """The `aim` steps for `generator.graphs`: the targets' chains, then their
    ops, each repeated so that together they are AIM_SHARE of the draws."""
    names = {e.name for e in menu}
    ops = sorted({op.removeprefix("ge.") for t in found for op in t.ops} & names)
    chains = list(dict.fromkeys(
        c for t in found for c in (tuple(o.removeprefix("ge.") for o in chain)
                                   for chain in t.chains)
        if len(c) > 1 and all(o in names for o in c)))
    if not ops:
        return []
    rest = (sum(e.weight for e in menu)
            + generator.CORE_WEIGHT * sum(all(o in names for o in m) for m in generator.MOTIFS))
    share = AIM_SHARE / (1 - AIM_SHARE) * rest
    singles = share / 4 if chains else share
    aim = [c for c in chains for _ in range(math.ceil((share - singles) / len(chains)))]
    return aim + [(op,) for op in ops for _ in range(math.ceil(singles / len(ops)))]


def fuzz(generator, pipeline: str, examples: int = 50, seed: int = 0, max_nodes: int = 8,
         ops: list[str] | None = None, tol: float | None = None,
         aim: list[str] | None = None) -> FuzzResult:
    """Draw `examples` random graphs from `generator` (test/fuzz/graphs.py) over
    its menu (or the entries named in `ops`), aimed at the patterns of the
    passes under test (`aim` names them; None: as npu_graph/fuzz_aim.py
    chooses; an empty list: not aimed, though their coverage is still
    counted); check `pipeline` on each; return the failures and what fired.

    Graphs are drawn by hypothesis, seeded, with no example database, so the
    same seed draws the same graphs. Failures are collected, not raised, so
    hypothesis does not shrink them: ge-reduce does, on the IR."""
    from hypothesis import HealthCheck, assume, given, settings
    from hypothesis import seed as hypothesis_seed

    menu = generator.MENU
    if ops is not None:
        unknown = sorted(set(ops) - {e.name for e in menu})
        if unknown:
            raise ValueError(f"unknown op(s) {', '.join(unknown)}; the generator's menu: "
                             f"{', '.join(e.name for e in menu)}")
        menu = tuple(e for e in menu if e.name in ops)
    found = targets(pipeline, aim or None)
    aim_steps = aimed(generator, menu, found) if aim != [] else []
    result = FuzzResult([], 0, found, aimed=bool(aim_steps))
    credited = {(t.pass_name, t.name): t for t in found}
    seen: set[int] = set()  # one hash per graph drawn: as bounded as `examples`

    # at least the longest chain aimed at, so a graph can hold it
    min_nodes = max(map(len, aim_steps), default=1)

    @hypothesis_seed(seed)
    @settings(max_examples=examples, database=None, deadline=None, derandomize=False,
              suppress_health_check=list(HealthCheck), phases=_generate_only())
    @given(generator.graphs(menu=menu, max_nodes=max_nodes, dynamic=False, aim=aim_steps,
                            min_nodes=min_nodes))
    def one(graph) -> None:
        module = generator.to_module(graph)
        key = hash(str(module))
        assume(key not in seen)  # hypothesis repeats itself; a repeat counts for nothing
        seen.add(key)
        checked = check(module, pipeline, seed, tol)
        hit = {credited[k]: n for k, n in checked.fired.items() if k in credited}
        result.coverage.update(hit.keys())
        result.rewrites.update(hit)
        result.fired += bool(hit)
        if checked.problem is not None:
            result.findings.append(Finding(module, checked.problem, result.graphs))
        result.graphs += 1

    one()
    return result


def _generate_only():
    from hypothesis import Phase

    return (Phase.generate,)
