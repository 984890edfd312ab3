"""Import -> passes -> lowering -> run, checked against PyTorch eager.

Every stage is checked numerically on its own (the GE reference evaluator
after each pass, the Ascend executor after lowering), so a failure names the
stage that broke the numbers.
"""

import pytest
import torch

from ge_dialect import ascend, ge
from npu_graph.compiler import import_model, lower, optimize, run_pipeline
from passes.pipelines import DEFAULT_LEVEL
from passes.pipelines import NC1HWC0_PIPELINE
from runtime.executor import Executable
from runtime.program import InputError
from runtime.reference import evaluate
from test.models import article, resnet_block, tiny_resnet

MODELS = {"article": article.make, "resnet_block": resnet_block.make,
          "tiny_resnet": tiny_resnet.make}
TOL = dict(rtol=1e-4, atol=1e-4)


def eager(model, inputs):
    with torch.no_grad():
        return model(*inputs)


def ops_named(module, name):
    return [op for op in module.walk() if op.name == name]


@pytest.fixture(scope="module", params=sorted(MODELS))
def case(request):
    model, inputs = MODELS[request.param]()
    return request.param, model, inputs, eager(model, inputs)


def test_import_matches_eager(case):
    _, model, inputs, expected = case
    (out,) = evaluate(import_model(model, inputs), *inputs)
    torch.testing.assert_close(out, expected, **TOL)


@pytest.mark.parametrize("pipeline", ["canonicalize", "constant-fold", "cse", "fold-batch-norm",
                                      "layout-transform", "op-fusion", "dce", "ge-O0", "ge-O1", "ge-O2",
                                      "ge-O3{disable=OpFusionPass}", NC1HWC0_PIPELINE,
                                      DEFAULT_LEVEL])
def test_each_pass_preserves_numerics(case, pipeline):
    _, model, inputs, expected = case
    module = run_pipeline(import_model(model, inputs), pipeline)
    (out,) = evaluate(module, *inputs)
    torch.testing.assert_close(out, expected, **TOL)


def test_compiled_model_matches_eager(case):
    name, model, inputs, expected = case
    module = lower(optimize(import_model(model, inputs)))
    executable = Executable(module)
    (out,) = executable.run(*inputs)
    torch.testing.assert_close(out, expected, **TOL)
    # Prepared once, run many: a second run with new data is still right.
    other = tuple(torch.randn_like(x) for x in inputs)
    torch.testing.assert_close(executable.run(*other)[0], eager(model, other), **TOL)


def test_optimized_article_model_is_one_fused_op():
    model, inputs = article.make()
    module = optimize(import_model(model, inputs), NC1HWC0_PIPELINE)
    assert not ops_named(module, "ge.batch_norm")
    (fused,) = ops_named(module, "ge.fused")
    assert fused.kind.data == "conv2d_relu"
    top = [op.name for op in module.ops.first.body.block.ops]
    assert top == ["ge.const", "ge.const", "ge.trans_data", "ge.fused", "ge.trans_data",
                   "func.return"]


def test_resnet_block_fuses_the_residual_join():
    model, inputs = resnet_block.make()
    module = optimize(import_model(model, inputs), NC1HWC0_PIPELINE)
    kinds = sorted(op.kind.data for op in ops_named(module, "ge.fused"))
    # conv1+bn1+relu, conv2+bn2+add(downsample)+relu; the downsample conv stays alone.
    assert kinds == ["conv2d_add_relu", "conv2d_relu"]
    assert not ops_named(module, "ge.batch_norm")
    # The block runs in NC1HWC0 between one conversion in and one out.
    assert len(ops_named(module, "ge.trans_data")) == 2
    lower(module)
    tasks = ops_named(module, "ascend.task")
    assert [t.unit.data for t in tasks] == ["vector"] + ["cube"] * 3 + ["vector"]
    assert len(ops_named(module, "ascend.buffer")) == 5


def test_stats_report_arena_time_and_tasks():
    model, inputs = tiny_resnet.make()
    module = lower(optimize(import_model(model, inputs)))
    executable = Executable(module)
    executable.run(*inputs)
    stats = executable.stats
    fn = module.ops.first
    assert stats["memory_usage"] == ascend.arena_size(fn) / 2**20 > 0
    assert stats["execution_time"] > 0 and stats["host_time"] > 0
    tasks = stats["tasks"]
    assert len(tasks) == len(ops_named(module, "ascend.task")) == stats["num_tasks"]
    assert {t["unit"] for t in tasks} == {"cube", "vector"}
    assert {"name", "unit", "stream", "time"} <= set(tasks[0])
    # One stream: tasks run back to back and the makespan is their sum.
    assert stats["execution_time"] == pytest.approx(sum(t["time"] for t in tasks))


def test_buffers_really_alias_the_arena():
    """A wrong memory plan must give wrong numbers, or plan tests prove nothing."""
    model, inputs = resnet_block.make()
    module = lower(optimize(import_model(model, inputs), NC1HWC0_PIPELINE))
    buffers = ops_named(module, "ascend.buffer")
    # Alias the converted input with the downsample conv's output: the
    # downsample task then clobbers the input before conv1 reads it.
    converted_input, downsample = buffers[0], buffers[1]
    converted_input.properties["offset"] = downsample.offset
    (out,) = Executable(module).run(*inputs)
    assert not torch.allclose(out, eager(model, inputs), **TOL)


def test_wrong_inputs_get_a_clear_error():
    model, inputs = article.make()
    executable = Executable(lower(optimize(import_model(model, inputs))))
    with pytest.raises(InputError, match=r"input 0 has shape 1x3x32x32, the graph expects "
                                         r"1x3x224x224"):
        executable.run(torch.randn(1, 3, 32, 32))
    with pytest.raises(InputError, match="takes 1 input"):
        executable.run()
    with pytest.raises(InputError, match="dtype torch.float64"):
        executable.run(inputs[0].double())


class LinearBn(torch.nn.Module):
    """Linear -> BatchNorm1d -> ReLU, and a bias-free linear -> BatchNorm1d."""

    def __init__(self):
        super().__init__()
        self.fc1, self.bn1 = torch.nn.Linear(12, 16), torch.nn.BatchNorm1d(16)
        self.fc2, self.bn2 = torch.nn.Linear(16, 4, bias=False), torch.nn.BatchNorm1d(4)

    def forward(self, x):
        return self.bn2(self.fc2(torch.relu(self.bn1(self.fc1(x)))))


def test_batch_norm_folds_into_linear_layers():
    from test.models.common import randomize_batch_norm

    torch.manual_seed(0)
    model = randomize_batch_norm(LinearBn()).eval()
    x = torch.randn(5, 12)
    module = optimize(import_model(model, (x,)))
    assert not ops_named(module, "ge.batch_norm")
    (out,) = evaluate(module, x)
    torch.testing.assert_close(out, eager(model, (x,)), **TOL)
    (out,) = Executable(lower(module)).run(x)
    torch.testing.assert_close(out, eager(model, (x,)), **TOL)
