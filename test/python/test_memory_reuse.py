"""memory-reuse on real models: the plan is tight and, since buffers are real
views into one arena, a wrong plan would give wrong numbers."""

import functools
import importlib.util
import random
from pathlib import Path

import pytest
import torch
from torch import nn
from xdsl.utils.exceptions import PassFailedException

from ge_dialect import ascend
from ge_dialect.plan_verifier import check_module
from npu_graph.compiler import import_model, lower, optimize, plan_device, run_pipeline
from passes.memory_reuse import memory_report
from passes.pipelines import DEFAULT_LEVEL
from runtime.executor import Executable
from test.models import article, branchy, resnet_block, tiny_resnet
from test.models.common import randomize_batch_norm
from test.models.resnet_block import BasicBlock

MODELS = {"article": article.make, "resnet_block": resnet_block.make,
          "tiny_resnet": tiny_resnet.make, "branchy": branchy.make,
          "two_towers": branchy.make_two_towers, "split_heads": branchy.make_split_heads}
BACKENDS = ["memory-reuse", "task-parallel,memory-reuse", "memory-reuse,task-parallel",
            "memory-reuse{strategy=size-class}", "memory-reuse{in-place=false}"]
TOL = dict(rtol=1e-4, atol=1e-4)
BOUND = 1.05


def eager(model, inputs):
    with torch.no_grad():
        return model(*inputs)


def buffers(module):
    return [op for op in module.walk() if isinstance(op, ascend.BufferOp)]


@functools.cache
def imported(name):
    """(GE module, inputs, eager output) of a zoo model, imported once: clone it."""
    model, inputs = MODELS[name]()
    return import_model(model, inputs), inputs, eager(model, inputs)


def planned(name, backend="memory-reuse", pipeline=DEFAULT_LEVEL):
    """The model lowered and planned by `backend`; the plan must verify (offsets,
    events, cross-stream uses, no overlap of buffers that may be live at once)."""
    module = lower(optimize(imported(name)[0].clone(), pipeline))
    if not backend:
        return module
    run_pipeline(module, backend)
    assert check_module(module) == []
    return module


def figures(module):
    fn = module.ops.first
    return (ascend.arena_size(fn), fn.attributes["ascend.memory_lower_bound"].value.data,
            fn.attributes["ascend.memory_naive"].value.data)


def random_legal_order(executable, rng):
    """A random topological order of the stream/event graph."""
    preds = [set(j.preds) for j in executable.jobs]
    done, order = set(), []
    while len(order) < len(preds):
        ready = [t for t in range(len(preds)) if t not in done and preds[t] <= done]
        t = rng.choice(ready)
        done.add(t)
        order.append(t)
    return order


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(MODELS))
def test_planned_models_match_eager_in_any_legal_order(name, backend):
    _, inputs, expected = imported(name)
    module = planned(name, backend)
    arena, lower_bound, naive = figures(module)
    assert lower_bound <= arena <= naive
    if "size-class" not in backend:  # GE's size classes trade bytes for a simple layout
        assert arena <= BOUND * lower_bound
    executable = Executable(module)
    (out,) = executable.run(*inputs)
    torch.testing.assert_close(out, expected, **TOL)
    rng = random.Random(0)
    for order in ["timeline", random_legal_order(executable, rng)]:
        executable.set_host_order(order)
        assert torch.equal(executable.run(*inputs)[0], out)


def test_unfused_graphs_run_elementwise_tasks_in_place():
    """Without fusion, ReLU and the residual add are vector tasks that may overwrite
    their input: fewer bytes than the plan without in-place, same numbers."""
    _, inputs, expected = imported("tiny_resnet")
    arenas = {}
    for in_place in (True, False):
        module = planned("tiny_resnet", f"memory-reuse{{in-place={str(in_place).lower()}}}",
                         pipeline="fold-batch-norm,dce")
        offsets = {b.output.name_hint: b.offset.value.data for b in buffers(module)}
        arenas[in_place] = figures(module)[0]
        torch.testing.assert_close(Executable(module).run(*inputs)[0], expected, **TOL)
        if in_place:
            # The stem's ReLU writes over the convolution it reads.
            assert offsets["relu"] == offsets["conv2d"]
    assert arenas[True] < arenas[False]


def test_a_wrong_plan_gives_wrong_numbers():
    """Two buffers live at once put at the same offset must break the result."""
    _, inputs, expected = imported("tiny_resnet")
    module = planned("tiny_resnet")
    bufs = buffers(module)
    stem, block_in = bufs[0], bufs[1]  # conv output, then the max-pool reading it
    assert stem.offset != block_in.offset
    block_in.properties["offset"] = stem.offset
    (out,) = Executable(module).run(*inputs)
    assert not torch.allclose(out, expected, **TOL)


class ResNet50Shape(nn.Module):
    """ResNet-50's stage layout (3, 4, 6, 3 blocks, stride-2 downsampling) from
    BasicBlocks, narrow and small so that it runs in the suite."""

    def __init__(self, width: int = 8):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 7, 2, 3, bias=False),
                                  nn.BatchNorm2d(width), nn.ReLU(), nn.MaxPool2d(3, 2, 1))
        blocks, cin = [], width
        for stage, count in enumerate((3, 4, 6, 3)):
            cout = width * 2**stage
            for i in range(count):
                blocks.append(BasicBlock(cin, cout, 2 if stage and not i else 1))
                cin = cout
        self.blocks = nn.Sequential(*blocks)
        self.fc = nn.Linear(cin, 10)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


@pytest.mark.parametrize("batch", [1, 8])
def test_resnet50_shape_arena_within_bound_of_lower_bound(batch):
    torch.manual_seed(0)
    model = randomize_batch_norm(ResNet50Shape()).eval()
    inputs = (torch.randn(batch, 3, 64, 64),)
    imported = import_model(model, inputs)
    expected = eager(model, inputs)
    # Fused as the default pipeline does, and op by op as torch.export gives it.
    for pipeline in ("fold-batch-norm,op-fusion,dce", "dce"):
        module = run_pipeline(lower(optimize(imported.clone(), pipeline)), "memory-reuse")
        assert check_module(module) == []
        arena, lower_bound, naive = figures(module)
        assert arena <= BOUND * lower_bound, memory_report(module)
        assert naive > 2 * arena
        torch.testing.assert_close(Executable(module).run(*inputs)[0], expected, **TOL)


def load_bench():
    """bench/memory_plan.py as a module: its --check is the Done-when check."""
    path = Path(__file__).parents[2] / "bench" / "memory_plan.py"
    spec = importlib.util.spec_from_file_location("memory_plan_bench", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("keyword", [
    "resnet50",
    # With attention and Add & Norm fused by op-fusion, BERT plans at the bound.
    "bert",
])
def test_zoo_models_arena_within_bound_and_match_eager(keyword):
    bench = load_bench()
    names = bench.matching(keyword)
    if not names:
        pytest.skip(f"no '{keyword}' model in test.models.ZOO on this branch (the model zoo "
                    "adds it); after merging: python bench/memory_plan.py --model NAME "
                    "--batch 1,8 --check")
    for name in names:
        assert bench.main(["--model", name, "--batch", "1,8", "--check"]) == 0


def test_budget_met_by_reordering_and_clear_error_below_the_peak():
    _, inputs, expected = imported("two_towers")
    module = planned("two_towers", "")
    naive = ascend.arena_size(module.ops.first)
    tight = run_pipeline(module.clone(), "memory-reuse")
    program_order_arena = figures(tight)[0]
    budget_mb = 0.3  # below the program-order peak, above the one-tower-at-a-time peak
    assert figures(tight)[1] > budget_mb * 2**20
    ok = plan_device(module.clone(), {"memory_limit_mb": budget_mb})
    arena = figures(ok)[0]
    assert arena <= budget_mb * 2**20 < program_order_arena < naive
    torch.testing.assert_close(Executable(ok).run(*inputs)[0], expected, **TOL)
    with pytest.raises(PassFailedException) as err:
        plan_device(module.clone(), {"memory_limit_mb": 0.1})
    message = str(err.value)
    assert "memory budget of 102.4 KiB" in message
    assert "peak of live tensors is" in message and "after reordering tasks" in message
    # Largest first, each with the task that produced it.
    assert "Live at the peak, largest first: %relu 256.0 KiB from 'conv2d_relu_" in message


def test_streams_first_cannot_reorder_and_says_so():
    with pytest.raises(PassFailedException, match="run memory-reuse before task-parallel"):
        planned("branchy", "task-parallel,memory-reuse{memory-limit-mb=0.01}")


def test_functions_that_are_not_lowered_are_left_alone():
    module = optimize(imported("article")[0].clone())
    before = str(module)
    run_pipeline(module, "memory-reuse,task-parallel")
    assert str(module) == before


def test_bad_options_name_the_option():
    module = planned("article", "")
    with pytest.raises(ValueError, match="strategy must be one of auto, best-fit, size-class"):
        run_pipeline(module, "memory-reuse{strategy=first-fit}")
    with pytest.raises(ValueError, match="memory-limit-mb must be > 0"):
        run_pipeline(module, "memory-reuse{memory-limit-mb=0}")
    with pytest.raises(ValueError, match="unknown option"):
        plan_device(module, {"ge.noSuchOption": 1})
