"""The bad-input corpus for the Python entry points: models the importer
cannot take and inputs the runtime must refuse, each with its message.

The IR half of the corpus is lit: test/filecheck/errors/ and
test/filecheck/tools/. Not covered yet: corrupt or truncated .npu files
(the format does not exist yet) and Ascend IR whose memory plan overlaps
live buffers (that needs the plan verifier of the back-end branch; the
fuzzer's test_lowering_with_overlapping_buffers_is_caught shows the runtime
computing wrong numbers for such a plan meanwhile).
"""

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from xdsl.parser import Parser

from ge_dialect import make_context
from lowering.torch_to_ge import GEImportError, UnsupportedOpError, import_module
from npu_graph.compiler import lower
from runtime.executor import Executable, LoadError
from runtime.program import InputError
from runtime.reference import evaluate

pytestmark = pytest.mark.filterwarnings("ignore:.*LeafSpec:FutureWarning")


class Fn(nn.Module):
    """A parameterless model around one function, so each case is one line."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *inputs):
        return self.fn(*inputs)


def x24():
    return torch.randn(2, 4)


# (model, inputs, exception type, expected text in the message)
UNSUPPORTED_MODELS = {
    "cummax": (Fn(lambda x: torch.cummax(x, 1)[0]), (x24(),), UnsupportedOpError,
               "aten.cummax.default x1 (no GE mapping)"),
    "mode": (Fn(lambda x: torch.mode(x, 1)[0]), (x24(),), UnsupportedOpError,
             "aten.mode.default x1 (no GE mapping)"),
    "nanmedian": (Fn(lambda x: torch.nanmedian(x, 1)[0]), (x24(),), UnsupportedOpError,
                  "aten.nanmedian.dim x1 (no GE mapping)"),
    "bucketize": (Fn(lambda x: torch.bucketize(x, torch.tensor([0.0, 1.0]))), (x24(),),
                  UnsupportedOpError, "aten.bucketize.Tensor x1 (no GE mapping)"),
    "boolean_mask": (Fn(lambda x: x[x > 0].sum()), (x24(),), UnsupportedOpError,
                     "aten.index.Tensor x1 (indexing with a boolean mask (its result size "
                     "depends on the data); use torch.where)"),
    "dropout_in_training": (Fn(lambda x: F.dropout(x, 0.5, training=True)), (x24(),),
                            UnsupportedOpError, "aten.native_dropout.default x1 (dropout in "
                            "training mode; call model.eval() first)"),
    "conv_transpose1d": (nn.ConvTranspose1d(2, 3, 3), (torch.randn(1, 2, 8),),
                         UnsupportedOpError, "aten.convolution.default x1 (1-D transposed "
                         "convolution; GE has 2-D only)"),
    "python_int_input": (Fn(lambda x, k: x * k), (x24(), 3), GEImportError,
                         "input 'inputs_1' is a int; GE graphs take tensors only"),
    "none_output": (Fn(lambda x: (torch.relu(x), None)), (x24(),), GEImportError,
                    "model output 1 is a NoneType, not a tensor"),
}


def test_in_place_update_of_an_input_updates_the_callers_tensor():
    """Once refused as a USER_INPUT_MUTATION; now an input updated in place is
    a state buffer (ge.assign), written back into the caller's tensor."""
    from npu_graph import NpuGraph
    x = x24()
    expected_input = torch.relu(x)
    graph = NpuGraph(Fn(lambda t: t.relu_() * 2), (x.clone(),))
    out = graph.optimize()(x)
    torch.testing.assert_close(x, expected_input, rtol=0, atol=0)
    torch.testing.assert_close(out, expected_input * 2, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", sorted(UNSUPPORTED_MODELS))
def test_unsupported_model_gets_a_clear_error(name):
    model, inputs, error, text = UNSUPPORTED_MODELS[name]
    with pytest.raises(error) as info:
        import_module(model, inputs)
    assert text in str(info.value)
    if error is UnsupportedOpError:
        # custom_op is the remedy for an op GE lacks, not for one it maps with
        # operands it cannot take
        mapped = "no GE mapping" not in text and "model.eval()" not in text
        hint = ("For an op GE maps, but not with the operands listed" if mapped
                else "register a kernel with npu_graph.custom_op(...)")
        assert hint in str(info.value)
        if all(op.mapped for op in info.value.ops):
            assert "custom_op" not in str(info.value)


# --------------------------------------------------------------------------
# The runtime


GE_IR = """func.func @main(%x: tensor<1x3x8x8xf32>, %v: tensor<?x4xf32>)
    -> (tensor<1x3x8x8xf32>, tensor<?x4xf32>) {
  %y = ge.relu %x : tensor<1x3x8x8xf32>
  %z = ge.relu %v : tensor<?x4xf32>
  func.return %y, %z : tensor<1x3x8x8xf32>, tensor<?x4xf32>
}
"""
STATIC_IR = """func.func @main(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32> {
  %y = ge.relu %x : tensor<1x3x8x8xf32>
  func.return %y : tensor<1x3x8x8xf32>
}
"""
HUGE_ARENA_IR = """func.func @main(%x: memref<4xf32>) -> memref<4xf32>
    attributes {ascend.arena_size = 9000000000000000 : i64} {
  func.return %x : memref<4xf32>
}
"""


def parse(text):
    return Parser(make_context(), text).parse_module()


X = torch.randn(1, 3, 8, 8)
V = torch.randn(5, 4)

# (inputs, expected message) for evaluate() on GE_IR
BAD_EVALUATOR_INPUTS = {
    "too_few": ((X,), "the graph takes 2 input(s), got 1"),
    "wrong_shape": ((torch.randn(1, 3, 8, 9), V),
                    "input 0 has shape 1x3x8x9, the graph expects 1x3x8x8"),
    "wrong_rank": ((torch.randn(3, 8, 8), V), "input 0 has shape 3x8x8, the graph expects 1x3x8x8"),
    "scalar": ((torch.tensor(1.0), V), "input 0 has shape scalar, the graph expects 1x3x8x8"),
    "static_dim_of_dynamic_input": ((X, torch.randn(5, 3)),
                                    "input 1 has shape 5x3, the graph expects ?x4"),
    "float64": ((X.double(), V), "input 0 has dtype torch.float64, the graph expects torch.float32"),
    "int32": ((X, V.int()), "input 1 has dtype torch.int32, the graph expects torch.float32"),
    "numpy_array": ((X.numpy(), V), "input 0 must be a torch.Tensor, got ndarray"),
    "python_list": ((X.tolist(), V), "input 0 must be a torch.Tensor, got list"),
}


@pytest.mark.parametrize("name", sorted(BAD_EVALUATOR_INPUTS))
def test_reference_evaluator_refuses_bad_inputs(name):
    inputs, message = BAD_EVALUATOR_INPUTS[name]
    with pytest.raises(InputError) as info:
        evaluate(parse(GE_IR), *inputs)
    assert str(info.value) == message


BAD_EXECUTABLE_INPUTS = {
    "none": ((), "the graph takes 1 input(s), got 0"),
    "wrong_shape": ((torch.randn(1, 3, 8, 7),),
                    "input 0 has shape 1x3x8x7, the graph expects 1x3x8x8"),
    "float16": ((X.half(),), "input 0 has dtype torch.float16, the graph expects torch.float32"),
}


@pytest.mark.parametrize("name", sorted(BAD_EXECUTABLE_INPUTS))
def test_executable_refuses_bad_inputs(name):
    inputs, message = BAD_EXECUTABLE_INPUTS[name]
    executable = Executable(lower(parse(STATIC_IR)))
    with pytest.raises(InputError) as info:
        executable.run(*inputs)
    assert str(info.value) == message
    (out,) = executable.run(X)  # a refused call leaves the executable usable
    torch.testing.assert_close(out, torch.relu(X))


def test_executable_refuses_ge_ir():
    with pytest.raises(LoadError, match="@main has no 'ascend.arena_size' attribute: run the "
                                        "lower-to-ascend pass first"):
        Executable(parse(STATIC_IR))


def test_evaluator_refuses_lowered_ir():
    """It used to fail with "no host kernel for 'ascend.buffer'"."""
    with pytest.raises(ValueError, match="@main is lowered Ascend IR; the reference evaluator "
                                         "runs GE IR, run this with runtime.executor.Executable"):
        evaluate(lower(parse(STATIC_IR)), X)


def test_missing_function_is_named():
    with pytest.raises(ValueError, match="the module has no function @forward"):
        evaluate(parse(STATIC_IR), X, func_name="forward")
    with pytest.raises(ValueError, match="the module has no function @forward"):
        Executable(lower(parse(STATIC_IR)), "forward")


def test_arena_too_large_for_the_host_is_a_load_error():
    """It used to be torch's allocator error, a paragraph from C++."""
    with pytest.raises(LoadError, match=r"cannot allocate the arena of @main "
                                        r"\(9000000000000000 bytes\) on the host"):
        Executable(parse(HUGE_ARENA_IR))
