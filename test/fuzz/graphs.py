"""Random graphs: the hypothesis strategy `graphs()`, and the two builds of
a graph, as GE IR (`to_module`, with the op constructors, which infer the
result types) and as a PyTorch module (`GraphModule`, eager: the oracle, and
what `torch_to_ge.import_module` imports). Constants and inputs come from the
graph's seed, so both builds see the same numbers.

The data model is in spec.py, the op menu in menu.py; their names are
re-exported here, the one import the tests need.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from hypothesis import strategies as st
from torch import nn
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp, TensorType, f32
from xdsl.ir import Block, Operation, Region, SSAValue

from ge_dialect import ge
from ge_dialect.tensors import from_numpy
from test.fuzz.menu import CORE_WEIGHT, ENTRIES, MENU
from test.fuzz.spec import Const, Draw, Graph, Node, OpEntry, Value, const_data, infer

__all__ = ["Const", "ENTRIES", "Graph", "GraphModule", "MENU", "Node", "OpEntry", "Value",
           "eager", "example_inputs", "graphs", "to_module"]


# --------------------------------------------------------------------------
# The strategy


@st.composite
def input_value(draw: Draw, batch: int, dynamic: bool) -> Value:
    # Mostly NCHW images: most of the menu (conv, pooling, batch norm) wants them.
    rank = draw(st.sampled_from([4, 4, 4, 2, 3, 1] + ([] if dynamic else [0])))
    high = 7 if rank == 4 else 6
    dims = [draw(st.integers(1, 4 if i == 1 and rank == 4 else high)) for i in range(rank)]
    if rank == 4 or dynamic:
        dims[0] = batch
    return Value(tuple(dims), batch=dynamic, exact=True)


# Chains that real models are made of and that passes look for (fold-batch-norm,
# the fusion rules). A step of the generator is one menu op or one motif; each
# op of a motif takes the previous one's result as its main operand.
MOTIFS: tuple[tuple[str, ...], ...] = (
    ("conv2d", "batch_norm", "relu"),
    ("conv2d", "batch_norm", "add", "relu"),
    ("conv2d", "relu"),
    ("add", "relu"),
    ("linear", "relu"),
)


@st.composite
def graphs(draw: Draw, menu: Sequence[OpEntry] = MENU, max_nodes: int = 8,
           dynamic: bool | None = None, aim: Sequence[tuple[str, ...]] = (),
           min_nodes: int = 1) -> Graph:
    """A random valid graph: 1-2 inputs, min_nodes..max_nodes ops, the last value plus
    0-2 more (maybe inputs, maybe repeated) as outputs. Operands are drawn from every
    earlier value, most recent first, which gives chains, branches, joins and reuse.

    `aim`: extra steps (ops or chains of the menu), listed as often as they should
    be drawn, and placed first, where hypothesis draws most often (ge-fuzz aims
    at a pass's patterns with them)."""
    if dynamic is None:
        dynamic = draw(st.integers(0, 4)) == 0
    batch = 2 if dynamic else draw(st.integers(1, 2))
    inputs = [draw(input_value(batch, dynamic)) for _ in range(draw(st.integers(1, 2)))]
    entries = {e.name: e for e in menu}
    steps = [s for s in aim if all(name in entries for name in s)]
    steps += [(e.name,) for e in menu for _ in range(e.weight)]
    steps += [m for m in MOTIFS if all(name in entries for name in m)] * CORE_WEIGHT
    values, nodes = list(inputs), []
    budget = draw(st.integers(min(min_nodes, max_nodes), max_nodes))
    while len(nodes) < budget:
        usable = [s for s in steps if entries[s[0]].accepts is None
                  or any(map(entries[s[0]].accepts, values))]
        head: int | None = None
        for name in draw(st.sampled_from(usable))[:budget - len(nodes)]:
            entry = entries[name]
            if entry.accepts is None:
                head = None  # a source: no operand
            elif head is None:
                candidates = [i for i, v in enumerate(values) if entry.accepts(v)]
                head = candidates[-1 - draw(st.integers(0, len(candidates) - 1))]
            elif not entry.accepts(values[head]):
                break
            extra, params = entry.draw(draw, values[head] if head is not None else None, values)
            args = ((head,) if head is not None else ()) + tuple(extra)
            values.append(infer(entry, [values[a] for a in args], params))
            nodes.append(Node(entry.name, args, params))
            head = len(values) - 1
    outputs = [len(values) - 1] + draw(st.lists(st.integers(0, len(values) - 1), max_size=2))
    graph = Graph(inputs, nodes, outputs, draw(st.integers(0, 2**32 - 1)))
    graph.__dict__["values"] = values  # already inferred while drawing
    return graph


# --------------------------------------------------------------------------
# Builders


def value_shapes(graph: Graph) -> list[Value]:
    """Every value's shape: the inputs, then each node's result (by the menu's entries)."""
    values = list(graph.inputs)
    for node in graph.nodes:
        values.append(infer(ENTRIES[node.op], [values[a] for a in node.args], node.params))
    return values


def constants(graph: Graph) -> list[list[np.ndarray]]:
    """Each node's constant operands, from the graph's seed."""
    rng = np.random.default_rng([graph.seed, 0])
    values = value_shapes(graph)
    return [[const_data(rng, c) for c in ENTRIES[node.op].consts(
                [values[a] for a in node.args], node.params)]
            for node in graph.nodes]


def example_inputs(graph: Graph, batch: int | None = None) -> tuple[torch.Tensor, ...]:
    """Random inputs; `batch` replaces the example batch size of dynamic inputs."""
    rng = np.random.default_rng([graph.seed, 1])
    shapes = [((batch,) + v.shape[1:]) if v.batch and batch else v.shape for v in graph.inputs]
    return tuple(torch.from_numpy(np.asarray(rng.standard_normal(s), dtype=np.float32))
                 for s in shapes)


def to_module(graph: Graph) -> ModuleOp:
    """The graph as GE IR: `func.func @main`, built with the op constructors."""
    block = Block(arg_types=[TensorType(f32, v.ir_shape()) for v in graph.inputs])
    shapes = value_shapes(graph)
    values: list[SSAValue] = list(block.args)
    for i, (node, arrays) in enumerate(zip(graph.nodes, constants(graph))):
        consts = []
        for array in arrays:
            const = ge.ConstOp(from_numpy(array))
            block.add_op(const)
            consts.append(const.output)
        built = ENTRIES[node.op].ge([values[a] for a in node.args] + consts, node.params)
        if isinstance(built, Operation):
            built = [built]
        if isinstance(built, list):
            block.add_ops(built)
            built = built[-1].results[0]
        want = shapes[len(graph.inputs) + i].ir_shape()
        if list(ge.shape_of(built)) != want:
            raise AssertionError(f"node {i} ({node.op}): GE infers shape "
                                 f"{list(ge.shape_of(built))}, PyTorch gives {want}")
        values.append(built)
    results = [values[o] for o in graph.outputs]
    block.add_op(func.ReturnOp(*results))
    ftype = FunctionType.from_lists(block.arg_types, [r.type for r in results])
    return ModuleOp([func.FuncOp("main", ftype, Region(block))])


class GraphModule(nn.Module):
    """The graph in PyTorch: constants are buffers, ops are torch functions."""

    def __init__(self, graph: Graph):
        super().__init__()
        self.graph = graph
        self.consts: list[list[str | float]] = []
        for i, (node, arrays) in enumerate(zip(graph.nodes, constants(graph))):
            names: list[str | float] = []
            for j, array in enumerate(arrays):
                if node.params.get("python_scalar"):
                    names.append(float(array))
                else:
                    self.register_buffer(f"c{i}_{j}", torch.from_numpy(array.copy()))
                    names.append(f"c{i}_{j}")
            self.consts.append(names)

    def forward(self, *inputs: torch.Tensor):
        values = list(inputs)
        for node, names in zip(self.graph.nodes, self.consts):
            consts = [getattr(self, n) if isinstance(n, str) else n for n in names]
            values.append(ENTRIES[node.op].torch([values[a] for a in node.args] + consts,
                                                 node.params))
        outputs = tuple(values[o] for o in self.graph.outputs)
        return outputs if len(outputs) > 1 else outputs[0]


def eager(model: nn.Module, inputs: Sequence[torch.Tensor]) -> list[torch.Tensor]:
    with torch.no_grad():
        out = model(*inputs)
    return list(out) if isinstance(out, tuple) else [out]
