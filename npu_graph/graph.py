"""The graph objects of the GE article: a parsed GE graph and an optimized one.

`GraphParser().parse_pytorch_model(model, input_spec=(x,))` and
`NpuGraph(model, input_spec=(x,))` give a `GEGraph`: GE IR that prints as the
article's node list (`print()`) or as MLIR (`str()`). Its `optimize(...)`
returns an `OptimizedGraph`: planned Ascend IR that is callable like the
model, reports the runtime's stats and saves to a `.npu` file.

These classes only hold IR and call the compiler's stages
(npu_graph/compiler.py); flags become a ge-opt pipeline in
passes/pipelines.py, and the file format is npu_graph/artifact.py.
"""

from __future__ import annotations

import functools
import json
import sys
import threading
from collections.abc import Sequence

import torch
from torch.export import Dim
from torch.utils import _pytree as pytree
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import PassFailedException

from ge_dialect import OUTPUT_TREE, STATE_BUFFERS, STORAGE_LAYOUTS, ascend, find_func, ge
from ge_dialect.printing import format_ir
from lowering import hf_cache, output_tree
from npu_graph import compiler
from npu_graph.inference import marked
from passes.driver.runner import run_pipeline
from passes.pipelines import build_pipeline
from runtime.executor import DEFAULT_MAX_INFLIGHT, Executable, Options
from runtime.gears import NO_GEARS, Gears

# GE's operator type names where they are not the CamelCase of our op name.
GE_TYPE_NAMES = {
    "conv2d": "Conv2D", "conv_transpose2d": "Conv2DTranspose", "batch_norm": "BatchNorm",
    "matmul": "MatMul", "batch_matmul": "BatchMatMul", "layer_norm": "LayerNorm",
    "max_pool2d": "MaxPool", "avg_pool2d": "AvgPool", "adaptive_avg_pool2d": "AdaptiveAvgPool2d",
    "const": "Const", "trans_data": "TransData", "softmax": "SoftmaxV2",
}


def type_name(op: Operation) -> str:
    """GE-style operator type of `op`: Conv2D, Relu, ... or Fused[<rule>]."""
    if isinstance(op, ge.FusedOp):
        return f"Fused[{op.kind.data}]"
    if isinstance(op, ascend.TaskOp):
        return op.task_name.data
    short = op.name.split(".", 1)[-1]
    return GE_TYPE_NAMES.get(short) or "".join(p.capitalize() for p in short.split("_"))


class _Names:
    """Readable names for SSA values: the importer's name hints, else v<N>."""

    def __init__(self):
        self.names: dict[SSAValue, str] = {}

    def __call__(self, value: SSAValue) -> str:
        if value not in self.names:
            self.names[value] = value.name_hint or f"v{len(self.names)}"
        return self.names[value]


def node_lines(module: ModuleOp) -> list[str]:
    """`NodeN: Type (input: a, b, output: c)` for every compute op of @main.

    Constants and Ascend buffers are not nodes; they appear as named inputs.
    """
    name = _Names()
    lines = []
    skip = (ge.ConstOp, ascend.WeightOp, ascend.BufferOp, ascend.DynBufferOp, func.ReturnOp)
    for op in find_func(module).body.block.ops:
        if isinstance(op, skip):
            continue
        if isinstance(op, ascend.TaskOp):
            ins, outs = op.ins, op.outs
            where = f" [{op.unit.data}, stream {op.stream.value.data}]"
        else:
            ins, outs, where = op.operands, op.results, ""
        if isinstance(op, ascend.RecordEventOp | ascend.WaitEventOp):
            lines.append(f"Node{len(lines)}: {type_name(op)} ({_attrs_line(op)})")
            continue
        lines.append(f"Node{len(lines)}: {type_name(op)}{where} (input: "
                     f"{', '.join(map(name, ins)) or '-'}, output: "
                     f"{', '.join(map(name, outs)) or '-'})")
    return lines


def _attrs_line(op: Operation) -> str:
    return ", ".join(f"{k}: {v}" for k, v in op.properties.items())


def example_inputs(input_spec) -> tuple:
    """`input_spec` as example inputs: tensors and pytrees of tensors (an HF
    `DynamicCache`, a tuple of key/value tensors) are kept, shapes become random
    f32 tensors."""
    if isinstance(input_spec, torch.Tensor):
        input_spec = (input_spec,)
    hf_cache.register_caches()
    inputs = []
    for i, spec in enumerate(input_spec):
        if isinstance(spec, torch.Tensor) or spec is None:  # None: an optional input left out
            inputs.append(spec)
        elif _is_shape(spec):
            inputs.append(torch.randn(*spec))
        elif _is_tensor_tree(spec):
            inputs.append(spec)
        else:
            raise TypeError(f"input_spec[{i}] must be a tensor or a shape (tuple of ints), "
                            "or a pytree of tensors such as an HF DynamicCache, got "
                            f"{type(spec).__name__}")
    return tuple(inputs)


def _is_shape(spec) -> bool:
    return isinstance(spec, Sequence) and all(isinstance(d, int) for d in spec)


def _is_tensor_tree(spec) -> bool:
    """A container torch's pytree knows, holding tensors only."""
    leaves, tree = pytree.tree_flatten(spec)
    return not tree.is_leaf() and bool(leaves) and all(isinstance(t, torch.Tensor)
                                                       for t in leaves)


class _Printable:
    module: ModuleOp

    def nodes(self) -> list[str]:
        return node_lines(self.module)

    def print(self, file=None) -> None:
        """The node list, one `NodeN: Type (input: ..., output: ...)` per line."""
        print("\n".join(self.nodes()), file=file or sys.stdout)

    def __str__(self) -> str:
        """MLIR text, with weights elided (`to_mlir(elide=False)` keeps them)."""
        return self.to_mlir()

    def to_mlir(self, elide: bool = True) -> str:
        return format_ir(self.module) if elide else str(self.module)


class CompileError(ValueError):
    """A pass refused the graph (for example, it does not fit `memory_limit_mb`)."""


class GEGraph(_Printable):
    """GE IR imported from a PyTorch model, before any optimization."""

    def __init__(self, module: ModuleOp, name: str = "graph"):
        self.module = module
        self.name = name
        self.dim_gears: dict[int, dict[int, list[int]]] = {}  # input -> set_dim_gears'

    def optimize(self, passes: list[str] | None = None, **flags) -> OptimizedGraph:
        """Optimize, lower and plan: the article's `passes=[...]` and `enable_*`
        flags become the pipeline builder's stages (passes/pipelines.py
        `build_pipeline`), run as one; their ge-opt spelling is kept on the
        result as `pipeline`, so `ge-opt model.mlir -p '<pipeline>'` reproduces it."""
        pipeline = build_pipeline(passes, **flags).spec()
        try:
            module = run_pipeline(self.module.clone(), pipeline)
        except PassFailedException as e:  # e.g. over the memory budget: the user's to fix
            raise CompileError(str(e)) from None
        optimized = OptimizedGraph(module, pipeline, self.name)
        optimized.state = list(getattr(self, "state", ()))
        optimized.options = _runtime_options(flags, self.dim_gears)
        return optimized


def _runtime_options(flags: dict, dim_gears: dict) -> Options:
    """The runtime's share of the optimize flags (checked by the pipeline
    builder): the plan cache's size and the gears, merged as the flags say."""
    policy = flags.get("dynamic_gears_merge_policy", "zip")
    gears = Gears.of(dim_gears, policy) if dim_gears else NO_GEARS
    size = flags.get("plan_cache_size")
    return Options(gears=gears) if size is None else Options(plan_cache_size=size, gears=gears)


def _gear_dims(input_spec, dim_gears: dict) -> tuple | None:
    """torch.export `dynamic_shapes` marking the dims `set_dim_gears` marked, for
    inputs that are tensors; None if some input is a pytree (mark it yourself)."""
    specs = (input_spec,) if isinstance(input_spec, torch.Tensor) else tuple(input_spec)
    if not all(isinstance(x, torch.Tensor) for x in specs):
        return None
    return tuple({d: Dim.DYNAMIC for d in dim_gears[i]} if i in dim_gears else None
                 for i in range(len(specs)))


class GraphParser:
    """The article's front door: a PyTorch model (through torch.export) or an
    ONNX model (what TensorFlow, PaddlePaddle and MindSpore export) -> GE graph."""

    def parse_pytorch_model(self, model: torch.nn.Module, input_spec,
                            dynamic_shapes=None) -> GEGraph:
        inputs = example_inputs(input_spec)
        module = compiler.import_model(model.eval(), inputs, dynamic_shapes)
        return GEGraph(module, type(model).__name__)

    def parse_onnx_model(self, model) -> GEGraph:
        """`model`: an onnx.ModelProto or the path of an .onnx file (external data
        is read from beside it)."""
        from lowering.onnx_to_ge import import_onnx, load_model

        proto = load_model(model)
        return GEGraph(import_onnx(proto), proto.graph.name or "graph")


class NpuGraph(GEGraph):
    """`NpuGraph(model, input_spec=(x,))`: parse at construction, then `.optimize()`."""

    def __init__(self, model: torch.nn.Module, input_spec, dynamic_shapes=None):
        specs = (input_spec,) if isinstance(input_spec, torch.Tensor) else input_spec
        # the graph's inputs in order: each tensor of each input's pytree, a shape one
        gears = marked([x for spec in specs for x in (
            [spec] if _is_shape(spec) else pytree.tree_leaves(spec)) if x is not None])
        if gears and dynamic_shapes is None and getattr(model, "dynamic_shapes", None) is None:
            dynamic_shapes = _gear_dims(input_spec, gears)
        parsed = GraphParser().parse_pytorch_model(model, input_spec, dynamic_shapes)
        super().__init__(parsed.module, parsed.name)
        self.dim_gears = gears
        # Buffers the graph updates in place (a static KV cache): the module's
        # own tensors, passed on every call, so eager and the graph share them.
        names = find_func(self.module).attributes.get(STATE_BUFFERS)
        self.state = [model.get_buffer(n.data) for n in names.data] if names else []

    @staticmethod
    def from_onnx(model) -> GEGraph:
        """An ONNX model (a ModelProto or an .onnx path), parsed; then `.optimize()`."""
        return GraphParser().parse_onnx_model(model)

    @staticmethod
    def load(path: str) -> OptimizedGraph:
        """An optimized graph saved with `OptimizedGraph.save`."""
        from npu_graph.artifact import load

        return load(path)


class OptimizedGraph(_Printable):
    """Planned Ascend IR, loaded lazily into the runtime on first use.

    Calling it runs the graph on the host runtime and returns what the model
    returns: one tensor, or a tuple for several outputs. `stats` are the
    runtime's (simulated device time, memory, tasks) after the last call.
    """

    def __init__(self, module: ModuleOp, pipeline: str = "", name: str = "graph",
                 max_inflight: int = DEFAULT_MAX_INFLIGHT):
        self.module = module
        self.pipeline = pipeline
        self.name = name
        self.max_inflight = max_inflight
        self.state: list[torch.Tensor] = []  # buffers updated in place, passed last
        self.options = Options()  # the runtime's: plan cache size, gears (GEGraph.optimize)
        self._executable: Executable | None = None
        self._load_lock = threading.Lock()

    @property
    def executable(self) -> Executable:
        """The loaded graph; calls from several threads share it (see runtime/executor.py)."""
        with self._load_lock:
            if self._executable is None:
                self._executable = Executable(self.module, max_inflight=self.max_inflight,
                                              options=self.options)
            return self._executable

    @property
    def input_names(self) -> list[str]:
        return [a.name_hint or f"arg{i}" for i, a in enumerate(find_func(self.module).args)]

    def __call__(self, *inputs):
        """What the model returns: one tensor, a tuple, or the model's own
        structure (a dict, nested tuples, a namedtuple...; ge_dialect.OUTPUT_TREE).
        Inputs are what the model takes: tensors, or pytrees of them (an HF
        DynamicCache), flattened as torch.export flattened them."""
        flat = [x for x in pytree.tree_leaves(inputs) if x is not None]  # None: left out
        self.check_layouts(flat)
        return self.structured(self.executable.run(*flat, *self.state))

    @functools.cached_property
    def storage_layouts(self) -> dict[int, tuple[int | None, tuple[int, ...]]]:
        """Input index -> (storage offset, strides) as traced, for the inputs whose
        storage the graph reads beneath the view (ge_dialect.STORAGE_LAYOUTS); the
        offset is None where only offsets relative to the input's own are read."""
        attr = find_func(self.module).attributes.get(STORAGE_LAYOUTS)
        if attr is None:
            return {}
        return {int(i): (o, tuple(st)) for i, (o, st) in json.loads(attr.data).items()}

    def check_layouts(self, inputs: Sequence) -> None:
        """Refuse an input laid out otherwise than when traced where the graph reads
        its storage (as_strided): eager would read other elements, the graph the
        traced ones. Dims of size 1 place nothing, so their strides do not count."""
        for i, (offset, strides) in self.storage_layouts.items():
            x = inputs[i] if i < len(inputs) else None
            if not isinstance(x, torch.Tensor):
                continue
            placed = [(n, st) for n, st in zip(x.shape, x.stride()) if n != 1]
            traced = [(n, st) for n, st in zip(x.shape, strides) if n != 1]
            if offset is not None and x.storage_offset() != offset or placed != traced:
                from runtime.program import InputError

                raise InputError(
                    f"input {i} ({self.input_names[i]}) has storage offset "
                    f"{x.storage_offset()} and strides {tuple(x.stride())}; the graph reads "
                    f"its storage (as_strided) as traced, at storage offset {offset} with "
                    f"strides {strides}, and eager would read other elements. Pass it laid "
                    "out as when traced (x.contiguous() if it was traced contiguous), or "
                    "trace the model with this layout")

    def structured(self, outputs: list[torch.Tensor]):
        """The flat results of a run in what the model returns."""
        spec = self.output_spec
        if spec is not None:
            return pytree.tree_unflatten(outputs, spec)
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    @functools.cached_property
    def output_spec(self) -> pytree.TreeSpec | None:
        attr = find_func(self.module).attributes.get(OUTPUT_TREE)
        spec = output_tree.loads(attr.data) if attr is not None else None
        n = len(find_func(self.module).function_type.outputs.data)
        if spec is not None and spec.num_leaves != n:
            raise ValueError(f"the graph's output structure has {spec.num_leaves} tensors "
                             f"but @main returns {n}")
        return spec

    @property
    def stats(self) -> dict:
        return self.executable.stats

    def save(self, path: str) -> None:
        """One self-contained `.npu` file: Ascend IR, weights, manifest."""
        from npu_graph.artifact import save

        save(self, path)
