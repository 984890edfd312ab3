"""ATen coverage measured on PyTorch's own OpInfo samples, and docs/op-coverage.md.

    python -m tools.op_coverage                  # the whole sweep: P/T pass, W wrong
    python -m tools.op_coverage --only sin cat   # some OpInfos, verbose
    python -m tools.op_coverage --write          # sweep, then write the JSON and the doc
    python -m tools.op_coverage --render         # rewrite the doc from the committed JSON
    python -m tools.op_coverage --check          # is the doc current?

For every OpInfo of `torch.testing._internal.common_methods_invocations.op_db`
that supports float32 on the CPU, the first few sample inputs (index tensors
and masks included) each become a module that calls the op with the sample's
tensors as inputs. Each is exported, imported, optimized with the default
pipeline, run on the runtime, and compared with eager (rtol = atol = 1e-4,
NaNs equal, same dtypes and shapes). An OpInfo ends in one class:

    pass          every sample that torch.export can export matches eager
    unsupported   a clear error (the importer's report, a refused input)
    out_of_scope  OUT_OF_SCOPE says why (sparse, complex, solvers, FFT, random, ...)
    export        torch.export cannot export any sample; not counted
    wrong         a result differs from eager: a bug
    crash         any other exception: a bug too

P/T counts the OpInfos that export and are in scope.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import signal
import sys
import time
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
     r"feature_alpha_dropout|rrelu)|new_empty|empty)", "random sampling or "
     "uninitialized memory"),
    (r"(complex|view_as_real|^real$|^imag$|^angle$|^conj|^polar$|^resolve_)", "complex numbers"),
    (r"(backward|_grad$|^nn\.functional\.(ctc_loss|multi_margin_loss|multilabel_margin_loss))",
     "backward and training-only ops"),
    (r"^(nonzero|nonzero_static|unique|unique_consecutive|masked_select|argwhere|bincount|"
     r"histc|histogram|histogramdd|combinations)$", "the output size depends on the data"),
    (r"^(item|tolist|equal|allclose)$", "returns a Python value, not a tensor"),
    (r"^(to_sparse|pin_memory|storage_offset|cuda|byte|char|short|half|bfloat16|cdouble|"
     r"cfloat|chalf)$", "device, storage or a dtype GE does not carry"),
)


def scope(name: str) -> str | None:
    """The reason an OpInfo is out of scope, or None."""
    for pattern, reason in OUT_OF_SCOPE:
        if re.search(pattern, name):
            return reason
    return None


def full_name(op) -> str:
    return op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")


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


def run_sample(op, sample) -> tuple[str, str]:
    """(status, detail) of one sample: pass / unsupported / export / wrong / crash."""
    from lowering.aten.common import GEImportError
    from lowering.torch_to_ge import UnsupportedOpError, import_exported
    from npu_graph.compiler import lower, optimize
    from runtime.executor import Executable, LoadError
    from runtime.kernels import KernelError
    from runtime.program import InputError

    leaves, spec = pytree.tree_flatten(((sample.input, *sample.args), sample.kwargs))
    slots = [i for i, x in enumerate(leaves) if isinstance(x, torch.Tensor)]
    inputs = tuple(leaves[i].detach().clone() for i in slots)
    model = _Call(op.op, spec, leaves, slots)
    try:
        with torch.no_grad():
            expected = _tensors(model(*[t.clone() for t in inputs]))
        ep = torch.export.export(model, inputs)
    except Exception as e:  # noqa: BLE001 - torch's own refusal, not ours
        return "export", _first_line(e)
    if not expected:
        return "out_of_scope", "returns no tensor"
    try:
        module = import_exported(ep, what=full_name(op))
        program = Executable(lower(optimize(module)))
        got = _tensors(program.run(*inputs))
    except UnsupportedOpError as e:
        return "unsupported", "; ".join(f"{op.op} x{op.count} ({op.reason})" for op in e.ops)
    except (GEImportError, LoadError, KernelError, InputError) as e:
        if str(e).startswith("decomposing"):  # torch cannot give its core ATen form
            return "export", _first_line(e)
        return "unsupported", _first_line(e)
    except _TimeLimit:
        raise
    except Exception as e:  # noqa: BLE001 - any other exception is ours to fix
        return "crash", f"{type(e).__name__}: {_first_line(e)}"
    if len(got) != len(expected):
        return "wrong", f"{len(got)} outputs, eager has {len(expected)}"
    for i, (g, e) in enumerate(zip(got, expected)):
        if g.shape != e.shape or g.dtype != e.dtype:
            return "wrong", f"output {i}: {g.dtype}{list(g.shape)}, eager {e.dtype}{list(e.shape)}"
        try:
            torch.testing.assert_close(g, e, **TOL)
        except AssertionError as err:
            return "wrong", f"output {i}: {_first_line(err, 2)}"
    return "pass", ""


def run_opinfo(op, samples: int = SAMPLES) -> dict:
    """One OpInfo's class, from its first `samples` sample inputs."""
    name = full_name(op)
    reason = scope(name)
    if reason:
        return {"name": name, "status": "out_of_scope", "detail": reason}
    results = []
    try:
        with time_limit(TIME_LIMIT_S):
            for sample in list(op.sample_inputs("cpu", torch.float32))[:samples]:
                results.append(run_sample(op, sample))
    except _TimeLimit as e:
        results.append(("crash", f"time limit: {e}"))
    except Exception as e:  # noqa: BLE001 - the sample generator itself failed
        if not results:
            return {"name": name, "status": "export", "detail": f"no samples: {_first_line(e)}"}
    statuses = [s for s, _ in results]
    for status in ("wrong", "crash", "unsupported", "out_of_scope"):
        if status in statuses:
            return {"name": name, "status": status, "detail": results[statuses.index(status)][1]}
    if "pass" in statuses:
        return {"name": name, "status": "pass", "detail": ""}
    return {"name": name, "status": "export", "detail": results[0][1] if results else ""}


def _first_line(e: BaseException, lines: int = 1) -> str:
    text = " ".join(str(e).strip().splitlines()[:lines]) or type(e).__name__
    return text[:300]


def unsupported_ops(records: list[dict]) -> Counter:
    """ATen ops the importer reported, with how many OpInfos each blocks."""
    count = Counter()
    for r in records:
        if r["status"] == "unsupported":
            count.update(set(re.findall(r"\b(aten\.[\w.]+) x\d+", r["detail"])))
    return count


def summary(records: list[dict]) -> str:
    counts = Counter(r["status"] for r in records)
    total = counts["pass"] + counts["unsupported"] + counts["wrong"] + counts["crash"]
    return (f"{counts['pass']}/{total} pass, {counts['wrong']} wrong, {counts['crash']} crash "
            f"({counts['unsupported']} unsupported, {counts['out_of_scope']} out of scope, "
            f"{counts['export']} not exportable, of {len(records)} float32 OpInfos)")


def sweep(ops, samples: int = SAMPLES, verbose: bool = False) -> list[dict]:
    records = []
    for op in ops:
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            record = run_opinfo(op, samples)
        records.append(record)
        if verbose or record["status"] in ("wrong", "crash"):
            print(f"{record['name']}: {record['status']} ({time.perf_counter() - start:.1f} s)"
                  f" {record['detail']}", flush=True)
    return records


# --------------------------------------------------------------------------
# docs/op-coverage.md


def table_lines() -> list[str]:
    """Every ATen overload the importer maps, and what builds it."""
    from lowering.aten import ATEN_TO_GE, HINTS

    lines = ["| ATen overload | GE | built by |", "|---|---|---|"]
    for target, builder in sorted(ATEN_TO_GE.items(), key=lambda kv: str(kv[0])):
        ge_ops = _ge_ops(builder)
        where = f"`{builder.__module__.rsplit('.', 1)[-1]}.{_builder_name(builder)}`"
        lines.append(f"| `{target}` | {', '.join(f'`{o}`' for o in ge_ops) or 'see builder'} "
                     f"| {where} |")
    lines += ["", "Refused with a hint:", ""]
    lines += [f"- `{target}`: {hint}" for target, hint in sorted(HINTS.items(), key=str)]
    return lines


def _ge_ops(builder) -> list[str]:
    """The GE op classes a table builder was made for (`math.unary(ge.SinOp)`)."""
    from xdsl.ir import Operation

    cells = [c.cell_contents for c in (builder.__closure__ or ())]
    return sorted(c.name for c in cells if isinstance(c, type) and issubclass(c, Operation))


def _builder_name(builder) -> str:
    name = builder.__qualname__.split(".<locals>")[0]
    return name if name != "<lambda>" else "lambda"


def _ranked(counts: Counter) -> list[tuple[str, int]]:
    """Most frequent first, ties by name: the doc must not depend on hash order."""
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def render(records: list[dict]) -> str:
    by_status: dict[str, list[dict]] = {}
    for r in records:
        by_status.setdefault(r["status"], []).append(r)
    lines = [
        "# ATen op coverage",
        "",
        "Generated by `python -m tools.op_coverage --write` (the sweep, minutes) or",
        "`--render` (from `docs/op-coverage.json`); `test_op_coverage.py` fails when",
        "this file is stale. How the sweep works: `tools/op_coverage.py`.",
        "",
        f"**OpInfo sweep: {summary(records)}.**",
        "",
        "## Unsupported ATen ops, by the number of OpInfos each blocks",
        "",
        "| ATen op | OpInfos |",
        "|---|---|",
    ]
    lines += [f"| `{op}` | {n} |" for op, n in _ranked(unsupported_ops(records))]
    lines += ["", "## OpInfo results", ""]
    for status in ("wrong", "crash", "unsupported", "pass", "out_of_scope", "export"):
        group = sorted(by_status.get(status, []), key=lambda r: r["name"])
        if not group:
            continue
        lines += [f"### {status} ({len(group)})", ""]
        if status == "pass":
            lines += [", ".join(f"`{r['name']}`" for r in group), ""]
        else:
            lines += [f"- `{r['name']}`: {r['detail'].replace('|', '/')}" for r in group]
            lines.append("")
    lines += ["## The importer's table: ATen overload -> GE", ""] + table_lines() + [""]
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--only", nargs="+", metavar="NAME", help="OpInfo names (op or op.variant)")
    p.add_argument("--samples", type=int, default=SAMPLES, help="samples per OpInfo")
    p.add_argument("--write", action="store_true", help="write the JSON and the doc")
    p.add_argument("--render", action="store_true", help="rewrite the doc from the JSON")
    p.add_argument("--check", action="store_true",
                   help="exit 1 if the doc is not what the JSON and the table render to")
    p.add_argument("-v", "--verbose", action="store_true")
    args = p.parse_args(argv)
    if args.render or args.check:
        text = render(json.loads(RESULTS.read_text()))
        if args.check:
            stale = DOC.read_text() != text
            print(f"{DOC.name} is {'stale: run --write or --render' if stale else 'current'}")
            return 1 if stale else 0
        DOC.write_text(text)
        return 0
    ops = float32_opinfos()
    if args.only:
        ops = [op for op in ops if full_name(op) in args.only or op.name in args.only]
    records = sweep(ops, args.samples, verbose=args.verbose or bool(args.only))
    blocked = unsupported_ops(records).most_common(25)
    if blocked:
        print("most frequent unsupported ATen ops: "
              + ", ".join(f"{op} ({n})" for op, n in blocked))
    if args.write:
        RESULTS.write_text(json.dumps(records, indent=1) + "\n")
        DOC.write_text(render(records))
    print(summary(records))
    return 1 if any(r["status"] in ("wrong", "crash") for r in records) else 0


if __name__ == "__main__":
    sys.exit(main())
