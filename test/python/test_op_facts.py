"""The facts each GE op declares (ge_dialect/traits.py) and the tables derived
from them agree: a table edited by hand, or an op that forgets a fact, fails here."""

import subprocess
from pathlib import Path

import pytest
import torch
from xdsl.ir import Block
from xdsl.dialects.builtin import TensorType, f32

from ge_dialect import ascend, canonicalization, ge
from ge_dialect.traits import Activation, CubeWork, Elementwise, MixPrecision, View
from passes import op_fusion, precision_mode
from runtime import kernels
from target import cost_model
from runtime.host import activations, onednn, runners

OPS = list(ge.GE.operations)
ROOT = Path(__file__).parents[2]


def declaring(trait, where=lambda t: True) -> set[type]:
    return {op for op in OPS if (t := op.get_trait(trait)) is not None and where(t)}


def test_the_derived_tables_are_the_declarations():
    views = declaring(View)
    kinds = lambda *k: declaring(View, lambda t: t.kind in k)  # noqa: E731
    assert set(ascend.CUBE_OPS) == declaring(CubeWork)
    assert set(cost_model.CUBE_WORK) == declaring(CubeWork)
    assert set(precision_mode.MIX_ALLOW) == declaring(MixPrecision, lambda t: t.kind == "allow")
    assert set(precision_mode.MIX_GRAY) == declaring(MixPrecision, lambda t: t.kind == "gray")
    assert set(canonicalization.RESHAPES) == set(op_fusion.RESHAPES) == kinds("reshape")
    assert set(op_fusion.VIEWS) == kinds("reshape", "slice", "transpose")
    assert set(runners.VIEW_OPS) == views
    assert set(ge.SAME_INDEX_OPS) == declaring(Elementwise) | kinds("reshape")
    assert set(activations.ACTIVATIONS) == set(op_fusion.ACTIVATIONS) == declaring(Activation)
    eltwise = {kind: code for op in declaring(Activation)
               for kind, code in op.get_trait(Activation).eltwise}
    assert onednn.ELTWISE == {**eltwise, "linear": 0x26}


def test_the_known_ops_declare_their_facts():
    """A spot check that the declarations say what the compiler relied on."""
    assert declaring(CubeWork) == {ge.Conv2dOp, ge.ConvTranspose2dOp, ge.Conv1dOp, ge.Conv3dOp,
                                   ge.MatMulOp, ge.LinearOp, ge.WeightQuantLinearOp,
                                   ge.QuantizedConv2dOp, ge.QuantizedLinearOp}
    assert {op: op.get_trait(View).kind for op in declaring(View)} == {
        ge.ReshapeOp: "reshape", ge.FlattenOp: "reshape", ge.SliceOp: "slice",
        ge.TransposeOp: "transpose", ge.ExpandOp: "expand"}
    assert declaring(MixPrecision, lambda t: t.kind == "allow") - declaring(CubeWork) == {
        ge.ReluOp, ge.ClampOp, ge.AddOp, ge.SubOp, ge.MulOp, ge.NegOp, ge.MaximumOp,
        ge.MinimumOp, ge.MaxPool2dOp}
    assert ge.GeluOp.get_trait(Activation).after_matmul
    assert not ge.ExpOp.has_trait(Activation) and not ge.SoftmaxOp.has_trait(MixPrecision)


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.name)
def test_each_op_s_facts_hold_together(op):
    """Elementwise iff one of the elementwise bases, with their arity; cube ops
    on the allow list (but the int8 ones, whose types are fixed, on none),
    views on the gray list; each view and activation has a kernel."""
    arity = (1 if issubclass(op, ge.UnaryElementwiseOp)
             else 2 if issubclass(op, ge.BinaryElementwiseOp) else None)
    trait = op.get_trait(Elementwise)
    assert (trait.arity if trait is not None else None) == arity
    precision = op.get_trait(MixPrecision)
    if op.has_trait(CubeWork) and issubclass(op, ge.QuantizedCubeOp):
        assert precision is None and op in precision_mode.UNTOUCHED
    elif op.has_trait(CubeWork):
        assert precision is not None and precision.kind == "allow"
    if op.has_trait(View):
        assert precision is not None and precision.kind == "gray"
    if op.has_trait(View) or op.has_trait(Activation):
        assert op in kernels.KERNELS


def _instances():
    def x():
        return Block(arg_types=[TensorType(f32, [2, 3, 4, 5])]).args[0]
    ops = [ge.ReluOp(x()), ge.ClampOp(x(), 0.0, 6.0), ge.ClampOp(x(), 0.0), ge.ClampOp(x(), -1.0),
           ge.SigmoidOp(x()), ge.TanhOp(x()), ge.HardswishOp(x()), ge.HardsigmoidOp(x()),
           ge.SiluOp(x()), ge.GeluOp(x()), ge.GeluOp(x(), "tanh")]
    assert {type(op) for op in ops} == declaring(Activation), "an activation is not tested"
    return ops


@pytest.mark.parametrize("op", _instances(), ids=lambda op: op.name)
def test_each_activation_s_forms_exist(op):
    """Its post-op's eltwise kind is one it declares, and its in-place and out=
    forms are aten ops that compute its kernel."""
    trait = op.get_trait(Activation)
    post_op = trait.post_op(op)
    assert post_op is None or post_op.kind in dict(trait.eltwise)
    x = torch.randn(2, 3, 4, 5) * 4
    expected = kernels.prepare(op)(x)
    y = x.clone()
    activations.in_place(op)(y)
    torch.testing.assert_close(y, expected, rtol=1e-5, atol=1e-6)
    if trait.out is not None:
        out = torch.full_like(x, float("nan"))
        activations.ACTIVATIONS[type(op)].out(x, out=out)
        torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op", sorted(declaring(Activation), key=lambda op: op.name),
                         ids=lambda op: op.name)
def test_each_activation_gets_its_fusion_rules(op):
    name = op.name.removeprefix("ge.")
    rules = {rule.name for rule in op_fusion.RULES}
    assert f"conv2d_{name}" in rules
    assert (f"conv2d_{name}_decomposed" in rules) == (op.get_trait(Activation).decomposed
                                                      is not None)
    assert (f"matmul_{name}" in rules) == op.get_trait(Activation).after_matmul


@pytest.mark.parametrize("name", ["gelu", "hardswish", "hardsigmoid"])
def test_a_fusable_activation_is_named_only_where_it_is_declared_and_mapped(name):
    """Its declaration (ge_dialect), its kernel, its ATen and its ONNX mapping:
    every other table reads the declaration."""
    files = subprocess.run(["git", "grep", "-il", name, "--", "*.py", ":!test"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.split()
    allowed = ("ge_dialect/", "runtime/kernels.py", "lowering/aten/", "lowering/onnx/")
    assert all(f.startswith(allowed) for f in files), files
    assert len(files) <= 4, files
