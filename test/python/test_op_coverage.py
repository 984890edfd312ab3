"""ATen coverage on PyTorch's own OpInfo samples (tools/op_coverage.py).

The whole sweep is one command (`python -m tools.op_coverage`); here a fast,
varied subset runs in `make test` and must pass with no wrong result, and
docs/op-coverage.md must be what the committed sweep results render to."""

import json
import subprocess
import sys

import pytest

pytest.importorskip("expecttest")  # PyTorch's OpInfo database imports it

from tools import op_coverage  # noqa: E402

# One or two OpInfos per family: math, comparisons, reductions, scans,
# sorting, gathers, scatters, shapes, pads, convolutions, pools, norms,
# activations, resizing, matmuls.
FAST = (
    "sin", "atan2", "floor_divide", "where", "isnan", "var", "prod", "cumsum", "topk",
    "sort", "gather", "scatter_add", "take_along_dim", "flip", "roll", "diagonal",
    "nn.functional.pad.reflect", "nn.functional.conv1d", "nn.functional.max_pool2d",
    "nn.functional.group_norm", "nn.functional.rms_norm", "nn.functional.elu",
    "log_softmax", "nn.functional.interpolate.bilinear", "einsum", "special.zeta",
)


@pytest.fixture(scope="module")
def records():
    ops = [op for op in op_coverage.float32_opinfos() if op_coverage.full_name(op) in FAST]
    assert {op_coverage.full_name(op) for op in ops} == set(FAST), "an OpInfo was renamed"
    return op_coverage.sweep(ops)


def test_fast_subset_passes_with_no_wrong_result(records):
    failed = {r["name"]: f"{r['status']}: {r['detail']}" for r in records
              if r["status"] != "pass"}
    assert not failed


def test_out_of_scope_is_decided_by_name_with_a_reason():
    assert op_coverage.scope("linalg.inv") and op_coverage.scope("fft.fft")
    assert op_coverage.scope("normal") and op_coverage.scope("nonzero")
    assert op_coverage.scope("sin") is None and op_coverage.scope("nn.functional.conv2d") is None


def test_doc_is_current():
    """Rendered in a fresh process: tests in this one may add entries (plugins,
    custom ops) to the importer's table that the doc must not list."""
    check = subprocess.run([sys.executable, "-m", "tools.op_coverage", "--check"],
                           capture_output=True, text=True, cwd=op_coverage.REPO)
    assert check.returncode == 0, check.stdout + check.stderr
    records = json.loads(op_coverage.RESULTS.read_text())
    assert not [r for r in records if r["status"] in ("wrong", "crash")]
