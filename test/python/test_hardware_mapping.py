"""hardware-mapping: every task-to-be carries its unit and cost, lowering honors
the unit, the cost is the one the runtime's cost model gives the task, and a
zoo model compiled with the pass (it is the last stage of ge-O3) still
matches eager at 1e-4."""

import pytest
from xdsl.dialects import func

from ge_dialect import ascend, ge
from npu_graph.compiler import import_model, lower, optimize
from passes.pipelines import LEVELS
from target import cost_model
from runtime.executor import Executable
from test.helpers import assert_all_close, eager
from test.models import ZOO


def function_level_ops(module):
    return [op for fn in module.ops if isinstance(fn, func.FuncOp)
            for op in fn.body.block.ops if not isinstance(op, ge.ConstOp | func.ReturnOp)]


def test_ge_o3_ends_with_hardware_mapping():
    assert LEVELS["ge-O3"][-1] == "hardware-mapping"


@pytest.mark.parametrize("name, units", [
    ("tiny_resnet", {"cube", "vector"}),
    ("custom_op", {"cube", "aicpu"}),   # the custom op has no AI Core kernel
    ("cond", {"vector", "aicpu"}),      # torch.cond runs on the AI CPU
])
def test_annotated_units_are_the_tasks_units_and_costs_match_the_runtime(name, units):
    model, inputs = ZOO[name]()
    module = optimize(import_model(model, inputs))
    ops = function_level_ops(module)
    annotated = [op.attributes["ge.unit"].data for op in ops]
    costs = [op.attributes["ge.cost_us"].value.data for op in ops]
    assert set(annotated) == units

    lower(module)
    tasks = [op for op in module.walk() if isinstance(op, ascend.TaskOp)]
    assert [t.unit.data for t in tasks] == annotated
    assert costs == pytest.approx([cost_model.estimate(t).time_us for t in tasks], abs=1e-3)
    assert not any("ge.unit" in op.attributes for t in tasks for op in t.body.walk())
    assert_all_close(Executable(module).run(*inputs), eager(model, *inputs))


def test_article_name_disables_it():
    model, inputs = ZOO["tiny_resnet"]()
    module = optimize(import_model(model, inputs), "ge-O3{disable=HardwareMappingPass}")
    assert not any("ge.unit" in op.attributes or "ge.cost_us" in op.attributes
                   for op in module.walk())
    assert_all_close(Executable(lower(module)).run(*inputs), eager(model, *inputs))


def test_910b_costs_differ_from_910():
    model, inputs = ZOO["tiny_resnet"]()
    a = optimize(import_model(model, inputs), "ge-O3")
    b = optimize(import_model(model, inputs),
                 "ge-O3{disable=hardware-mapping},hardware-mapping{hardware=ascend910b}")
    cost = lambda m: [op.attributes["ge.cost_us"].value.data for op in function_level_ops(m)]
    assert len(cost(a)) == len(cost(b)) and cost(a) != cost(b)
