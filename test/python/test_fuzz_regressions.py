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
    # runtime/cost_model.py: the matmul estimate took N from the result's last
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


# Kernel-table ops the fuzzer's menu does not draw yet. A new GE op with a
# kernel must join the menu (test/fuzz/graphs.py MENU) or this list.
NOT_IN_MENU_YET = {
    "adaptive_max_pool2d", "arange", "avg_pool2d", "cast", "compare", "concat",
    "conv_transpose2d", "custom", "dim", "embedding", "expand", "full_like",
    "interpolate", "layer_norm", "log", "logical_and", "logical_not", "logical_or", "pow",
    "reduce_any", "rsqrt", "slice",
    "sqrt", "trans_data", "where",
    # gathers, scatters, scans, sorting, pads, N-D convolutions and norms
    "gather", "gather_elements", "index", "index_put", "scatter_elements", "pad", "cumsum",
    "cumprod", "argmax", "argmin", "topk", "sort", "conv1d", "conv3d", "group_norm",
    "instance_norm", "rms_norm", "max_pool3d", "avg_pool3d", "max_pool2d_with_indices",
    "reverse", "tile", "reduce_prod", "grid_sample",
    # special functions: poles and narrow domains
    "i0", "i0e", "i1", "i1e", "ndtri", "erfcx", "airy_ai", "bessel_j0", "bessel_j1",
    "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
    "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1", "spherical_bessel_j0", "zeta", "igamma", "igammac",
    "nextafter", "chebyshev_polynomial_t", "chebyshev_polynomial_u",
    "chebyshev_polynomial_v", "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
    "laguerre_polynomial_l", "legendre_polynomial_p", "polygamma",
    # math with a restricted domain, discontinuities (fp16 pipelines round
    # differently at a step) or parameters the menu does not draw yet
    "tan", "asin", "acos", "sinh", "cosh", "acosh", "atanh", "log1p", "expm1", "log2",
    "log10", "exp2", "reciprocal", "sign", "floor", "ceil", "round", "trunc", "erfinv",
    "lgamma", "digamma", "leaky_relu", "elu", "softplus", "isnan", "isinf", "atan2", "hypot",
    "copysign", "floor_div", "trunc_div", "remainder", "fmod", "logical_xor",
}


def test_every_op_with_a_kernel_is_in_the_fuzz_menu_or_listed_as_not_yet():
    from runtime.kernels import KERNELS
    from test.fuzz.graphs import MENU

    with_kernel = {cls.name.removeprefix("ge.") for cls in KERNELS}
    menu = {entry.name for entry in MENU}
    missing = with_kernel - menu - NOT_IN_MENU_YET
    assert not missing, f"add these ops to the fuzz menu: {sorted(missing)}"
    assert not NOT_IN_MENU_YET & menu, "in the menu now: drop them from NOT_IN_MENU_YET"
    assert NOT_IN_MENU_YET <= with_kernel
