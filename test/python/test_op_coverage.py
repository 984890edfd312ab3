"""ATen coverage on PyTorch's own OpInfo samples (tools/op_coverage.py).

The whole sweep is one command (`python -m tools.op_coverage`); here a fast,
varied subset runs in `make test` and must pass with no wrong result, and
docs/op-coverage.md must be what the committed sweep results render to."""

import json

import pytest

pytest.importorskip("expecttest")  # PyTorch's OpInfo database imports it

from tools import op_coverage  # noqa: E402

# One or two OpInfos per family: math, comparisons, reductions, scans,
# sorting, gathers, scatters, shapes, pads, convolutions, pools, norms,
# activations, resizing, matmuls.
FAST = (
    "sin", "atan2", "remainder", "floor_divide", "clamp", "where", "isnan", "sum", "amax",
    "var", "prod", "cumsum", "argmax", "topk", "sort", "gather", "index_select",
    "scatter_add", "scatter", "take_along_dim", "cat", "flip", "repeat", "roll",
    "nn.functional.pad.reflect", "nn.functional.conv1d", "nn.functional.conv3d",
    "nn.functional.max_pool2d", "nn.functional.avg_pool1d", "nn.functional.group_norm",
    "nn.functional.rms_norm", "nn.functional.layer_norm", "nn.functional.silu",
    "nn.functional.elu", "nn.functional.softplus", "log_softmax", "softmax",
    "nn.functional.interpolate.bilinear", "matmul", "einsum",
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
    records = json.loads(op_coverage.RESULTS.read_text())
    assert op_coverage.DOC.read_text() == op_coverage.render(records), (
        "docs/op-coverage.md is stale: run python -m tools.op_coverage --write (the sweep) "
        "or --render (after a change to the importer's table)")
    assert not [r for r in records if r["status"] in ("wrong", "crash")]
