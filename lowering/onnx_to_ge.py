"""ONNX importer: a ModelProto (or .onnx file) -> one GE `func.func`.

    module = import_onnx("model.onnx")

ONNX is the door for TensorFlow (tf2onnx), PaddlePaddle (paddle2onnx) and
MindSpore, whose exporters all write it. The translation is the table
`ONNX_TO_GE` (`lowering/onnx/`): one entry per ONNX op type, each a builder
`(importer, node) -> [values]` producing the same GE ops the PyTorch importer
produces, so every pass and the runtime work unchanged.

- Initializers become `ge.const` from their raw bytes; value names become SSA
  name hints; symbolic dims (`dim_param`) become `?`.
- A node whose inputs are all constants (a `Constant`, shape arithmetic on
  static shapes, ...) is built into GE ops like any other, and those ops are
  run at once with the runtime's kernels (as the `constant-fold` pass does);
  its outputs are kept as constants, which later builders read as shapes,
  axes or pads. A node GE has no mapping for stays unsupported even then:
  no value in the graph comes from anything but GE's own kernels. A
  DequantizeLinear of a constant (a QDQ model's int8 weight) stays a
  `ge.dequantize` of the int8 constant, the form fold-quantized makes an
  int8 conv or linear of; constant-fold folds what stays float.
- Every unsupported node is reported at once, with its name and op type.
- Models with external data load from the directory of the .onnx file.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, OpResult, SSAValue

from ge_dialect import ge
from ge_dialect.shapes import ShapeError
from lowering.aten.common import GEImportError, Unsupported
from lowering.onnx import ONNX_TO_GE, OnnxUnsupported
from lowering.onnx.common import BY_DTYPE, element_type, numpy_dtype

# ONNX TensorProto element types GE carries: the GE element type and NumPy dtype.
OLDEST_OPSET = 13
CONSTANT_FOLD_LIMIT = 1 << 24  # elements; larger constant results stay ops
# Node types whose constant inputs are not folded at import (see the module doc).
KEPT_UNFOLDED = ("DequantizeLinear",)


class OnnxImportError(GEImportError):
    """The ONNX model cannot be imported; the message lists every problem."""


def load_model(model: Any):
    """A ModelProto from a proto, a path or bytes; external data loads from beside it."""
    import onnx
    if isinstance(model, onnx.ModelProto):
        return model
    path = Path(model)
    if not path.is_file():
        raise OnnxImportError(f"no such ONNX file: {path}")
    try:
        return onnx.load(str(path), load_external_data=True)
    except Exception as e:  # noqa: BLE001 - a corrupt file or missing external data
        raise OnnxImportError(f"cannot load {path}: {type(e).__name__}: {e}") from e


def import_onnx(model: Any, func_name: str = "main") -> ModuleOp:
    """Translate an ONNX model into `builtin.module { func.func @func_name }`."""
    proto = load_model(model)
    opset = max((o.version for o in proto.opset_import if o.domain in ("", "ai.onnx")),
                default=0)
    if opset < OLDEST_OPSET:
        proto, opset = _upgraded(proto, opset)
    try:
        opsets = {o.domain or "": o.version for o in proto.opset_import}
        opsets[""] = opset
        return ModuleOp([_OnnxImporter(proto.graph, opset, opsets).run(func_name)])
    except Unsupported as e:  # a graph output or input GE cannot carry
        raise OnnxImportError(f"cannot import the ONNX model: {e}") from e


def _upgraded(proto, opset: int):
    """An older model converted to opset 13 by onnx's version converter."""
    from onnx import version_converter
    if opset < 7:
        proto = _channel_slopes(proto)
    try:
        return version_converter.convert_version(proto, OLDEST_OPSET), OLDEST_OPSET
    except Exception as e:  # noqa: BLE001 - the converter's own refusal
        raise OnnxImportError(f"opset {opset}; GE imports opset {OLDEST_OPSET} and newer, "
                              f"and onnx's version converter could not upgrade it: "
                              f"{str(e).splitlines()[0] if str(e) else type(e).__name__}"
                              ) from e


def _channel_slopes(proto):
    """PRelu before opset 7 took one slope per channel ([C]); from opset 7 the
    slope broadcasts from the right, which the version converter leaves to the
    model. A copy with such slopes stored as [C, 1, ..., 1]."""
    from onnx import ModelProto, numpy_helper
    ranks = {v.name: len(v.type.tensor_type.shape.dim) for v in proto.graph.input}
    slopes = {node.input[1]: ranks.get(node.input[0]) for node in proto.graph.node
              if node.op_type == "PRelu" and len(node.input) > 1}
    copy = ModelProto()
    copy.CopyFrom(proto)
    for init in copy.graph.initializer:
        rank = slopes.get(init.name)
        if rank and rank > 2 and len(init.dims) == 1 and init.dims[0] > 1:
            slope = numpy_helper.to_array(init)
            init.CopyFrom(numpy_helper.from_array(slope.reshape([-1] + [1] * (rank - 2)),
                                                  init.name))
    for v in copy.graph.input:
        rank = slopes.get(v.name)
        dims = v.type.tensor_type.shape.dim
        if rank and rank > 2 and len(dims) == 1 and dims[0].dim_value > 1:
            for _ in range(rank - 2):
                dims.add().dim_value = 1
    return copy


class _OnnxImporter:
    def __init__(self, graph, opset: int, opsets: dict[str, int] | None = None,
                 expansions=None):
        self.graph = graph
        self.opset = opset
        self.opsets = opsets or {"": opset}  # domain -> version, for function bodies
        self.expansions = expansions or itertools.count(1)  # numbers function bodies apart
        self.values: dict[str, SSAValue] = {}
        self.constants: dict[str, np.ndarray] = {}
        self.body: list[Operation] = []
        self.node = None

    def run(self, func_name: str) -> func.FuncOp:
        from onnx import numpy_helper

        for init in self.graph.initializer:
            self.constants[init.name] = numpy_helper.to_array(init)
        inputs = [v for v in self.graph.input if v.name not in self.constants]
        problems: list[str] = []
        arg_types = []
        for v in inputs:
            try:
                arg_types.append(self.value_type(v))
            except Unsupported as e:
                problems.append(f"input '{v.name}': {e}")
        if problems:
            raise OnnxImportError("cannot import the model:\n" + "\n".join(
                f"  - {p}" for p in problems))
        fn = func.FuncOp(func_name, (arg_types, []))
        for v, arg in zip(inputs, fn.body.block.args):
            arg.name_hint = _identifier(v.name)
            self.values[v.name] = arg
        unsupported: dict[str, list[str]] = {}
        failed: set[str] = set()  # outputs of unsupported nodes
        for node in self.graph.node:
            self.node = node
            if failed & set(free_names_of(node)):
                failed.update(node.output)  # reported through the node it depends on
                continue
            try:
                self._convert(node)
            except (Unsupported, OnnxUnsupported, ShapeError) as e:
                unsupported.setdefault(f"{node.op_type} ({e})", []).append(node.name or "?")
                failed.update(node.output)
                for name in node.output:
                    self.values.pop(name, None)
        if unsupported:
            lines = [f"cannot import the ONNX model: {len(unsupported)} unsupported "
                     f"op{'s' if len(unsupported) != 1 else ''} "
                     f"({sum(map(len, unsupported.values()))} nodes):"]
            lines += [f"  - {what} x{len(nodes)}: nodes {', '.join(repr(n) for n in nodes[:3])}"
                      f"{', ...' if len(nodes) > 3 else ''}" for what, nodes in
                      unsupported.items()]
            raise OnnxImportError("\n".join(lines))
        outputs = [self.value(v.name) for v in self.graph.output]
        fn.body.block.add_ops(self.body)
        fn.body.block.add_op(func.ReturnOp(*outputs))
        fn.function_type = func.FunctionType.from_lists(arg_types, [o.type for o in outputs])
        return fn

    # ---- conversion

    def _convert(self, node) -> None:
        builder = ONNX_TO_GE.get((node.domain or "", node.op_type))
        if node.op_type == "Constant" and not node.domain:
            self.constants[node.output[0]] = self._constant_attribute(node)
            return
        start = len(self.body)
        try:
            if builder is None:
                domain = f"{node.domain}." if node.domain else ""
                raise Unsupported(f"no GE mapping for {domain}{node.op_type}")
            outputs = builder(self, node)
        except (Unsupported, OnnxUnsupported):
            del self.body[start:]
            if not self._expand_function(node):
                raise
            return
        if (self._all_constant(node) and not _has_subgraphs(node)
                and node.op_type not in KEPT_UNFOLDED):
            outputs = self._fold(start, outputs)
        for name, value in zip(node.output, outputs):
            if not name:
                continue
            if isinstance(value, np.ndarray):
                self.constants[name] = value
            elif value is not None:
                value.name_hint = _identifier(name)
                self.values[name] = value

    def _expand_function(self, node) -> bool:
        """Import `node` as the body of its ONNX function (lowering/onnx/functions.py);
        False, with nothing emitted, if it has none or a part of it is unsupported."""
        from lowering.onnx import functions
        prefix = f"{node.op_type}_{next(self.expansions)}__"
        version = self.opsets.get(node.domain or "", self.opset)
        try:
            nodes = functions.expand(self, node, version, prefix)
        except (Unsupported, OnnxUnsupported):
            return False
        if nodes is None:
            return False
        start = len(self.body)
        try:
            for inner in nodes:
                self._convert(inner)
        except Exception:  # noqa: BLE001 - a body GE cannot take: the node's own error stands
            del self.body[start:]
            return False
        return True

    def _all_constant(self, node) -> bool:
        return all(not name or name in self.constants for name in node.input)

    def _fold(self, start: int, outputs: list) -> list:
        """The ops a node of constants emitted (body[start:]) run now with the
        runtime's kernels; its outputs as NumPy arrays, those ops dropped.
        Outputs unchanged if an op has no kernel or a result is too large."""
        from runtime import kernels
        from runtime.program import compile_op

        emitted = self.body[start:]
        known: dict[SSAValue, Any] = {}
        try:
            for op in emitted:
                if any(not r.type.has_static_shape() and not isinstance(op, ge.ArangeOp)
                       for r in op.results):
                    return outputs
                args = [known[v] if v in known else _constant_tensor(v) for v in op.operands]
                if any(a is None for a in args):
                    return outputs
                results = compile_op(op)(*args)
                results = [results] if not isinstance(results, (list, tuple)) else results
                if any(r.numel() > CONSTANT_FOLD_LIMIT for r in results):
                    return outputs
                known.update(zip(op.results, results))
        except (kernels.KernelError, RuntimeError, ValueError, TypeError, IndexError):
            return outputs  # GE computes it at run time (or refuses it at load)
        folded = []
        for value in outputs:
            if isinstance(value, SSAValue):
                tensor = known[value] if value in known else _constant_tensor(value)
                if tensor is None:
                    return outputs
                value = tensor.detach().contiguous().numpy()
            folded.append(value)
        dropped = {r for op in emitted for r in op.results}
        del self.body[start:]
        self.values = {k: v for k, v in self.values.items() if v not in dropped}
        return folded

    def _constant_attribute(self, node) -> np.ndarray:
        from onnx import helper, numpy_helper

        if len(node.attribute) != 1:
            raise Unsupported("Constant without exactly one value attribute")
        (attr,) = node.attribute
        if attr.name == "value":
            return numpy_helper.to_array(attr.t)
        value = helper.get_attribute_value(attr)
        dtype = {"value_float": np.float32, "value_floats": np.float32,
                 "value_int": np.int64, "value_ints": np.int64}.get(attr.name)
        if dtype is None:
            raise Unsupported(f"Constant with {attr.name}")
        return np.array(value, dtype=dtype)

    # ---- subgraphs (If branches, Loop bodies)

    def subgraph(self, graph, leading: list[tuple[str, Attribute]], captured: list[str]):
        """`graph` as a block: args for `leading` (name, type) pairs, then one per
        captured outer value; returns the block and its output values."""
        child = _OnnxImporter(graph, self.opset, self.opsets, self.expansions)
        child.constants.update(self.constants)
        from onnx import numpy_helper
        for init in graph.initializer:
            child.constants[init.name] = numpy_helper.to_array(init)
        types = [t for _, t in leading] + [self.values[name].type for name in captured]
        block = Block(arg_types=types)
        for (name, _), arg in zip(leading, block.args):
            child.values[name] = arg
        for name, arg in zip(captured, block.args[len(leading):]):
            child.values[name] = arg
        problems = []
        for node in graph.node:
            child.node = node
            try:
                child._convert(node)
            except (Unsupported, OnnxUnsupported, ShapeError) as e:
                problems.append(f"{node.op_type} ({e})")
        if problems:
            raise Unsupported(f"in a subgraph: {'; '.join(problems)}")
        outputs = [child.value(v.name) for v in graph.output]
        block.add_ops(child.body)
        return block, outputs

    def inline(self, graph) -> list:
        """The subgraph's nodes imported into this graph (a branch known at import);
        its outputs as values or constants."""
        from onnx import numpy_helper
        for init in graph.initializer:
            self.constants[init.name] = numpy_helper.to_array(init)
        outer = self.node
        for node in graph.node:
            self.node = node
            self._convert(node)
        self.node = outer
        return [self.constants[v.name] if v.name in self.constants else self.value(v.name)
                for v in graph.output]

    def bind(self, name: str, value) -> None:
        """Name a value (an SSA value or a NumPy constant), replacing what it named."""
        self.forget([name])
        if isinstance(value, np.ndarray):
            self.constants[name] = value
        else:
            self.values[name] = value

    def forget(self, names) -> None:
        for name in names:
            self.values.pop(name, None)
            self.constants.pop(name, None)

    def as_value(self, value, name: str = "cst") -> SSAValue:
        """An SSA value for a builder's output, materializing a NumPy constant."""
        return self.const(value, name) if isinstance(value, np.ndarray) else value

    def captures(self, *graphs) -> list[str]:
        """Outer values the subgraphs read, in a stable order (constants excluded:
        each region gets its own)."""
        names = set()
        for graph in graphs:
            names |= free_names(graph)
        return sorted(n for n in names if n in self.values and n not in self.constants)

    # ---- helpers for builders

    def value_type(self, info) -> TensorType:
        t = info.type.tensor_type
        if not info.type.HasField("tensor_type"):
            raise Unsupported("a value that is not a tensor (sequence, map or optional)")
        dims = [d.dim_value if d.HasField("dim_value") else DYNAMIC_INDEX
                for d in t.shape.dim]
        return TensorType(element_type(t.elem_type), dims)

    def has_input(self, node, i: int) -> bool:
        return len(node.input) > i and bool(node.input[i])

    def constant(self, node, i: int) -> np.ndarray | None:
        """Input i as a NumPy array if it is a constant, else None."""
        return self.constants.get(node.input[i]) if self.has_input(node, i) else None

    def value(self, name: str) -> SSAValue:
        if name in self.values:
            return self.values[name]
        if name in self.constants:
            self.values[name] = self.const(self.constants[name], name)
            return self.values[name]
        raise Unsupported(f"input '{name}' is not produced by an imported node")

    def input(self, node, i: int) -> SSAValue:
        return self.value(node.input[i])

    def const(self, array: np.ndarray, name: str = "cst") -> SSAValue:
        array = np.asarray(array)
        array = array if array.flags.c_contiguous else array.copy()  # 0-d stays 0-d
        if array.dtype not in BY_DTYPE:
            raise Unsupported(f"a constant of dtype {array.dtype}")
        t = TensorType(BY_DTYPE[array.dtype], list(array.shape))
        op = ge.ConstOp(DenseIntOrFPElementsAttr(t, BytesAttr(array.tobytes())))
        op.output.name_hint = _identifier(name)
        self.body.append(op)
        return op.output

    def scalar(self, x: float, like: SSAValue) -> SSAValue:
        return self.const(np.array(x, dtype=numpy_dtype(ge.element_type(like.type))))

    def emit(self, op: Operation) -> SSAValue:
        self.body.append(op)
        return op.results[0] if op.results else None

    def attr(self, node, name: str, default: Any = None) -> Any:
        from onnx import helper
        for a in node.attribute:
            if a.name == name:
                value = helper.get_attribute_value(a)
                return value.decode() if isinstance(value, bytes) else value
        return default


def _has_subgraphs(node) -> bool:
    """A node with a graph attribute (If, Loop) may read values of the outer graph."""
    from onnx import AttributeProto
    return any(a.type in (AttributeProto.GRAPH, AttributeProto.GRAPHS) for a in node.attribute)


def _constant_tensor(value: SSAValue):
    """The host tensor of a `ge.const` result, else None."""
    from runtime import kernels
    if isinstance(value, OpResult) and isinstance(value.owner, ge.ConstOp):
        return kernels.tensor_from_attr(value.owner.value)
    return None


def free_names(graph) -> set[str]:
    """Names a graph (and the graphs nested in it) reads but does not define."""
    defined = {v.name for v in graph.input} | {t.name for t in graph.initializer}
    used = set()
    for node in graph.node:
        used |= free_names_of(node)
        defined |= set(node.output)
    used |= {v.name for v in graph.output}
    return used - defined


def free_names_of(node) -> set[str]:
    """Names a node reads: its inputs and what its subgraphs read from outside."""
    from onnx import helper
    used = {name for name in node.input if name}
    for attr in node.attribute:
        value = helper.get_attribute_value(attr)
        for sub in (value if isinstance(value, list) else [value]):
            if hasattr(sub, "node"):
                used |= free_names(sub)
    return used


def _identifier(name: str) -> str:
    out = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
    return out if out and not out[0].isdigit() else f"v{out}"

