"""Failures the property tests found, kept as regression tests.

Each case is the falsifying example hypothesis printed (a `Graph` is plain
data), with the pipeline it failed on and, in a comment, the bug and where
it was fixed. Add new ones the same way: paste the example, name the fix.
"""

import numpy as np
import pytest
from torch.export import Dim

from ge_dialect.tensors import from_numpy, to_numpy
from lowering.torch_to_ge import import_module
from test.fuzz.check import RUN_BATCH, check_graph, check_pipeline
from test.fuzz.graphs import Graph, GraphModule, Node, Value, eager, example_inputs

REGRESSIONS = {
    # runtime/host/runners.py: an elementwise tail wrote `maximum(a, b, out=view)`
    # where the plan put the output over a broadcast operand (4 bytes read as
    # [1] and written as [1, 1, 1]); torch refuses such an out= write. Such a
    # tail now runs the generic path (compute, then copy).
    "out_over_broadcast_operand": (
        Graph(inputs=[Value(shape=(), batch=False), Value(shape=(), batch=False)],
              nodes=[Node(op="mul", args=(0, 1), params={"swap": False}),
                     Node(op="const", args=(), params={"shape": ()}),
                     Node(op="mul", args=(1,), params={"swap": True, "const": ()}),
                     Node(op="flatten", args=(4,), params={"start": 0, "end": 0}),
                     Node(op="silu", args=(1,), params={}),
                     Node(op="reshape", args=(5,), params={"shape": (1, 1, 1),
                                                          "keep_batch": False, "view": False}),
                     Node(op="maximum", args=(4, 5), params={"swap": False})],
              outputs=[8], seed=29),
        "ge-O3,lower-to-ascend,task-parallel,memory-reuse"),
    # ge_dialect/tensors.py: from_numpy built tensor<1xf32> for a 0-d array
    # (np.ascontiguousarray returns at least 1-D), so a scalar constant
    # changed type on its way into the IR.
    "scalar_constant": (
        Graph(inputs=[Value(shape=(2, 1), batch=True)],
              nodes=[Node(op="const", args=(), params={"shape": ()})],
              outputs=[1], seed=0),
        "fold-batch-norm"),
    # target/cost_model.py: the matmul estimate took N from the result's last
    # dim, and a vector . vector product has none (IndexError when loading or
    # in task-parallel); a 1-D right operand is now a column, N = 1.
    "vector_dot": (
        Graph(inputs=[Value(shape=(6,), batch=False), Value(shape=(6,), batch=False)],
              nodes=[Node(op="matmul", args=(1,), params={"form": "vector", "const": (6,)}),
                     Node(op="add", args=(1,),
                          params={"swap": False, "const": (), "python_scalar": False}),
                     Node(op="flatten", args=(1,), params={"start": 0, "end": 0}),
                     Node(op="relu", args=(2,), params={})],
              outputs=[5, 0], seed=0),
        "ge-O3,lower-to-ascend,task-parallel,memory-reuse,verify-plan"),
    # passes/pipeline_partition.py: a returned constant (an ascend.weight, made
    # by no task) was looked up as a task's output (KeyError); each stage has
    # its own weights, so none is sent. npu_graph/pipeline_parallel.py joined
    # the one micro-batch's outputs with torch.cat, which refuses a 0-d output.
    "returned_constant_in_pipeline_stages": (
        Graph(inputs=[Value(shape=(1,), batch=False)],
              nodes=[Node(op="relu", args=(0,), params={}),
                     Node(op="relu", args=(1,), params={}),
                     Node(op="const", args=(), params={"shape": ()})],
              outputs=[3], seed=0),
        "lower-to-ascend,pipeline-partition"),
}


@pytest.mark.parametrize("name", sorted(REGRESSIONS))
def test_graph_regression(name):
    graph, pipeline = REGRESSIONS[name]
    check_graph(graph, pipeline)


def test_from_numpy_keeps_zero_d_arrays_zero_d():
    attr = from_numpy(np.asarray(2.5, dtype=np.float32))
    assert str(attr.type) == "tensor<f32>"
    assert to_numpy(attr).shape == () and float(to_numpy(attr)) == 2.5


# lowering/torch_to_ge.py: with a dynamic batch, `x @ w.t()` on a 3-D input
# exports `view(x, [s0 * 3, 5])`, whose size is SymInt arithmetic
# (operator.mul). The importer reported it as an unsupported op "mul";
# SymInt arithmetic now maps to the symbolic placeholder like aten.sym_size.
DYNAMIC_MATMUL = Graph(inputs=[Value(shape=(2, 3, 5), batch=True)],
                       nodes=[Node(op="linear", args=(0,),
                                   params={"out": 4, "bias": True, "as_matmul": True})],
                       outputs=[1], seed=0)


@pytest.mark.filterwarnings("ignore:.*LeafSpec:FutureWarning")
def test_dynamic_batch_matmul_with_symbolic_sizes_imports():
    model = GraphModule(DYNAMIC_MATMUL)
    module = import_module(model, example_inputs(DYNAMIC_MATMUL),
                           dynamic_shapes={"inputs": ({0: Dim("batch")},)})
    inputs = example_inputs(DYNAMIC_MATMUL, batch=RUN_BATCH)
    outcome = check_pipeline(module, inputs, "fold-batch-norm,op-fusion,dce",
                             expected=eager(model, inputs))
    # Dynamic shapes now lower too (ascend.dyn_buffer), and run with the right numbers.
    assert outcome.refused is None


def test_every_op_with_a_kernel_is_in_the_fuzz_menu_or_left_out_with_a_reason():
    from runtime.kernels import KERNELS
    from test.fuzz.menu import MENU, NOT_IN_MENU

    with_kernel = {cls.name.removeprefix("ge.") for cls in KERNELS}
    menu = {entry.name for entry in MENU}
    missing = with_kernel - menu - NOT_IN_MENU.keys()
    assert not missing, f"add these ops to the fuzz menu (test/fuzz/menu.py): {sorted(missing)}"
    assert not NOT_IN_MENU.keys() & menu, "in the menu now: drop them from NOT_IN_MENU"
    assert NOT_IN_MENU.keys() <= with_kernel
