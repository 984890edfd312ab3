"""Dynamic shapes: `Dim` markers import as `?`, verify, and one compiled graph runs
at several sizes, planning its dynamic buffers once per gear (runtime/gears.py)."""

import pytest
import torch
from torch.export import Dim

from ge_dialect import ascend
from lowering.torch_to_ge import import_module
from npu_graph.compiler import lower, optimize
from runtime.executor import Executable
from runtime.reference import evaluate
from test.helpers import assert_all_close, eager
from test.models import ZOO, dynamic_shapes

@pytest.fixture(scope="module")
def dynamic_batch():
    model, inputs = ZOO["dynamic_batch"]()
    return model, import_module(model, inputs, dynamic_shapes=dynamic_shapes(model))


def test_dynamic_batch_imports_as_question_mark(dynamic_batch):
    _, module = dynamic_batch
    module.verify()
    assert "func.func @main(%x: tensor<?x3x16x16xf32>) -> tensor<?x5xf32>" in str(module)


@pytest.mark.parametrize("batch", [1, 3, 8])
def test_reference_evaluator_runs_any_batch(dynamic_batch, batch):
    model, module = dynamic_batch
    x = torch.randn(batch, 3, 16, 16)
    assert_all_close(evaluate(module, x), eager(model, x))


def test_compiled_once_runs_at_batch_1_3_8(dynamic_batch):
    model, module = dynamic_batch
    lowered = lower(optimize(module.clone()))
    assert any(isinstance(op, ascend.DynBufferOp) for op in lowered.walk())
    executable = Executable(lowered)
    programs = [t.body for t in executable.tasks]
    memory = {}
    for batch in (1, 3, 8, 3, 1):
        x = torch.randn(batch, 3, 16, 16)
        assert_all_close(executable.run(x), eager(model, x))
        memory[batch] = executable.stats["memory_usage"]
        assert executable.stats["execution_time"] > 0
    # One plan per gear (the next power of two), reused; the kernels prepared at
    # load served all sizes.
    assert sorted(executable.plans) == [((b, 3, 16, 16),) for b in (1, 4, 8)]
    assert [t.body for t in executable.tasks] == programs
    assert memory[1] < memory[3] < memory[8]


def test_cached_plan_really_holds_the_buffers(dynamic_batch):
    """Dynamic buffers are views of the plan's arena, and the results are
    written there; the `?`-shaped output is the tensor its task computed,
    returned without a copy and never overwritten by a later run."""
    model, module = dynamic_batch
    executable = Executable(lower(optimize(module.clone())))
    x = torch.randn(2, 3, 16, 16)
    executable.run(x)  # plans gear 2
    plan = executable.plans[((2, 3, 16, 16),)]
    views = plan.views_at(((2, 3, 16, 16),))
    start, size = plan.arena.data_ptr(), plan.arena.numel()
    assert views
    for _, view in views:
        assert start <= view.data_ptr() < start + size
    (out_slot,) = executable.outputs
    assert out_slot not in dict(views)
    x = torch.randn(2, 3, 16, 16)
    (y,) = executable.run(x)
    assert not start <= y.data_ptr() < start + size
    kept = y.clone()
    (again,) = executable.run(torch.randn(2, 3, 16, 16))
    assert again.data_ptr() != y.data_ptr() and torch.equal(y, kept)
    assert_all_close((y,), eager(model, x))
    plan.arena.zero_()  # the arena is scratch: the next run rewrites every buffer
    assert_all_close(executable.run(x), eager(model, x))


def test_dynamic_batch_transformer():
    """BERT with a dynamic batch: masks, embeddings and attention at batch 1 and 3."""
    model, (ids, mask) = ZOO["bert"]()
    batch = Dim("batch", min=1, max=16)
    module = import_module(model, (ids, mask), dynamic_shapes=({0: batch}, {0: batch}))
    module.verify()
    executable = Executable(lower(optimize(module.clone())))
    for b in (1, 3):
        inputs = (torch.randint(0, 100, (b, 12)), torch.ones(b, 12, dtype=torch.int64))
        expected = eager(model, *inputs)
        assert_all_close(evaluate(module, *inputs), expected)
        assert_all_close(executable.run(*inputs), expected)


def test_dynamic_batch_and_sequence_length_gpt2():
    """GPT-2 with `?` batch and `?` sequence: arange(T), causal masks of TxT and
    multi-head views read T at run time (ge.dim); one compiled graph runs them all."""
    model, (ids,) = ZOO["gpt2"]()
    dims = ({0: Dim("batch", min=1, max=16), 1: Dim("seq", min=2, max=31)},)
    module = import_module(model, (ids,), dynamic_shapes=dims)
    module.verify()
    text = str(module)
    assert "func.func @main(%idx: tensor<?x?xi64>) -> tensor<?x?x100xf32>" in text
    assert "ge.dim %idx {dim = 1 : i64}" in text and "ge.arange" in text
    executable = Executable(lower(optimize(module.clone())))
    for b, t in ((1, 5), (3, 17), (2, 31)):
        x = torch.randint(0, 100, (b, t))
        expected = eager(model, x)
        assert_all_close(evaluate(module, x), expected)
        assert_all_close(executable.run(x), expected)
    assert len(executable.plans) == 3


class StaticBeside(torch.nn.Module):
    """A decode step's shape: a linear of one row (static) beside a sum over
    a length that grows each call (dynamic)."""

    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(32, 48)

    def forward(self, x, cache):
        h = self.proj(x)
        return h * 2.0, torch.cat([cache, h[:, None, :16]], dim=1).sum(1) + h[:, :16]


def test_static_tasks_of_a_dynamic_graph_run_the_fast_runners():
    torch.manual_seed(0)
    model = StaticBeside().eval()
    example = (torch.randn(1, 32), torch.randn(1, 5, 16))
    module = import_module(model, example, dynamic_shapes=(None, {1: Dim("length", max=64)}))
    executable = Executable(lower(optimize(module)))
    replica = executable._new_replica()
    static = replica._static_tasks()
    names = {replica.tasks[i].name: replica.runners[i].__name__ for i in static}
    assert any(n.startswith("linear") for n in names), names  # the projection is static
    assert all(r != "generic" for n, r in names.items() if n.startswith("linear")), names
    dynamic = set(range(len(replica.tasks))) - static
    assert all(replica.runners[i].__name__ == "generic" for i in dynamic)
    for length in (5, 6, 7, 19, 6):
        x, cache = torch.randn(1, 32), torch.randn(1, length, 16)
        for got, want in zip(executable.run(x, cache), eager(model, x, cache)):
            torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)
