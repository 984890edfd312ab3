"""ATen coverage on PyTorch's own OpInfo samples (tools/op_coverage.py).

The whole sweep is one command (`python -m tools.op_coverage`); here a fast,
varied subset runs in `make test` and must pass with no wrong result, and
docs/op-coverage.md must be what the committed sweep results render to."""

import json
import subprocess
import sys

import pytest
import torch

pytest.importorskip("expecttest")  # PyTorch's OpInfo database imports it

from tools import op_coverage  # noqa: E402


@pytest.fixture(scope="module")
def records():
    fast = set(op_coverage.FAST)
    ops = [op for op in op_coverage.float32_opinfos() if op_coverage.full_name(op) in fast]
    assert {op_coverage.full_name(op) for op in ops} == fast, "an OpInfo was renamed"
    return op_coverage.sweep(ops)


def test_fast_subset_passes_with_no_wrong_result(records):
    failed = {r["name"]: f"{r['status']}: {r['detail']}" for r in records
              if r["status"] != "pass"}
    assert not failed


def test_out_of_scope_is_decided_by_name_with_a_reason():
    assert op_coverage.scope("linalg.inv") and op_coverage.scope("fft.fft")
    assert op_coverage.scope("normal") and op_coverage.scope("nonzero")
    assert op_coverage.scope("sin") is None and op_coverage.scope("nn.functional.conv2d") is None


def test_a_sample_that_draws_random_numbers_is_out_of_scope_not_unsupported():
    """SDPA's dropout samples are random; its other samples must still pass."""
    sdpa = [op for op in op_coverage.float32_opinfos()
            if op_coverage.full_name(op) == "nn.functional.scaled_dot_product_attention"]
    statuses = [op_coverage.run_sample(sdpa[0], s)[0]
                for s in list(sdpa[0].sample_inputs("cpu", torch.float32))[:4]]
    assert "out_of_scope" in statuses and "pass" in statuses
    assert not {"unsupported", "wrong", "crash"} & set(statuses)


def test_in_place_variants_update_a_copy_and_are_counted_apart():
    ops = [op for op in op_coverage.float32_opinfos() if op_coverage.full_name(op) in
           ("add", "clamp", "index_fill")]
    records = op_coverage.sweep(ops, samples=2, in_place_variants=True)
    updates = op_coverage.in_place(records)
    assert sorted(r["name"] for r in updates) == ["add_", "clamp_", "index_fill_"]
    assert all(r["status"] == "pass" for r in records), records
    assert op_coverage.summary(op_coverage.functional(records)).startswith("3/3 pass, 0 wrong")


class _ArenaProgram:
    """sin on the host, but wrong in the ways a device runtime can be: every run
    returns the same buffer, and `scribble` writes into its input."""

    def __init__(self, scribble: bool):
        self.out, self.scribble = None, scribble

    def run(self, x):
        self.out = torch.sin(x) if self.out is None else self.out.copy_(torch.sin(x))
        if self.scribble:
            x.zero_()
        return [self.out]


@pytest.mark.parametrize("scribble, found", [(False, "read after a second run"),
                                             (True, "running changed input 0")])
def test_a_run_may_not_change_its_inputs_or_what_an_earlier_run_returned(
        monkeypatch, scribble, found):
    sin = next(op for op in op_coverage.float32_opinfos() if op_coverage.full_name(op) == "sin")
    sample = next(s for s in sin.sample_inputs("cpu", torch.float32) if s.input.numel() > 1)
    assert op_coverage.run_sample(sin, sample)[0] == "pass"
    monkeypatch.setattr(op_coverage, "compile_exported", lambda ep, what: _ArenaProgram(scribble))
    status, detail, _ = op_coverage.run_sample(sin, sample)
    assert status == "wrong" and found in detail


def test_the_table_names_the_ge_ops_each_builder_emits():
    from lowering.aten import ATEN_TO_GE

    aten = torch.ops.aten
    assert op_coverage.ge_ops(ATEN_TO_GE[aten.sin.default]) == ["ge.sin"]
    assert "ge.conv1d" in op_coverage.ge_ops(ATEN_TO_GE[aten.conv1d.default])
    assert {"ge.matmul", "ge.reduce_sum"} <= set(op_coverage.ge_ops(ATEN_TO_GE[aten.addmv.default]))
    assert op_coverage.ge_ops(ATEN_TO_GE[aten.clone.default]) == []
    assert "`ge.sin`" in "\n".join(op_coverage.table_lines())


def test_a_partial_sweep_updates_only_its_opinfos(tmp_path, monkeypatch):
    results = tmp_path / "results.json"
    results.write_text(json.dumps([{"name": "a", "status": "pass", "detail": ""},
                                   {"name": "b", "status": "unsupported", "detail": "x"}]))
    monkeypatch.setattr(op_coverage, "RESULTS", results)
    new = op_coverage.merged([{"name": "b", "status": "pass", "detail": ""},
                              {"name": "c", "status": "pass", "detail": ""}])
    assert [(r["name"], r["status"]) for r in new] == [("a", "pass"), ("b", "pass"),
                                                       ("c", "pass")]


def test_bad_arguments_are_one_line_and_exit_2():
    run = subprocess.run([sys.executable, "-m", "tools.op_coverage", "--only", "no_such_op"],
                         capture_output=True, text=True, cwd=op_coverage.REPO)
    assert run.returncode == 2 and "no float32 OpInfo named no_such_op" in run.stderr
    assert "Traceback" not in run.stderr


def test_doc_is_current():
    """Rendered in a fresh process: tests in this one may add entries (plugins,
    custom ops) to the importer's table that the doc must not list."""
    check = subprocess.run([sys.executable, "-m", "tools.op_coverage", "--check"],
                           capture_output=True, text=True, cwd=op_coverage.REPO)
    assert check.returncode == 0, check.stdout + check.stderr
    records = json.loads(op_coverage.RESULTS.read_text())
    assert not [r for r in records if r["status"] in ("wrong", "crash")]
