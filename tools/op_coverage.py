"""ATen coverage measured on PyTorch's own OpInfo samples, and docs/op-coverage.md.

    python -m tools.op_coverage                  # the whole sweep: P/T pass, W wrong
    python -m tools.op_coverage --fast           # the subset `make test` runs
    python -m tools.op_coverage --only sin cat   # some OpInfos, verbose
    python -m tools.op_coverage --write          # sweep, then write the JSON and the doc
    python -m tools.op_coverage --render         # rewrite the doc from the committed JSON
    python -m tools.op_coverage --check          # is the doc current?

For every OpInfo of `torch.testing._internal.common_methods_invocations.op_db`
that supports float32 on the CPU, the first few sample inputs (index tensors
and masks included) each become a module that calls the op with the sample's
tensors as inputs. Each is exported, imported, verified, optimized with the
default pipeline, lowered, planned (streams and the memory arena) and run on
the runtime, the path `npu_graph.compiler.compile_model` takes, and compared
with eager (rtol = atol = 1e-4, NaNs equal, same dtypes and shapes). An
OpInfo ends in one class:

    pass          every sample that torch.export can export and that is in scope
                  matches eager (at least one sample does)
    unsupported   a clear error (the importer's report, a refused input)
    out_of_scope  OUT_OF_SCOPE says why (sparse, complex, solvers, FFT, random,
                  ...), or every sample draws random numbers (RANDOM_OPS)
    export        torch.export cannot export any sample; not counted
    wrong         a result differs from eager: a bug
    crash         any other exception: a bug too

P/T counts the OpInfos that export and are in scope. Each OpInfo's in-place
variant (`add_` for `add`, see InPlace) is swept too and counted apart. Exit status: 0, 1 when
a result is wrong or something crashed, 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import re
import signal
import sys
import time
import types
import warnings
from collections import Counter
from pathlib import Path

import torch
import torch.utils._pytree as pytree

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "op-coverage.md"
RESULTS = REPO / "docs" / "op-coverage.json"
SAMPLES = 3          # sample inputs tried per OpInfo
TIME_LIMIT_S = 30    # per OpInfo
TOL = dict(rtol=1e-4, atol=1e-4, equal_nan=True)

# (pattern on the OpInfo's full name, reason): what GE does not try to compile.
OUT_OF_SCOPE = (
    (r"^(linalg\.|cholesky|lu|qr$|svd|pinverse|inverse|det$|logdet|slogdet|matrix_exp|"
     r"triangular_solve|geqrf|ormqr|eig|lstsq|pca_lowrank|svd_lowrank|householder_product|"
     r"cholesky_solve|cholesky_inverse|lu_solve|lu_unpack|linalg)", "linear algebra solvers "
     "and decompositions"),
    (r"^(fft\.|stft|istft)", "FFT"),
    (r"sparse", "sparse tensors"),
    (r"^(normal|uniform|cauchy|exponential|geometric|log_normal|bernoulli|multinomial|"
     r"rand|randn|randint|poisson|nn\.functional\.(dropout|alpha_dropout|"
     r"feature_alpha_dropout|rrelu|fractional_max_pool\dd)|new_empty|empty)",
     "random sampling or uninitialized memory"),
    (r"(complex|view_as_real|^imag$|^polar$)", "complex numbers"),
    (r"(backward|_grad$|^nn\.functional\.(ctc_loss|multi_margin_loss|multilabel_margin_loss))",
     "backward and training-only ops"),
    (r"^(nonzero|nonzero_static|unique|unique_consecutive|masked_select|argwhere|bincount|"
     r"histc|histogram|histogramdd|combinations)$", "the output size depends on the data"),
    (r"^(item|tolist|equal|allclose)$", "returns a Python value, not a tensor"),
    (r"^(to_sparse|pin_memory|storage_offset|cuda|byte|char|short|half|bfloat16|cdouble|"
     r"cfloat|chalf)$", "device, storage or a dtype GE does not carry"),
)


# ATen ops that draw random numbers: a sample that needs one is out of scope
# (eager and GE cannot agree on the draws), the OpInfo's other samples still count.
RANDOM_OPS = {"aten.native_dropout.default", "aten.rand.default", "aten.randn.default",
              "aten.bernoulli.default", "aten.bernoulli.p", "aten.randint.low",
              "aten.randperm.default", "aten.multinomial.default", "aten.normal.Tensor_float",
              "aten.uniform.default", "aten.exponential.default"}

# The subset `make test` runs (test_op_coverage.py): one or two OpInfos per
# family: math, comparisons, reductions, scans, sorting, gathers, scatters,
# shapes, pads, convolutions, pools, norms, activations, resizing, matmuls.
FAST = (
    "sin", "atan2", "floor_divide", "where", "isnan", "var", "prod", "cumsum", "topk",
    "sort", "gather", "scatter_add", "take_along_dim", "flip", "roll", "diagonal",
    "nn.functional.pad.reflect", "nn.functional.conv1d", "nn.functional.max_pool2d",
    "nn.functional.group_norm", "nn.functional.rms_norm", "nn.functional.elu",
    "log_softmax", "nn.functional.interpolate.bilinear", "einsum", "special.zeta",
)


def scope(name: str) -> str | None:
    """The reason an OpInfo is out of scope, or None."""
    for pattern, reason in OUT_OF_SCOPE:
        if re.search(pattern, name):
            return reason
    return None


def full_name(op) -> str:
    return op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")


class InPlace:
    """An OpInfo's in-place variant (`x.add_(y)` for `add`) applied to a copy of
    its first input; the updated copy and the variant's result (the same
    tensor) are both outputs, so aliasing outputs are checked too."""

    variant = "in-place"

    def __init__(self, op):
        self.base, self.name, self.variant_test_name = op, op.name + "_", op.variant_test_name
        self.op = functools.partial(_update_a_copy, op.inplace_variant)

    def sample_inputs(self, device, dtype):
        return self.base.sample_inputs(device, dtype)


def _update_a_copy(inplace, x, *args, **kwargs):
    y = x.clone()
    return y, inplace(y, *args, **kwargs)


def float32_opinfos() -> list:
    from torch.testing._internal.common_methods_invocations import op_db
    return [op for op in op_db if torch.float32 in op.supported_dtypes("cpu")]


class _TimeLimit(Exception):
    pass


@contextlib.contextmanager
def time_limit(seconds: int):
    def expire(signum, frame):
        raise _TimeLimit(f"over {seconds} s")
    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


class _Call(torch.nn.Module):
    """op(*args, **kwargs) with the sample's tensors as forward inputs."""

    def __init__(self, fn, spec, leaves, tensor_slots):
        super().__init__()
        self.fn, self.spec, self.leaves, self.slots = fn, spec, leaves, tensor_slots

    def forward(self, *tensors):
        leaves = list(self.leaves)
        for slot, t in zip(self.slots, tensors):
            leaves[slot] = t
        args, kwargs = pytree.tree_unflatten(leaves, self.spec)
        return self.fn(*args, **kwargs)


def _tensors(out) -> list[torch.Tensor]:
    return [x for x in pytree.tree_leaves(out) if isinstance(x, torch.Tensor)]


def compile_exported(ep, what: str):
    """An ExportedProgram -> a loaded executable, by the stages `compile_model` runs."""
    from ge_dialect.verifier import verify
    from lowering.torch_to_ge import import_exported
    from npu_graph.compiler import run_pipeline
    from passes.pipelines import session_pipeline
    from runtime.executor import Executable

    module = import_exported(ep, what=what)
    verify(module)
    return Executable(run_pipeline(module, session_pipeline().spec()))


def run_sample(op, sample) -> tuple[str, str, dict[str, str]]:
    """(status, detail, {unsupported ATen op: reason}) of one sample."""
    from lowering.aten.common import GEImportError
    from lowering.torch_to_ge import UnsupportedOpError
    from runtime.executor import LoadError
    from runtime.kernels import KernelError
    from runtime.program import InputError

    leaves, spec = pytree.tree_flatten(((sample.input, *sample.args), sample.kwargs))
    slots = [i for i, x in enumerate(leaves) if isinstance(x, torch.Tensor)]
    inputs = tuple(_laid_out_like(leaves[i]) for i in slots)
    model = _Call(op.op, spec, leaves, slots)
    try:
        expected = _eager(model, inputs)
        ep = torch.export.export(model, inputs)
    except Exception as e:  # noqa: BLE001 - torch's own refusal, not ours
        return "export", _first_line(e), {}
    if not expected:
        return "out_of_scope", "returns no tensor", {}
    # A second run on other values (floats negated; indices and masks kept)
    # must not change the inputs or what the first run returned.
    varied = tuple(_laid_out_like(t, -t if t.is_floating_point() else t) for t in inputs)
    try:
        expected_varied = _eager(model, varied)
    except Exception:  # noqa: BLE001 - eager refuses them: run the same values again
        varied, expected_varied = inputs, expected
    given = [t.clone() for t in inputs + varied]
    try:
        program = compile_exported(ep, full_name(op))
        first = _tensors(program.run(*inputs))
        second = _tensors(program.run(*varied))
    except UnsupportedOpError as e:
        blocked = {o.op: o.reason for o in e.ops}
        if set(blocked) <= RANDOM_OPS:
            return "out_of_scope", f"random sampling ({', '.join(sorted(blocked))})", {}
        return "unsupported", "; ".join(f"{o.op} x{o.count} ({o.reason})" for o in e.ops), blocked
    except (GEImportError, LoadError, KernelError, InputError) as e:
        if str(e).startswith("decomposing"):  # torch cannot give its core ATen form
            return "export", _first_line(e), {}
        return "unsupported", _first_line(e), {}
    except _TimeLimit:
        raise
    except Exception as e:  # noqa: BLE001 - any other exception is ours to fix
        return "crash", f"{type(e).__name__}: {_first_line(e)}", {}
    for i, (before, now) in enumerate(zip(given, inputs + varied)):
        if not _same(before, now):
            return "wrong", f"running changed input {i % len(inputs)}", {}
    status, detail = _compare(first, expected, " (read after a second run)")
    if status == "pass":
        status, detail = _compare(second, expected_varied, " of a second run, floats negated")
    return status, detail, {}


def _laid_out_like(t: torch.Tensor, values: torch.Tensor | None = None) -> torch.Tensor:
    """A copy of `t` (or of `values` in its place) in a copy of t's whole storage,
    at t's storage offset and strides: a sample that is a view (as_strided's
    partial_views) stays one, so ops that read beneath the view see what eager
    sees."""
    whole = torch.empty(0, dtype=t.dtype).set_(t.detach().untyped_storage()).clone()
    copy = whole.as_strided(t.shape, t.stride(), t.storage_offset())
    if values is not None:
        try:
            copy.copy_(values)
        except RuntimeError:   # overlapping elements (a stride 0) take no copy_
            return values.clone()
    return copy


def _eager(model: torch.nn.Module, inputs: tuple) -> list[torch.Tensor]:
    with torch.no_grad():
        return [t.clone() for t in _tensors(model(*[_laid_out_like(t) for t in inputs]))]


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and bool(
        ((a == b) | (a != a) & (b != b)).all())


def _compare(got: list[torch.Tensor], expected: list[torch.Tensor],
             when: str = "") -> tuple[str, str]:
    if len(got) != len(expected):
        return "wrong", f"{len(got)} outputs, eager has {len(expected)}"
    for i, (g, e) in enumerate(zip(got, expected)):
        if g.shape != e.shape or g.dtype != e.dtype:
            return "wrong", (f"output {i}{when}: {g.dtype}{list(g.shape)}, "
                             f"eager {e.dtype}{list(e.shape)}")
        try:
            torch.testing.assert_close(g, e, **TOL)
        except AssertionError as err:
            return "wrong", f"output {i}{when}: {_first_line(err, 2)}"
    return "pass", ""


def run_opinfo(op, samples: int = SAMPLES) -> dict:
    """One OpInfo's class, from its first `samples` sample inputs: the worst of
    wrong, crash, unsupported; else pass if a sample passed; samples that do not
    export or are out of scope do not count."""
    name = full_name(op)
    reason = scope(full_name(getattr(op, "base", op)))
    if reason:
        return _record(op, "out_of_scope", reason)
    results = []
    try:
        with time_limit(TIME_LIMIT_S):
            for sample in list(op.sample_inputs("cpu", torch.float32))[:samples]:
                results.append(run_sample(op, sample))
    except _TimeLimit as e:
        results.append(("crash", f"time limit: {e}", {}))
    except Exception as e:  # noqa: BLE001 - the sample generator itself failed
        if not results:
            return _record(op, "export", f"no samples: {_first_line(e)}")
    for status in ("wrong", "crash", "unsupported", "pass", "out_of_scope", "export"):
        found = [r for r in results if r[0] == status]
        if found:
            record = _record(op, status, found[0][1])
            if status == "unsupported":
                record["blocked"] = {k: v for r in found for k, v in r[2].items()}
            return record
    return _record(op, "export", "no samples")


def _record(op, status: str, detail: str) -> dict:
    record = {"name": full_name(op), "status": status, "detail": detail}
    if isinstance(op, InPlace):
        record["variant"] = op.variant
    return record


def _first_line(e: BaseException, lines: int = 1) -> str:
    text = " ".join(str(e).strip().splitlines()[:lines]) or type(e).__name__
    return text[:300]


def unsupported_ops(records: list[dict]) -> Counter:
    """Ops the importer reported, with how many OpInfos each blocks."""
    count = Counter()
    for r in records:
        count.update(r.get("blocked", {}).keys())
    return count


def functional(records: list[dict]) -> list[dict]:
    return [r for r in records if "variant" not in r]


def in_place(records: list[dict]) -> list[dict]:
    return [r for r in records if r.get("variant") == InPlace.variant]


def summary(records: list[dict], what: str = "float32 OpInfos") -> str:
    """`P/T pass, W wrong, ...` over the records of one kind."""
    counts = Counter(r["status"] for r in records)
    total = counts["pass"] + counts["unsupported"] + counts["wrong"] + counts["crash"]
    return (f"{counts['pass']}/{total} pass, {counts['wrong']} wrong, {counts['crash']} crash "
            f"({counts['unsupported']} unsupported, {counts['out_of_scope']} out of scope, "
            f"{counts['export']} not exportable, of {len(records)} {what})")


def sweep(ops, samples: int = SAMPLES, verbose: bool = False,
          in_place_variants: bool = False) -> list[dict]:
    """Each OpInfo's record, then its in-place variant's when asked for and it has one."""
    cases = []
    for op in ops:
        cases.append(op)
        if in_place_variants and op.inplace_variant is not None:
            cases.append(InPlace(op))
    records = []
    for case in cases:
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            record = run_opinfo(case, samples)
        records.append(record)
        if verbose or record["status"] in ("wrong", "crash"):
            print(f"{record['name']}: {record['status']} ({time.perf_counter() - start:.1f} s)"
                  f" {record['detail']}", flush=True)
    return records


# --------------------------------------------------------------------------
# docs/op-coverage.md

# What a table entry that builds no GE op does, for builders without a docstring.
NO_GE_OP = {
    "identity": "nothing: the result is its input",
    "dropout": "nothing in inference: the result is its input",
    "no_result": "nothing: a check torch.export already made",
    "symbolic": "nothing: sizes are read from torch's shape metadata",
    "getitem": "nothing: picks one result of a multi-result op",
}


def _target_name(target) -> str:
    """How the doc names a table key: a Python function (torch.sym_max) by its
    import path, since its repr holds an address that changes every run."""
    if isinstance(target, types.FunctionType):
        return f"{target.__module__}.{target.__qualname__}"
    return str(target)


def table_lines() -> list[str]:
    """Every ATen overload the importer maps, the GE ops its builder may emit,
    and the builder (whose docstring says when it decomposes or refuses)."""
    from lowering.aten import ATEN_TO_GE, HINTS

    lines = ["| ATen overload | GE ops it may build | built by |", "|---|---|---|"]
    for target, builder in sorted(ATEN_TO_GE.items(), key=lambda kv: _target_name(kv[0])):
        ops = ", ".join(f"`{o}`" for o in ge_ops(builder)) or _no_op_note(builder)
        where = f"`{builder.__module__.rsplit('.', 1)[-1]}.{_builder_name(builder)}`"
        lines.append(f"| `{_target_name(target)}` | {ops} | {where} |")
    lines += ["", "Refused with a hint:", ""]
    lines += [f"- `{target}`: {hint}" for target, hint in sorted(HINTS.items(), key=str)]
    return lines


def ge_ops(builder) -> list[str]:
    """The GE ops a builder may emit: the op classes its code names, followed
    through its closures and the lowering helpers it calls (a static reading,
    so ops on branches not taken for a given node are listed too)."""
    from xdsl.ir import Operation

    found: set[str] = set()
    seen: set[int] = set()

    def visit(obj) -> None:
        if isinstance(obj, type) and issubclass(obj, Operation):
            found.add(obj.name)
        elif isinstance(obj, dict) and id(obj) not in seen:  # e.g. rank -> conv op class
            seen.add(id(obj))
            found.update(v.name for v in obj.values()
                         if isinstance(v, type) and issubclass(v, Operation))
        elif (isinstance(obj, types.FunctionType) and id(obj) not in seen
              and obj.__module__.startswith("lowering.")):
            seen.add(id(obj))
            for cell in obj.__closure__ or ():
                visit(cell.cell_contents)
            visit_code(obj.__code__, obj.__globals__)

    def visit_code(code: types.CodeType, scope: dict) -> None:
        modules = [scope[n] for n in code.co_names if isinstance(scope.get(n), types.ModuleType)]
        for name in code.co_names:
            visit(scope.get(name))
            for module in modules:  # `ge.AddOp`, `math.add_matmul`
                visit(getattr(module, name, None))
        for const in code.co_consts:
            if isinstance(const, types.CodeType):  # nested functions and lambdas
                visit_code(const, scope)

    visit(builder)
    return sorted(found)


def _no_op_note(builder) -> str:
    name = _builder_name(builder)
    doc = (builder.__doc__ or "").strip().splitlines()
    return NO_GE_OP.get(name) or (f"no GE op; {doc[0]}" if doc else "no GE op")


def _builder_name(builder) -> str:
    name = builder.__qualname__.split(".<locals>")[0]
    return name if name != "<lambda>" else "lambda"


def _ranked(counts: Counter) -> list[tuple[str, int]]:
    """Most frequent first, ties by name: the doc must not depend on hash order."""
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def _scope_lines(records: list[dict]) -> list[str]:
    """The out-of-scope rules, each with the OpInfos it takes out."""
    by_reason = Counter(r["detail"] for r in records if r["status"] == "out_of_scope")
    lines = ["| OpInfo name matches | why | OpInfos |", "|---|---|---|"]
    for pattern, reason in OUT_OF_SCOPE:
        lines.append(f"| `{pattern.replace('|', chr(92) + '|')}` | {reason} | "
                     f"{by_reason[reason]} |")
    lines.append(f"| (every sample draws random numbers) | random sampling | "
                 f"{sum(n for d, n in by_reason.items() if d.startswith('random sampling ('))} |")
    lines.append(f"| (no sample returns a tensor) | returns no tensor | "
                 f"{by_reason['returns no tensor']} |")
    return lines


def _blocked_lines(records: list[dict]) -> list[str]:
    """Unsupported ops, most blocking first, with the importer's reason."""
    reasons: dict[str, str] = {}
    examples: dict[str, list[str]] = {}
    for r in sorted(records, key=lambda r: r["name"]):
        for op, reason in r.get("blocked", {}).items():
            reasons.setdefault(op, reason)
            examples.setdefault(op, []).append(r["name"])
    lines = ["| op | OpInfos | why | for example |", "|---|---|---|---|"]
    for op, n in _ranked(unsupported_ops(records)):
        names = ", ".join(f"`{name}`" for name in examples[op][:3])
        lines.append(f"| `{op}` | {n} | {reasons[op].replace('|', '/')} | {names} |")
    return lines


def _results_lines(records: list[dict], heading: str = "###") -> list[str]:
    """The records by status, worst first; passes as one list of names."""
    lines = []
    for status in ("wrong", "crash", "unsupported", "pass", "out_of_scope", "export"):
        group = sorted((r for r in records if r["status"] == status), key=lambda r: r["name"])
        if not group:
            continue
        lines += [f"{heading} {status} ({len(group)})", ""]
        if status == "pass":
            lines += [", ".join(f"`{r['name']}`" for r in group), ""]
        else:
            lines += [f"- `{r['name']}`: {r['detail'].replace('|', '/')}" for r in group]
            lines.append("")
    return lines


def render(everything: list[dict]) -> str:
    records, updates = functional(everything), in_place(everything)
    lines = [
        "# ATen op coverage",
        "",
        "Generated by `python -m tools.op_coverage --write` (the sweep, minutes) or",
        "`--render` (from `docs/op-coverage.json`); `test_op_coverage.py` fails when",
        "this file is stale. How the sweep works: `tools/op_coverage.py`.",
        "",
        f"**OpInfo sweep: {summary(records)}.**",
        "",
        "## Unsupported ops, by the number of OpInfos each blocks",
        "",
        *_blocked_lines(records),
        "",
        "## Out of scope",
        "",
        *_scope_lines(records),
        "",
        "## OpInfo results",
        "",
        *_results_lines(records),
    ]
    if updates:
        lines += [
            "## In-place variants",
            "",
            "Each OpInfo's in-place variant (`add_` for `add`) updates a copy of the first",
            "input; the updated tensor and the variant's result (the same tensor) are both",
            f"compared with eager. **{summary(updates, 'in-place variants')}.**",
            "",
            *_results_lines(updates),
        ]
    lines += ["## The importer's table: ATen overload -> GE", ""] + table_lines() + [""]
    return "\n".join(lines)


def merged(records: list[dict]) -> list[dict]:
    """The committed results with `records` in place of theirs (a partial sweep,
    `--only` or `--fast`, updates only the OpInfos it ran)."""
    if not RESULTS.exists():
        return records
    def key(r: dict) -> tuple[str, str]:
        return r["name"], r.get("variant", "")

    new = {key(r): r for r in records}
    old = json.loads(RESULTS.read_text())
    known = {key(r) for r in old}
    return [new.get(key(r), r) for r in old] + [r for r in records if key(r) not in known]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--only", nargs="+", metavar="NAME", help="OpInfo names (op or op.variant)")
    p.add_argument("--fast", action="store_true", help="the subset make test runs (FAST)")
    p.add_argument("--samples", type=int, default=SAMPLES, help="samples per OpInfo")
    p.add_argument("--write", action="store_true",
                   help="write the JSON and the doc (a partial sweep updates its OpInfos)")
    p.add_argument("--render", action="store_true", help="rewrite the doc from the JSON")
    p.add_argument("--check", action="store_true",
                   help="exit 1 if the doc is not what the JSON and the table render to")
    p.add_argument("--functional-only", action="store_true",
                   help="skip the in-place variants (`add_` for `add`)")
    p.add_argument("-v", "--verbose", action="store_true")
    args = p.parse_args(argv)
    if args.samples < 1:
        p.error("--samples must be at least 1")
    if args.render or args.check:
        text = render(json.loads(RESULTS.read_text()))
        if args.check:
            stale = DOC.read_text() != text
            print(f"{DOC.name} is {'stale: run --write or --render' if stale else 'current'}")
            return 1 if stale else 0
        DOC.write_text(text)
        return 0
    ops = float32_opinfos()
    wanted = set(args.only or ()) | (set(FAST) if args.fast else set())
    if wanted:
        ops = [op for op in ops if full_name(op) in wanted or op.name in wanted]
        unknown = wanted - {full_name(op) for op in ops} - {op.name for op in ops}
        if unknown:
            p.error(f"no float32 OpInfo named {', '.join(sorted(unknown))}")
    records = sweep(ops, args.samples, verbose=args.verbose or bool(args.only),
                    in_place_variants=not args.functional_only)
    blocked = _ranked(unsupported_ops(functional(records)))[:25]
    if blocked:
        print("most frequent unsupported ops: "
              + ", ".join(f"{op} ({n})" for op, n in blocked))
    if args.write:
        everything = merged(records) if wanted else records
        RESULTS.write_text(json.dumps(everything, indent=1) + "\n")
        DOC.write_text(render(everything))
    if in_place(records):
        print(f"in-place variants: {summary(in_place(records), 'in-place variants')}")
    print(summary(functional(records)))
    return 1 if any(r["status"] in ("wrong", "crash") for r in records) else 0


if __name__ == "__main__":
    sys.exit(main())
