"""The canonicalizations and fusion rules keep the numbers, and reach the optimizer's goals.

Every function of their FileCheck files runs through the GE reference
evaluator before and after the pass, on seeded random inputs, so each rule's
positive and negative cases are also numerical tests. On the zoo: BERT under
ge-O3 has every attention block and every layer_norm as one fused op.
"""

from pathlib import Path

import pytest
import torch
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerType, TensorType
from xdsl.parser import Parser

from ge_dialect import ge, make_context, shapes
from npu_graph.compiler import import_model, lower, optimize, run_pipeline
from runtime import kernels
from runtime.executor import Executable
from runtime.reference import evaluate
from test.helpers import assert_all_close, eager
from test.models import ZOO

PASSES = Path(__file__).parents[1] / "filecheck" / "passes"
# NC1HWC0 inputs must have zero padding channels, which random inputs lack.
NEEDS_LAYOUT_INVARIANT = {"trans_data_padded"}
DYNAMIC_SIZE = 3  # what a `?` dim of an input is at run time here


def functions(filename: str):
    for i, chunk in enumerate((PASSES / filename).read_text().split("// -----")):
        for op in Parser(make_context(), chunk).parse_module().ops:
            if isinstance(op, func.FuncOp) and op.sym_name.data not in NEEDS_LAYOUT_INVARIANT:
                yield pytest.param(chunk, op.sym_name.data, id=op.sym_name.data)


def random_input(t: TensorType, gen: torch.Generator) -> torch.Tensor:
    shape = [DYNAMIC_SIZE if shapes.is_dyn(d) else d for d in t.get_shape()]
    element = t.element_type
    if isinstance(element, IntegerType):
        if element.width.data == 1:
            return torch.rand(shape, generator=gen) > 0.5
        return torch.randint(0, 4, shape, generator=gen, dtype=kernels.torch_dtype(element))
    return torch.randn(shape, generator=gen).to(kernels.torch_dtype(element))


@pytest.mark.parametrize("pipeline, chunk, name",
                         [("canonicalize", *p.values) for p in functions("canonicalize.mlir")]
                         + [("op-fusion", *p.values) for p in functions("op-fusion.mlir")]
                         + [("op-fusion{max-group-size=2}", *p.values)
                            for p in functions("op-fusion.mlir")])
def test_rewrite_keeps_the_numbers(pipeline, chunk, name):
    module = Parser(make_context(), chunk).parse_module()
    fn = next(op for op in module.ops if isinstance(op, func.FuncOp))
    gen = torch.Generator().manual_seed(0)
    inputs = [random_input(t, gen) for t in fn.function_type.inputs.data]
    before = evaluate(module, *inputs, func_name=name)
    after = evaluate(run_pipeline(module, pipeline), *inputs, func_name=name)
    assert len(after) == len(before)
    for a, b in zip(after, before):  # a random variance under a batch norm gives NaNs
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-4, equal_nan=True)


def top_level(module) -> list:
    fn = next(op for op in module.ops if isinstance(op, func.FuncOp))
    return list(fn.body.block.ops)


def test_bert_attention_and_add_norms_fuse():
    model, inputs = ZOO["bert"]()
    module = optimize(import_model(model, inputs), "ge-O3")
    ops = top_level(module)
    assert not [op.name for op in ops if isinstance(op, ge.SoftmaxOp)]
    fused = [op for op in ops if isinstance(op, ge.FusedOp)]
    attention = [op for op in fused if any(isinstance(m, ge.SoftmaxOp) for m in op.members)]
    norms = [op for op in fused if any(isinstance(m, ge.LayerNormOp) for m in op.members)]
    # 2 layers; the embeddings' sum and norm are one group, and each of the 2
    # "Add & Norm" per layer is a projection with the residual add as its
    # epilogue (matmul_add), then the norm alone
    assert len(attention) == 2 and len(norms) == 1
    after_projection = [op for op in ops if isinstance(op, ge.LayerNormOp)]
    assert len(after_projection) == 4
    for op in after_projection:
        producer = op.input.owner
        assert isinstance(producer, ge.FusedOp) and producer.kind.data == "matmul_add"
        assert [m.name for m in producer.members] == ["ge.linear", "ge.add"]
    for op in attention:
        assert op.kind.data == "attention"
        names = [m.name for m in op.members]
        # q @ k^T, scale, mask, softmax, @ v: the whole block
        assert names.count("ge.matmul") == 2
        assert {"ge.div", "ge.add", "ge.softmax"} <= set(names)
        # and the views that feed q, k and v: it reads the qkv projection itself
        assert {"ge.slice", "ge.transpose"} <= set(names)
        assert any(isinstance(v.owner, ge.LinearOp) for v in op.operands)
    # no copy of q, k or v is left between a projection and its attention
    assert not [op for op in ops if isinstance(op, ge.SliceOp | ge.TransposeOp)
                and any(use.operation in attention for r in op.results for use in r.uses)]
    for op in norms:
        assert op.kind.data == "add_layer_norm"
        assert [m.name for m in op.members].count("ge.layer_norm") == 1
    # lowered, an attention block is one cube task, and the numbers hold
    executable = Executable(lower(module))
    assert_all_close(executable.run(*inputs), eager(model, *inputs))
