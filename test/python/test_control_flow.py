"""torch.cond -> ge.if and while_loop -> ge.while, run by the reference evaluator and,
lowered to one AI CPU task each, by the runtime."""

import pytest
import torch

from ge_dialect import ascend, ge
from lowering.torch_to_ge import UnsupportedOpError, import_module
from npu_graph.compiler import lower, optimize
from runtime.executor import Executable
from runtime.reference import evaluate
from test.helpers import TOL, assert_all_close, eager
from test.models import ZOO

@pytest.fixture(scope="module")
def cond_case():
    model, inputs = ZOO["cond"]()
    module = import_module(model, inputs)
    return model, module, Executable(lower(optimize(module.clone())))


def test_cond_imports_as_ge_if_with_two_regions(cond_case):
    _, module, _ = cond_case
    (op,) = [op for op in module.walk() if isinstance(op, ge.IfOp)]
    then_ops = {o.name for o in op.then_region.block.ops}
    else_ops = {o.name for o in op.else_region.block.ops}
    assert "ge.conv2d" in then_ops and "ge.relu" in then_ops
    assert "ge.mul" in else_ops and "ge.conv2d" not in else_ops
    # The branches' weights are constants inside their isolated regions.
    assert "ge.const" in then_ops and [v.type for v in op.inputs] == [op.outputs[0].type]


@pytest.mark.parametrize("sign", [1.0, -1.0], ids=["then", "else"])
def test_cond_runs_the_branch_its_input_selects(cond_case, sign):
    model, module, executable = cond_case
    x = sign * torch.rand(1, 4, 8, 8)
    expected = eager(model, x)
    assert_all_close(evaluate(module, x), expected)
    assert_all_close(executable.run(x), expected)


def test_cond_branches_really_differ(cond_case):
    """Guard against a runtime that always takes one branch."""
    model, module, executable = cond_case
    x = torch.rand(1, 4, 8, 8)
    bright, dark = executable.run(x)[0], executable.run(-x)[0]
    torch.testing.assert_close(bright, torch.relu(model.conv(x)) + 1.0, **TOL)
    torch.testing.assert_close(dark, -x * model.scale - 1.0 + 1.0, **TOL)


def test_control_flow_lowers_to_one_aicpu_task(cond_case):
    _, module, executable = cond_case
    lowered = lower(optimize(module.clone()))
    (task,) = [t for t in lowered.walk() if isinstance(t, ascend.TaskOp) and t.unit.data == "aicpu"]
    assert isinstance(task.body.block.first_op, ge.IfOp)
    assert {t["unit"] for t in executable.stats["tasks"]} >= {"aicpu"}


@pytest.fixture(scope="module")
def while_case():
    model, inputs = ZOO["while_loop"]()
    module = import_module(model, inputs)
    return model, module, Executable(lower(optimize(module.clone())))


@pytest.mark.parametrize("n", [0, 1, 3, 6])
def test_while_loop_runs_n_iterations(while_case, n):
    model, module, executable = while_case
    x, count = torch.randn(2, 8), torch.tensor(n)
    expected = eager(model, x, count)
    assert_all_close(evaluate(module, x, count), expected)
    assert_all_close(executable.run(x, count), expected)
    if n == 0:
        assert_all_close(expected, (x,))


def test_while_loop_ir(while_case):
    _, module, _ = while_case
    (op,) = [op for op in module.walk() if isinstance(op, ge.WhileOp)]
    assert [o.name for o in op.cond_region.block.ops] == ["ge.compare", "ge.yield"]
    assert "ge.linear" in {o.name for o in op.body_region.block.ops}
    # Carried: the counter, y, and the loop-invariant bound n (passed through).
    assert len(op.inputs) == 3


class BranchesWithUnsupportedOps(torch.nn.Module):
    def forward(self, x):
        def then(x):
            return torch.logcumsumexp(x, 0)

        def otherwise(x):
            return torch.cummin(x, 0)[0]

        y = torch.cond(x.sum() > 0, then, otherwise, (x,))
        return torch.nanmedian(y, 0)[0]


def test_unsupported_ops_in_every_branch_are_reported_at_once():
    with pytest.raises(UnsupportedOpError) as info:
        import_module(BranchesWithUnsupportedOps(), (torch.randn(4),))
    report = str(info.value)
    assert [op.op for op in info.value.ops] == [
        "aten.logcumsumexp.default", "aten.cummin.default", "aten.nanmedian.dim"]
    # torch records the torch.cond call as the source of a branch's nodes (not the
    # line inside the branch): that, never torch's generated graph code, is shown.
    lines = report.splitlines()[1:4]
    assert all("test_control_flow.py:" in line for line in lines)
    assert "torch.cond(x.sum() > 0, then, otherwise, (x,))" in lines[0]
    assert "torch.cond(x.sum() > 0, then, otherwise, (x,))" in lines[1]
    assert "return torch.nanmedian(y, 0)[0]" in lines[2]
    assert "eval_with_key" not in report
