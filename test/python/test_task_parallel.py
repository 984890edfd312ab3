"""task-parallel on models with parallel branches: more streams, shorter
simulated device time, identical numbers."""

import functools

import pytest
import torch

from ge_dialect import ascend
from npu_graph.compiler import import_model, lower, optimize, plan_device, run_pipeline
from passes.planning.task_graph import ancestors, dependences, read_function
from runtime.executor import Executable
from test.models import branchy, resnet_block, tiny_resnet

BRANCHY = {"inception": branchy.make, "split_heads": branchy.make_split_heads,
           "resnet_block": resnet_block.make, "tiny_resnet": tiny_resnet.make}


@functools.cache
def lowered(name):
    model, inputs = BRANCHY[name]()
    return lower(optimize(import_model(model, inputs))), inputs


def compiled(name, options=None):
    module, inputs = lowered(name)
    return Executable(plan_device(module.clone(), options)), inputs


@pytest.mark.parametrize("name", sorted(BRANCHY))
def test_branches_get_streams_and_a_shorter_makespan(name):
    parallel, inputs = compiled(name)
    single, _ = compiled(name, {"ge.enableSingleStream": True})
    assert parallel.stats["num_streams"] > 1
    assert single.stats["num_streams"] == 1
    assert parallel.stats["execution_time"] < single.stats["execution_time"]
    assert torch.equal(parallel.run(*inputs)[0], single.run(*inputs)[0])


def test_stream_cap_mirrors_stream_max_parallel_num():
    for cap in (1, 2, 3):
        executable, _ = compiled("inception", {"ge.streamMaxParallelNum": cap})
        assert executable.stats["num_streams"] <= cap
    assert compiled("inception")[0].stats["num_streams"] == 4  # the default cap


def events(module):
    return [op for op in module.walk()
            if isinstance(op, ascend.RecordEventOp | ascend.WaitEventOp)]


def test_events_only_where_a_cross_stream_dependence_needs_one():
    module = run_pipeline(lowered("inception")[0].clone(), "task-parallel")
    fn = module.ops.first
    graph = read_function(fn)
    records = {op.event.value.data: op.stream.value.data for op in events(module)
               if isinstance(op, ascend.RecordEventOp)}
    waits = {op.event.value.data: op.stream.value.data for op in events(module)
             if isinstance(op, ascend.WaitEventOp)}
    assert records.keys() == waits.keys() and records
    assert all(records[e] != waits[e] for e in records)  # never within one stream
    # Every data dependence is ordered on the device...
    anc = ancestors(graph.preds)
    for t, deps in enumerate(dependences(graph, physical=True)):
        assert all(anc[t] >> d & 1 for d in deps)
    # ...and no event is implied by the others and stream order.
    for e in records:
        fewer = [op for op in fn.body.block.ops
                 if not (isinstance(op, ascend.RecordEventOp | ascend.WaitEventOp)
                         and op.event.value.data == e)]
        assert ancestors(ascend.task_predecessors(fewer)) != anc


def test_running_twice_gives_the_same_streams():
    once = run_pipeline(lowered("inception")[0].clone(), "task-parallel")
    twice = run_pipeline(once.clone(), "task-parallel")
    assert str(once) == str(twice)


def test_910b_puts_vector_tasks_on_vector_cores():
    module = run_pipeline(lowered("inception")[0].clone(),
                          "task-parallel{hardware=ascend910b},memory-reuse")
    from target.hardware import HARDWARE

    executable = Executable(module, hardware=HARDWARE["ascend910b"])
    groups = {t["unit"]: t["core_group"] for t in executable.stats["tasks"]}
    assert groups == {"cube": "ai_core", "vector": "vector_core"}
    assert set(executable.stats["utilization"]) == {"ai_core", "vector_core", "ai_cpu"}


def test_independent_branches_that_fill_the_chip_stay_on_one_stream():
    """TwoTowers' convolutions each have more 16x16 output tiles than the chip has
    cores: side by side they would only queue for cores and pay for events."""
    model, inputs = branchy.make_two_towers()
    module = run_pipeline(lower(optimize(import_model(model, inputs))), "task-parallel")
    assert {op.stream.value.data for op in module.walk() if isinstance(op, ascend.TaskOp)} == {0}
    assert not events(module)


def test_dynamic_shapes_keep_their_dependences_across_streams():
    """Regression (found by verify-plan): task-parallel read dependences from
    ascend.buffer only, so tasks linked through ascend.dyn_buffer went to
    different streams with no event between them."""
    from torch.export import Dim

    from ge_dialect.plan_verifier import check_module

    model, (x,) = branchy.make()
    x = torch.cat([x, x + 1])  # torch.export specializes a batch of 1
    module = lower(optimize(import_model(model, (x,), dynamic_shapes=({0: Dim("batch")},))))
    assert any(isinstance(op, ascend.DynBufferOp) for op in module.walk())
    run_pipeline(module, "task-parallel", verify_each=False)
    streams = {op.stream.value.data for op in module.walk() if isinstance(op, ascend.TaskOp)}
    assert len(streams) > 1
    assert check_module(module) == []
    graph = read_function(module.ops.first)
    anc = ancestors(graph.preds)
    for t, deps in enumerate(dependences(graph, physical=False)):
        assert all(anc[t] >> u & 1 for u in deps)
    batch = torch.cat([x, x[:1] - 1])
    with torch.no_grad():
        expected = model(batch)
    torch.testing.assert_close(Executable(module).run(batch)[0], expected, rtol=1e-4, atol=1e-4)
