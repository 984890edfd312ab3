"""verify-plan on real plans: clean after the device passes, broken by hand
and caught, a planner bug blamed on the planner under --verify-each, and
fast on thousands of tasks. Hand-written IR cases: test/filecheck/errors/verify-plan.mlir."""

import contextlib
import functools
import io
import tempfile
import random
import re
import time

import pytest
import torch
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp, f32, i64
from xdsl.ir import Block, Region
from xdsl.utils.exceptions import PassFailedException, VerifyException

from ge_dialect import ascend, ge, plan_verifier
from ge_dialect.plan_verifier import check_function, check_module
from npu_graph.compiler import import_model, lower, optimize, run_pipeline
from passes.planning import memory as memory_plan
from runtime.executor import Executable
from test.models import branchy, tiny_resnet
from tools.ge_opt import INTERNAL_ERROR, USER_ERROR, main

MODELS = {"tiny_resnet": tiny_resnet.make, "inception": branchy.make}
TOL = dict(rtol=1e-4, atol=1e-4)


@functools.cache
def lowered(name):
    model, inputs = MODELS[name]()
    with torch.no_grad():
        expected = model(*inputs)
    return lower(optimize(import_model(model, inputs))), inputs, expected


def planned(name, pipeline="task-parallel,memory-reuse"):
    module, inputs, expected = lowered(name)
    return run_pipeline(module.clone(), pipeline), inputs, expected


def buffers(module):
    return [op for op in module.walk() if isinstance(op, ascend.BufferOp)]


def streams(module):
    return {op.stream.value.data for op in module.walk() if isinstance(op, ascend.TaskOp)}


@pytest.mark.parametrize("pipeline", ["task-parallel,memory-reuse",
                                      "memory-reuse,task-parallel", "memory-reuse"])
@pytest.mark.parametrize("name", sorted(MODELS))
def test_device_passes_make_plans_that_verify(name, pipeline):
    module, inputs, expected = planned(name, pipeline)
    assert check_module(module) == []
    text = str(module)
    run_pipeline(module, "verify-plan")  # and the pass agrees, changing nothing
    assert str(module) == text
    torch.testing.assert_close(Executable(module).run(*inputs)[0], expected, **TOL)


def concurrent_pair(module):
    """Two buffers of tasks on different streams with no event path between them."""
    fn = module.ops.first
    writer = {}
    for op in fn.body.block.ops:
        if isinstance(op, ascend.TaskOp):
            for v in op.outs:
                writer[v] = op
    bufs = [b for b in buffers(module) if b.output in writer]
    for a in bufs:
        for b in bufs:
            if writer[a.output].stream != writer[b.output].stream and a.offset != b.offset:
                return a, b
    raise AssertionError("no buffers on two streams")


def test_an_offset_moved_over_a_live_buffer_is_caught():
    """Move one buffer onto another that a concurrent stream uses: the verifier
    names both, and the plan is not one the device could run."""
    module, inputs, expected = planned("inception")
    assert len(streams(module)) > 1
    a, b = concurrent_pair(module)
    b.properties["offset"] = a.offset
    problems = check_module(module)
    assert problems, "the verifier missed an overlap of buffers on two streams"
    names = (f"%{a.output.name_hint}", f"%{b.output.name_hint}")
    assert any(all(n in p for n in names) and "overlap but may be live at once" in p
               and f"bytes [{a.offset.value.data}, " in p for p in problems), problems
    with pytest.raises(PassFailedException, match=r"verify-plan: @\w+: "):
        run_pipeline(module, "verify-plan")


def test_an_offset_moved_on_one_stream_is_caught_and_gives_wrong_numbers():
    module, inputs, expected = planned("tiny_resnet", "memory-reuse")
    stem, block_in = buffers(module)[:2]  # conv output, then the max-pool reading it
    block_in.properties["offset"] = stem.offset
    problems = check_module(module)
    assert any(f"%{stem.output.name_hint} (bytes [0, " in p and
               f"%{block_in.output.name_hint} (bytes [0, " in p for p in problems), problems
    assert not torch.allclose(Executable(module).run(*inputs)[0], expected, **TOL)


def test_the_checks_do_not_assume_the_op_verifiers_ran():
    """On IR nobody verified, a buffer past the arena is reported, not a crash."""
    module, _, _ = planned("tiny_resnet", "memory-reuse")
    fn = module.ops.first
    last = buffers(module)[-1]
    last.properties["offset"] = IntegerAttr(ascend.arena_size(fn), i64)
    (problem,) = check_function(fn)
    assert problem.startswith(f"%{last.output.name_hint} at bytes [{ascend.arena_size(fn)}, ")
    assert problem.endswith(f"lies outside the arena of {ascend.arena_size(fn)} bytes")


GE_TEXT = """func.func @towers(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %a = ge.relu %x : tensor<1x4x8x8xf32>
  %a2 = ge.exp %a : tensor<1x4x8x8xf32>
  %b = ge.sigmoid %x : tensor<1x4x8x8xf32>
  %b2 = ge.exp %b : tensor<1x4x8x8xf32>
  %y = ge.add %a2, %b2 : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}
"""


def ge_opt(tmp_path, monkeypatch, *args):
    path = tmp_path / "in.mlir"
    path.write_text(GE_TEXT)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(path), *args])
    return code, err.getvalue()


def every_offset_zero(allocs, conflict, strategy):
    return [0] * len(allocs), strategy


def test_verify_each_blames_a_planner_that_breaks_the_plan(tmp_path, monkeypatch):
    monkeypatch.setattr(memory_plan, "plan", every_offset_zero)
    pipeline = "lower-to-ascend,task-parallel,memory-reuse"
    code, err = ge_opt(tmp_path, monkeypatch, "-p", pipeline)  # the guard rails are default
    assert code == INTERNAL_ERROR, err
    first = err.splitlines()[0]
    assert first.startswith("ge-opt: internal compiler error in pass 'memory-reuse' (its output "
                            "does not verify): PassVerifyError: IR after pass 'memory-reuse' "
                            "does not verify: its device plan is broken: @towers: ")
    assert "overlap but may be live at once" in first
    # Without the guard rails nothing checks; verify-plan then says it, as a user error.
    code, err = ge_opt(tmp_path, monkeypatch, "-p", pipeline + ",verify-plan",
                       "--no-guard-rails")
    # At @towers's position, as MLIR prints a pass's error, or alone when it has none.
    assert code == USER_ERROR and re.match(r"(ge-opt|\S+:\d+:\d+): error: verify-plan: @towers: ",
                                           err), err
    assert len(err.strip().splitlines()) in (1, 3) and "Traceback" not in err


def test_verify_each_does_not_blame_a_pass_for_a_plan_broken_on_input():
    """task-parallel keeps offsets: if they overlap on input, that is not its bug."""
    module, _, _ = planned("tiny_resnet", "memory-reuse")
    stem, block_in = buffers(module)[:2]
    block_in.properties["offset"] = stem.offset
    run_pipeline(module, "task-parallel")  # verify_each is on: no VerifyException
    with pytest.raises(PassFailedException):
        run_pipeline(module, "verify-plan")


def test_the_python_api_checks_plans_under_verify_each(monkeypatch):
    monkeypatch.setattr(memory_plan, "plan", every_offset_zero)
    module, _, _ = lowered("inception")
    with pytest.raises(VerifyException, match="IR after pass 'memory-reuse' does not verify: "
                                              "its device plan is broken"):
        run_pipeline(module.clone(), "task-parallel,memory-reuse")


def chain_on_streams(tasks: int, streams: int) -> func.FuncOp:
    """`tasks` relu tasks round-robin over streams, each reading the previous one's
    buffer through an event, buffers reusing two slots: a large valid plan."""
    t = MemRefType(f32, [128])
    fn = func.FuncOp("big", ([t], [t]))
    block = fn.body.block
    prev = block.args[0]
    for i in range(tasks):
        buf = ascend.BufferOp(t, 512 * (i % 2))
        body = Block(arg_types=[ascend.as_tensor(t)])
        relu = ge.ReluOp(body.args[0])
        body.add_ops([relu, ge.YieldOp(relu.output)])
        if i:
            block.add_op(ascend.RecordEventOp(i, (i - 1) % streams))
            block.add_op(ascend.WaitEventOp(i, i % streams))
        block.add_ops([buf, ascend.TaskOp(f"relu_{i}", "vector", i % streams, [prev], [buf.output],
                                          Region(body))])
        prev = buf.output
    block.add_op(func.ReturnOp(prev))
    fn.attributes[ascend.ARENA_SIZE] = IntegerAttr(1024, i64)
    return fn


def test_thousands_of_tasks_verify_quickly():
    fn = chain_on_streams(3000, 4)
    ModuleOp([fn])
    start = time.perf_counter()
    assert check_function(fn) == []
    assert time.perf_counter() - start < 5.0  # 0.3 s here (10,000 tasks: 1.3 s)
    # Drop one wait: the next task now races with its predecessor on another stream.
    wait = next(op for op in fn.body.block.ops if isinstance(op, ascend.WaitEventOp)
                and op.event.value.data == 1500)
    wait.detach()
    problems = check_function(fn)
    assert any("task 'relu_1500' (stream 0) reads" in p and "'relu_1499' (stream 3)" in p
               for p in problems), problems


def random_plan(rng: random.Random) -> func.FuncOp:
    """Up to 12 relu/add tasks over 3 streams, random events, buffers in 3 slots."""
    t = MemRefType(f32, [4])
    fn = func.FuncOp("random", ([t], [t]))
    block = fn.body.block
    values, event = [block.args[0]], 0
    for i in range(rng.randint(1, 12)):
        if rng.random() < 0.4:
            block.add_ops([ascend.RecordEventOp(event, rng.randrange(3)),
                           ascend.WaitEventOp(event, rng.randrange(3))])
            event += 1
        ins = rng.sample(values, min(len(values), rng.choice([1, 2])))
        body = Block(arg_types=[ascend.as_tensor(t)] * len(ins))
        op = (ge.ReluOp(body.args[0]) if len(ins) == 1
              else ge.AddOp(body.args[0], body.args[1]))
        body.add_ops([op, ge.YieldOp(op.output)])
        buf = ascend.BufferOp(t, 512 * rng.randrange(3))
        block.add_ops([buf, ascend.TaskOp(f"t_{i}", "vector", rng.randrange(3), ins,
                                          [buf.output], Region(body))])
        values.append(buf.output)
    block.add_op(func.ReturnOp(values[-1]))
    fn.attributes[ascend.ARENA_SIZE] = IntegerAttr(1536, i64)
    return fn


def overlaps_pairwise(fn: func.FuncOp) -> bool:
    """The overlap rule checked on every pair of buffers, the slow obvious way."""
    f = plan_verifier._read(fn)
    life = plan_verifier._Lifetimes(f)
    placed = [v for v in f.values.values() if v.offset is not None and life.access[v.value]]
    return any(a.offset == b.offset and not (
        life.over_before(a, b) or life.over_before(b, a) or life.in_place(a, b)
        or life.in_place(b, a)) for i, a in enumerate(placed) for b in placed[i + 1:])


def test_the_sweep_finds_an_overlap_exactly_when_some_pair_has_one():
    """Checking neighbours only is exact because "follows" is transitive."""
    rng = random.Random(0)
    seen = {True: 0, False: 0}
    for _ in range(400):
        fn = random_plan(rng)
        ModuleOp([fn])
        expected = overlaps_pairwise(fn)
        found = any("overlap" in p for p in check_function(fn))
        assert found == expected, str(fn)
        seen[expected] += 1
    assert min(seen.values()) > 50, seen  # both outcomes were exercised
