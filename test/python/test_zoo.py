"""Every model of the zoo imports, verifies, and matches PyTorch eager at each stage:
the GE reference evaluator after import, and the compiled executable after
optimize + lower-to-ascend. ResNet-50 is imported once, at full size."""

from collections import Counter

import pytest

from ge_dialect import ge
from lowering.torch_to_ge import import_module
from npu_graph.compiler import lower, optimize
from runtime.executor import Executable
from runtime.reference import evaluate
from test.helpers import assert_all_close, eager
from test.models import ZOO, dynamic_shapes

SMALL = sorted(name for name in ZOO if name != "resnet50")

# Ops each model must exercise, so a zoo entry keeps testing what it was added for.
EXPECTED_OPS = {
    "mlp": {"ge.linear", "ge.gelu"},
    "resnet18": {"ge.conv2d", "ge.max_pool2d", "ge.adaptive_avg_pool2d", "ge.linear"},
    "mobilenet_v2": {"ge.conv2d", "ge.clamp"},
    "mobilenet_v3": {"ge.hardswish", "ge.hardsigmoid", "ge.mul"},
    "vgg": {"ge.max_pool2d", "ge.adaptive_avg_pool2d"},
    "unet": {"ge.conv_transpose2d", "ge.concat", "ge.interpolate", "ge.avg_pool2d"},
    "bert": {"ge.embedding", "ge.layer_norm", "ge.softmax", "ge.gelu", "ge.tanh",
             "ge.cast", "ge.slice", "ge.transpose", "ge.matmul"},
    # The training IR keeps scaled_dot_product_attention whole; its core ATen
    # decomposition (logical_not, reduce_any, expand) is covered in test_importer.
    "gpt2": {"ge.embedding", "ge.where", "ge.compare", "ge.softmax", "ge.gelu", "ge.slice"},
    "vit": {"ge.conv2d", "ge.concat", "ge.transpose", "ge.softmax", "ge.layer_norm"},
    "cond": {"ge.if", "ge.compare", "ge.reduce_sum"},
    "while_loop": {"ge.while"},
    "custom_op": {"ge.custom"},
}

# BERT uses exact GELU, GPT-2 the tanh one; both must reach the IR as such.
GELU_MODES = {"bert": {"none"}, "gpt2": {"tanh"}}


@pytest.fixture(scope="module", params=SMALL)
def case(request):
    model, inputs = ZOO[request.param]()
    module = import_module(model, inputs, dynamic_shapes=dynamic_shapes(model))
    return request.param, model, inputs, module


def test_imports_verifies_and_matches_eager(case):
    name, model, inputs, module = case
    module.verify()
    ops = Counter(op.name for op in module.walk())
    assert EXPECTED_OPS.get(name, set()) <= set(ops), f"{name} lacks {EXPECTED_OPS[name] - set(ops)}"
    gelus = {op.approximate.data for op in module.walk() if isinstance(op, ge.GeluOp)}
    assert gelus == GELU_MODES.get(name, gelus)
    assert_all_close(evaluate(module, *inputs), eager(model, *inputs))


def test_compiles_and_runs_on_the_runtime(case):
    name, model, inputs, module = case
    executable = Executable(lower(optimize(module.clone())))
    assert_all_close(executable.run(*inputs), eager(model, *inputs))


def test_resnet50_full_size():
    """The real architecture at 224x224, imported once, through every stage."""
    model, inputs = ZOO["resnet50"]()
    module = import_module(model, inputs)
    module.verify()
    convs = [op for op in module.walk() if isinstance(op, ge.Conv2dOp)]
    assert len(convs) == 53  # stem + 16 bottlenecks x 3 + 4 downsamples
    params = sum(p.numel() for p in model.parameters())
    assert 25_000_000 < params < 26_000_000
    expected = eager(model, *inputs)
    assert_all_close(evaluate(module, *inputs), expected)
    executable = Executable(lower(optimize(module)))
    assert_all_close(executable.run(*inputs), expected)
