"""PyTorch importer: a torch.export ExportedProgram -> one GE `func.func`.

    module = import_module(model, (torch.randn(1, 3, 224, 224),))

`import_module` runs `torch.export.export` and then `run_decompositions()`, so
the graph is in core ATen, the op set PyTorch keeps stable (nn.Linear is
`permute` + `addmm`, eval-mode BatchNorm2d is one
`_native_batch_norm_legit_no_training`). `import_program` also accepts the
undecomposed training IR (`aten.conv2d`, `aten.batch_norm`, `aten.linear`, ...).

The translation is the table `ATEN_TO_GE`: one entry per ATen overload, each a
small builder `(importer, args) -> value` where `args` holds the op's
arguments by schema name with defaults filled in. Adding an op is one builder
plus one line. A builder returns an SSA value, a `_Weight` (a constant that is
only turned into `ge.const` when something uses it, so `addmm(b, x, permute(w))`
can become `ge.linear` on the untransposed weight), a tuple (multi-output ops,
read by `getitem`) or None (ops with no result, e.g. runtime asserts).

Unsupported ops do not stop the import at the first one: every node is tried,
and one `UnsupportedOpError` lists each distinct op with a count, the first
node and the user's source line.
"""

from __future__ import annotations

import operator
import os
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind, OutputKind
from torch.fx import Node
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    FunctionType,
    ModuleOp,
    TensorType,
    f32,
)
from xdsl.ir import Block, Operation, Region, SSAValue

from ge_dialect import ge, shapes
from ge_dialect.shapes import ShapeError

aten = torch.ops.aten

CUSTOM_OP_HINT = "register a kernel with npu_graph.custom_op(...)"


class GEImportError(Exception):
    """The model cannot be imported into GE; the message says why, for the user."""


class UnsupportedOpError(GEImportError):
    """The graph uses ATen ops the importer cannot map; `ops` lists them all."""

    def __init__(self, ops: Sequence[UnsupportedOp]):
        self.ops = list(ops)
        total = sum(op.count for op in self.ops)
        lines = [f"cannot import the model: {len(self.ops)} unsupported PyTorch "
                 f"op{'s' if len(self.ops) != 1 else ''} ({total} node"
                 f"{'s' if total != 1 else ''}):"]
        lines += [f"  - {op}" for op in self.ops]
        lines.append(f"To run them anyway, {CUSTOM_OP_HINT}.")
        super().__init__("\n".join(lines))


@dataclass
class UnsupportedOp:
    """One distinct unsupported op: how often, where first, and why."""

    op: str
    reason: str
    first_node: str
    location: str
    count: int = 1

    def __str__(self) -> str:
        return (f"{self.op} x{self.count} ({self.reason}): first at node "
                f"'{self.first_node}', {self.location}")


class Unsupported(Exception):
    """Raised by a builder when its node cannot be expressed in GE."""


# --------------------------------------------------------------------------
# Public API


def import_module(model: torch.nn.Module, example_inputs: tuple, dynamic_shapes=None,
                  func_name: str = "main") -> ModuleOp:
    """Export `model` (switched to eval mode, and left there) and import it."""
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    model.eval()
    what = type(model).__name__
    with warnings.catch_warnings():
        # torch 2.13 warns about its own pytree internals while exporting.
        warnings.filterwarnings("ignore", r".*LeafSpec", FutureWarning)
        try:
            ep = torch.export.export(model, tuple(example_inputs),
                                     dynamic_shapes=dynamic_shapes)
        except Exception as e:  # torch raises many types; the user needs one clear line
            raise GEImportError(f"torch.export could not trace {what}: {_first_line(e)}") from e
        try:
            ep = ep.run_decompositions()
        except Exception as e:
            raise GEImportError(
                f"decomposing {what} to core ATen failed: {_first_line(e)}") from e
    return import_program(ep, func_name)


def import_program(ep: ExportedProgram, func_name: str = "main") -> ModuleOp:
    """Translate an ExportedProgram into `builtin.module { func.func @func_name }`."""
    return ModuleOp([_GraphImporter(ep).run(func_name)])


# --------------------------------------------------------------------------
# Values that are not (yet) SSA values


@dataclass(eq=False)
class _Weight:
    """A constant tensor; becomes one `ge.const` the first time it is used."""

    tensor: torch.Tensor
    name: str
    transpose_of: _Weight | None = None  # set when this is a 2-D weight transposed
    value: SSAValue | None = field(default=None, repr=False)


class _Symbolic:
    """A symbolic integer (aten.sym_size); shapes are read from node metadata instead."""


_SYMBOLIC = _Symbolic()
_POISONED = object()  # result of a node that was not imported


# --------------------------------------------------------------------------
# The importer


class _GraphImporter:
    def __init__(self, ep: ExportedProgram):
        self.ep = ep
        self.env: dict[Node, Any] = {}
        self.consts: list[Operation] = []
        self.body: list[Operation] = []
        self.scalars: dict[float, SSAValue] = {}
        self.unsupported: dict[tuple[str, str], UnsupportedOp] = {}
        self.node: Node | None = None  # the node being converted, for builders
        self.user_inputs: list[Node] = []

    # ---- driver

    def run(self, func_name: str) -> func.FuncOp:
        block = Block(arg_types=self._bind_placeholders())
        for arg, node in zip(block.args, self.user_inputs):
            arg.name_hint = _identifier(node.name)
            self.env[node] = arg
        output = None
        for node in self.ep.graph.nodes:
            if node.op == "call_function":
                self._convert(node)
            elif node.op == "output":
                output = node
            elif node.op != "placeholder":
                raise GEImportError(f"unexpected FX node '{node.name}' ({node.op}) in the "
                                    "exported graph; expected only ATen calls")
        if self.unsupported:
            raise UnsupportedOpError(list(self.unsupported.values()))
        results = self._outputs(output)
        block.add_ops(self.consts + self.body + [func.ReturnOp(*results)])
        ftype = FunctionType.from_lists(block.arg_types, [r.type for r in results])
        return func.FuncOp(func_name, ftype, Region(block))

    def _bind_placeholders(self) -> list[TensorType]:
        """Weights become lazy `_Weight`s; user inputs become function arguments."""
        placeholders = {n.name: n for n in self.ep.graph.nodes if n.op == "placeholder"}
        for spec in self.ep.graph_signature.input_specs:
            node = placeholders[spec.arg.name]
            if spec.kind == InputKind.USER_INPUT:
                self.user_inputs.append(node)
            elif spec.kind in (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR):
                tensor = self.ep.state_dict.get(spec.target)
                if tensor is None:
                    tensor = self.ep.constants[spec.target]
                self.env[node] = _Weight(tensor.detach(), _identifier(spec.target))
            else:
                raise GEImportError(f"input '{spec.arg.name}' of kind {spec.kind.name} "
                                    "is not supported (only tensors, parameters and buffers)")
        return [_input_type(node) for node in self.user_inputs]

    def _convert(self, node: Node) -> None:
        builder = ATEN_TO_GE.get(node.target)
        if builder is None:
            self._reject(node, _HINTS.get(node.target, "no GE mapping"))
            return
        if any(self.env.get(n) is _POISONED for n in node.all_input_nodes):
            self.env[node] = _POISONED  # its producer is already reported
            return
        self.node = node
        try:
            _check_dtype(node)
            out = builder(self, _bind(node))
        except Unsupported as e:
            self._reject(node, str(e))
            return
        except ShapeError as e:
            self._reject(node, f"GE shape rule: {e}")
            return
        if isinstance(out, SSAValue):
            _check_shape(node, out)
        self.env[node] = out

    def _reject(self, node: Node, reason: str) -> None:
        self.env[node] = _POISONED
        key = (_op_name(node.target), reason)
        if key in self.unsupported:
            self.unsupported[key].count += 1
        else:
            self.unsupported[key] = UnsupportedOp(key[0], reason, node.name,
                                                  source_location(node))

    def _outputs(self, output: Node) -> list[SSAValue]:
        results = []
        for i, (spec, arg) in enumerate(zip(self.ep.graph_signature.output_specs,
                                            output.args[0])):
            if spec.kind != OutputKind.USER_OUTPUT:
                fix = ("do not modify inputs in place" if spec.kind == OutputKind.USER_INPUT_MUTATION
                       else "call model.eval() before exporting")
                raise GEImportError(f"output '{spec.arg.name}' is a {spec.kind.name}; GE graphs "
                                    f"are pure functions ({fix})")
            if not isinstance(arg, Node):
                raise GEImportError(f"model output {i} is a {type(arg).__name__}, not a tensor")
            try:
                results.append(self.value(arg))
            except Unsupported as e:
                raise GEImportError(f"model output {i}: {e}") from None
        return results

    # ---- helpers for builders

    def raw(self, arg: Any) -> Any:
        """What a node evaluated to, as is (SSA value, _Weight, tuple, ...)."""
        return self.env[arg] if isinstance(arg, Node) else arg

    def value(self, arg: Any) -> SSAValue:
        """`arg` as an SSA value: weights and Python numbers become ge.const."""
        v = self.raw(arg)
        if isinstance(v, SSAValue):
            return v
        if isinstance(v, _Weight):
            if v.value is None:
                v.value = self._const(v.tensor, v.name)
            return v.value
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return self.scalar(v)
        raise Unsupported(f"operand {arg} is a {type(v).__name__}, not a tensor")

    def scalar(self, x: float) -> SSAValue:
        """A 0-d f32 constant, shared by all uses of the same number."""
        if x not in self.scalars:
            self.scalars[x] = self._const(torch.tensor(float(x)), "cst")
        return self.scalars[x]

    def emit(self, op: Operation, suffix: str = "") -> SSAValue:
        """Append `op`; its result is named after the current FX node (+ `_suffix`)."""
        self.body.append(op)
        result = op.results[0]
        result.name_hint = _identifier(_value_name(self.node) + (f"_{suffix}" if suffix else ""))
        return result

    def _const(self, tensor: torch.Tensor, name: str) -> SSAValue:
        if tensor.dtype != torch.float32:
            raise Unsupported(f"constant '{name}' has dtype {tensor.dtype}; "
                              "GE supports float32 only")
        data = tensor.detach().contiguous().numpy().tobytes()
        attr = DenseIntOrFPElementsAttr(TensorType(f32, list(tensor.shape)), BytesAttr(data))
        op = ge.ConstOp(attr)
        op.output.name_hint = _identifier(name)
        self.consts.append(op)
        return op.output


# --------------------------------------------------------------------------
# Builders, one per ATen op family. `a` maps schema argument names to values.

Value = Any
Builder = Callable[[_GraphImporter, dict[str, Any]], Value]


def _pair(v: Any) -> tuple[int, int]:
    v = list(v) if isinstance(v, (list, tuple)) else [v]
    return (v[0], v[0]) if len(v) == 1 else (v[0], v[1])


def _identity(g: _GraphImporter, a) -> Value:
    return g.raw(a["self"])


def _no_result(g: _GraphImporter, a) -> Value:
    return None


def _symbolic(g: _GraphImporter, a) -> Value:
    return _SYMBOLIC


def _getitem(g: _GraphImporter, a) -> Value:
    parent, index = a[0], a[1]
    out = g.raw(parent)[index]
    if out is None:
        raise Unsupported(f"output {index} of {_op_name(parent.target)} is used; "
                          "GE imports only its output 0")
    return out


def _convolution(g: _GraphImporter, a) -> Value:
    if a.get("transposed"):
        raise Unsupported("transposed convolution")
    weight = g.value(a["weight"])
    if len(ge.shape_of(weight)) != 4:
        raise Unsupported(f"{len(ge.shape_of(weight)) - 2}-D convolution; GE has conv2d only")
    bias = g.value(a["bias"]) if a["bias"] is not None else None
    return g.emit(ge.Conv2dOp(g.value(a["input"]), weight, bias, _pair(a["stride"]),
                              _pair(a["padding"]), _pair(a["dilation"]), a["groups"]))


def _batch_norm(g: _GraphImporter, a) -> Value:
    if a.get("training"):
        raise Unsupported("batch norm in training mode; call model.eval() first")
    if a["running_mean"] is None or a["running_var"] is None:
        raise Unsupported("batch norm without running statistics")
    x = g.value(a["input"])
    channels = ge.shape_of(x)[1]
    weight = a["weight"] if a["weight"] is not None else _Weight(
        torch.ones(channels), f"{_value_name(g.node)}_weight")
    bias = a["bias"] if a["bias"] is not None else _Weight(
        torch.zeros(channels), f"{_value_name(g.node)}_bias")
    y = g.emit(ge.BatchNormOp(x, g.value(weight), g.value(bias), g.value(a["running_mean"]),
                              g.value(a["running_var"]), float(a["eps"])))
    # The no-training overload also returns (empty) saved mean and invstd.
    return (y, None, None) if len(g.node.target._schema.returns) == 3 else y


def _relu(g: _GraphImporter, a) -> Value:
    return g.emit(ge.ReluOp(g.value(a["self"])))


def _add(g: _GraphImporter, a, sign: float = 1.0) -> Value:
    """self + alpha * other (sign = -1 gives sub)."""
    alpha = sign * a.get("alpha", 1)
    other = a["other"]
    if isinstance(g.raw(other), (int, float)):  # fold alpha into the scalar
        other, alpha = alpha * g.raw(other), 1
    other = g.value(other)
    if alpha != 1:
        other = g.emit(ge.MulOp(other, g.scalar(alpha)), "alpha")
    return g.emit(ge.AddOp(g.value(a["self"]), other))


def _sub(g: _GraphImporter, a) -> Value:
    return _add(g, a, sign=-1.0)


def _mul(g: _GraphImporter, a) -> Value:
    return g.emit(ge.MulOp(g.value(a["self"]), g.value(a["other"])))


def _max_pool2d(g: _GraphImporter, a) -> Value:
    kernel = _pair(a["kernel_size"])
    stride = _pair(a["stride"]) if a["stride"] else kernel
    y = g.emit(ge.MaxPool2dOp(g.value(a["self"]), kernel, stride, _pair(a["padding"]),
                              _pair(a["dilation"]), bool(a["ceil_mode"])))
    return (y, None) if len(g.node.target._schema.returns) == 2 else y


def _adaptive_avg_pool2d(g: _GraphImporter, a) -> Value:
    return g.emit(ge.AdaptiveAvgPool2dOp(g.value(a["self"]), _pair(a["output_size"])))


def _mean(g: _GraphImporter, a) -> Value:
    """mean over H and W is global average pooling (what AdaptiveAvgPool2d(1) becomes)."""
    x = g.value(a["self"])
    rank = len(ge.shape_of(x))
    if rank != 4 or sorted(d % rank for d in (a["dim"] or [])) != [2, 3]:
        raise Unsupported(f"mean over dims {a['dim']} of a rank-{rank} tensor; only "
                          "global average pooling over H, W maps to GE")
    y = g.emit(ge.AdaptiveAvgPool2dOp(x, (1, 1)))
    if not a["keepdim"]:
        y = g.emit(ge.FlattenOp(y, 1, -1), "flat")
    return y


def _flatten(g: _GraphImporter, a) -> Value:
    return g.emit(ge.FlattenOp(g.value(a["self"]), a["start_dim"], a["end_dim"]))


def _reshape(g: _GraphImporter, a) -> Value:
    """view/reshape/squeeze/unsqueeze: ge.flatten when it merges adjacent dims, else ge.reshape."""
    x = g.value(a["self"])
    src, dst = a["self"].meta["val"].shape, g.node.meta["val"].shape
    if [str(d) for d in src] == [str(d) for d in dst]:
        return x
    if dims := _merged_dims(src, dst):
        return g.emit(ge.FlattenOp(x, *dims))
    return g.emit(ge.ReshapeOp(x, _shape(dst)))


def _linear(g: _GraphImporter, a) -> Value:
    bias = g.value(a["bias"]) if a["bias"] is not None else None
    return g.emit(ge.LinearOp(g.value(a["input"]), g.value(a["weight"]), bias))


def _mm(g: _GraphImporter, a) -> Value:
    """x @ w: ge.linear when w is a transposed constant weight, else ge.matmul."""
    rhs = g.raw(a["mat2"])
    if isinstance(rhs, _Weight) and rhs.transpose_of is not None:
        return g.emit(ge.LinearOp(g.value(a["self"]), g.value(rhs.transpose_of)))
    return g.emit(ge.MatMulOp(g.value(a["self"]), g.value(rhs)))


def _addmm(g: _GraphImporter, a) -> Value:
    """beta * bias + alpha * (x @ w); nn.Linear's form becomes one ge.linear."""
    rhs, alpha, beta = g.raw(a["mat2"]), a["alpha"], a["beta"]
    bias = g.value(a["self"])
    if (isinstance(rhs, _Weight) and rhs.transpose_of is not None and alpha == beta == 1
            and len(ge.shape_of(bias)) == 1):
        return g.emit(ge.LinearOp(g.value(a["mat1"]), g.value(rhs.transpose_of), bias))
    prod = g.emit(ge.MatMulOp(g.value(a["mat1"]), g.value(rhs)), "mm")
    if alpha != 1:
        prod = g.emit(ge.MulOp(prod, g.scalar(alpha)), "alpha")
    if beta != 1:
        bias = g.emit(ge.MulOp(bias, g.scalar(beta)), "beta")
    return g.emit(ge.AddOp(prod, bias))


def _matmul(g: _GraphImporter, a) -> Value:
    return g.emit(ge.MatMulOp(g.value(a["self"]), g.value(a["other"])))


def _bmm(g: _GraphImporter, a) -> Value:
    return g.emit(ge.MatMulOp(g.value(a["self"]), g.value(a["mat2"])))


def _weight(g: _GraphImporter, x: Any) -> _Weight:
    w = g.raw(x)
    if not isinstance(w, _Weight):
        raise Unsupported("permute/transpose of a computed tensor; GE has no transpose op")
    return w


def _permuted(g: _GraphImporter, w: _Weight, dims: Sequence[int]) -> Value:
    """A permute of a constant folds into a new constant; a 2-D transpose remembers
    its source, so x @ w.T can become ge.linear on w."""
    rank = w.tensor.dim()
    dims = [d % rank for d in dims] if rank else []
    if dims == list(range(rank)):
        return w
    is_t = rank == 2
    return _Weight(w.tensor.permute(dims).contiguous(), f"{w.name}_t" if is_t else g.node.name,
                   transpose_of=w if is_t else None)


def _permute(g: _GraphImporter, a) -> Value:
    return _permuted(g, _weight(g, a["self"]), a["dims"])


def _t(g: _GraphImporter, a) -> Value:
    w = _weight(g, a["self"])
    return _permuted(g, w, list(reversed(range(w.tensor.dim()))))


def _transpose(g: _GraphImporter, a) -> Value:
    w = _weight(g, a["self"])
    dims = list(range(w.tensor.dim()))
    d0, d1 = a["dim0"] % len(dims), a["dim1"] % len(dims)
    dims[d0], dims[d1] = dims[d1], dims[d0]
    return _permuted(g, w, dims)


def _full(g: _GraphImporter, a) -> Value:
    if not all(isinstance(d, int) for d in a["size"]):
        raise Unsupported("tensor creation with a symbolic size")
    return _Weight(torch.full(a["size"], float(a["fill_value"])), g.node.name)


def _dropout(g: _GraphImporter, a) -> Value:
    if a["train"]:
        raise Unsupported("dropout in training mode; call model.eval() first")
    return g.raw(a["input"])


ATEN_TO_GE: dict[Any, Builder] = {
    # Core ATen (after run_decompositions)
    aten.convolution.default: _convolution,
    aten._native_batch_norm_legit_no_training.default: _batch_norm,
    aten.relu.default: _relu,
    aten.add.Tensor: _add,                                  # x + alpha * y
    aten.add.Scalar: _add,
    aten.sub.Tensor: _sub,                                  # x - alpha * y
    aten.sub.Scalar: _sub,
    aten.mul.Tensor: _mul,
    aten.mul.Scalar: _mul,
    aten.max_pool2d_with_indices.default: _max_pool2d,      # output 0 only
    aten._adaptive_avg_pool2d.default: _adaptive_avg_pool2d,
    aten.mean.dim: _mean,                                   # global avg pool over H, W
    aten.view.default: _reshape,
    aten._unsafe_view.default: _reshape,
    aten.reshape.default: _reshape,
    aten.squeeze.dim: _reshape,
    aten.squeeze.dims: _reshape,
    aten.unsqueeze.default: _reshape,
    aten.permute.default: _permute,                         # constants only
    aten.addmm.default: _addmm,                             # b + x @ w.T -> ge.linear
    aten.mm.default: _mm,
    aten.bmm.default: _bmm,
    aten.full.default: _full,                               # becomes a ge.const
    aten.clone.default: _identity,
    aten.alias.default: _identity,
    aten.detach.default: _identity,
    aten.lift_fresh_copy.default: _identity,
    aten.sym_size.int: _symbolic,                           # shapes come from node.meta
    operator.add: _symbolic,                                # SymInt arithmetic (dynamic
    operator.sub: _symbolic,                                # sizes of views); tensors use
    operator.mul: _symbolic,                                # aten ops, never these
    operator.floordiv: _symbolic,
    operator.mod: _symbolic,
    operator.neg: _symbolic,
    aten._assert_scalar.default: _no_result,
    aten.sym_constrain_range_for_size.default: _no_result,
    aten._assert_tensor_metadata.default: _no_result,
    operator.getitem: _getitem,
    # Training IR (torch.export.export without run_decompositions)
    aten.conv2d.default: _convolution,
    aten.batch_norm.default: _batch_norm,
    aten.max_pool2d.default: _max_pool2d,
    aten.adaptive_avg_pool2d.default: _adaptive_avg_pool2d,
    aten.flatten.using_ints: _flatten,
    aten.linear.default: _linear,
    aten.matmul.default: _matmul,
    aten.t.default: _t,
    aten.transpose.int: _transpose,
    aten.contiguous.default: _identity,
    aten.dropout.default: _dropout,
}

# Why some ops without an entry show up, so the user knows what to change.
_HINTS = {
    aten._native_batch_norm_legit_functional.default:
        "batch norm in training mode; call model.eval() first",
    aten._native_batch_norm_legit.default:
        "batch norm without running statistics or in training mode",
}


# --------------------------------------------------------------------------
# Small utilities


def _bind(node: Node) -> dict:
    """The node's arguments by schema name, defaults filled in (by position if no schema)."""
    schema = getattr(node.target, "_schema", None)
    if schema is None:
        return dict(enumerate(node.args))
    bound = {}
    for i, arg in enumerate(schema.arguments):
        if i < len(node.args) and not arg.kwarg_only:
            bound[arg.name] = node.args[i]
        elif arg.name in node.kwargs:
            bound[arg.name] = node.kwargs[arg.name]
        else:
            bound[arg.name] = arg.default_value if arg.has_default_value() else None
    return bound


def _shape(sizes: Sequence[Any]) -> list[int]:
    """A torch (maybe symbolic) size as xDSL dims: SymInts become `?`."""
    return [d if isinstance(d, int) else DYNAMIC_INDEX for d in sizes]


def _merged_dims(src: Sequence[Any], dst: Sequence[Any]) -> tuple[int, int] | None:
    """(start, end) if `dst` is `src` with dims start..end merged into one, else None."""
    src_s, dst_s = [str(d) for d in src], [str(d) for d in dst]
    n = len(src_s) - len(dst_s) + 1
    if n < 2:
        return None
    for s in range(len(dst_s)):
        if src_s[:s] == dst_s[:s] and src_s[s + n:] == dst_s[s + 1:]:
            end = s + n - 1
            return s, (-1 if end == len(src_s) - 1 else end)
    return None


def _input_type(node: Node) -> TensorType:
    val = node.meta.get("val")
    if not isinstance(val, torch.Tensor):
        raise GEImportError(f"input '{node.name}' is a {type(val).__name__}; "
                            "GE graphs take float32 tensors only")
    if val.dtype != torch.float32:
        raise GEImportError(f"input '{node.name}' has dtype {val.dtype}; "
                            "GE graphs take float32 tensors only")
    return TensorType(f32, _shape(val.shape))


def _check_dtype(node: Node) -> None:
    val = node.meta.get("val")
    if isinstance(val, (tuple, list)) and val:
        val = val[0]
    if isinstance(val, torch.Tensor) and val.dtype != torch.float32:
        raise Unsupported(f"produces {val.dtype} tensors; GE supports float32 only")


def _check_shape(node: Node, value: SSAValue) -> None:
    """GE's inferred shape must agree with PyTorch's; a mismatch is an importer bug."""
    val = node.meta.get("val")
    if not isinstance(val, torch.Tensor):
        return
    got, want = ge.shape_of(value), tuple(_shape(val.shape))
    if not shapes.compatible(got, want):
        raise GEImportError(f"internal importer error at node '{node.name}' "
                            f"({_op_name(node.target)}): GE inferred {shapes.fmt(got)}, "
                            f"PyTorch says {shapes.fmt(want)}")


def _op_name(target: Any) -> str:
    if isinstance(target, torch._ops.OpOverload):
        return str(target)  # e.g. aten.cumsum.default
    return getattr(target, "__qualname__", None) or str(target)


# Core ATen node names that read badly as value names.
_READABLE_NAMES = {
    "_native_batch_norm_legit_no_training": "batch_norm",
    "max_pool2d_with_indices": "max_pool2d",
    "_adaptive_avg_pool2d": "adaptive_avg_pool2d",
}


def _value_name(node: Node) -> str:
    """The FX node name, minus its `_N` suffix (the printer renumbers), made readable."""
    base = re.sub(r"_\d+$", "", node.name)
    return _READABLE_NAMES.get(base, base)


_IDENT_BAD = re.compile(r"[^A-Za-z0-9_]")


def _identifier(name: str) -> str:
    """A valid MLIR value name from an FX node name or parameter path: conv1.weight -> conv1_weight."""
    name = _IDENT_BAD.sub("_", name) or "v"
    return "_" + name if name[0].isdigit() else name


def _first_line(e: BaseException) -> str:
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    return f"{type(e).__name__}: {lines[0]}" if lines else type(e).__name__


_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in [^\n]*'
                    r'(?:\n(?![ \t]*File ")[ \t]*(?P<code>[^\n]*))?')
_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep


def _is_torch_frame(path: str) -> bool:
    return os.path.abspath(path).startswith(_TORCH_DIR) or path.startswith("torch" + os.sep)


def source_location(node: Node) -> str:
    """Where the user wrote this op: `file.py:LINE: code`, else the module path."""
    frames = [m for m in _FRAME.finditer(node.meta.get("stack_trace") or "")
              if not _is_torch_frame(m["file"])]
    if frames:
        m = frames[-1]
        code = f": {m['code'].strip()}" if m["code"] and m["code"].strip() else ""
        return f"{os.path.basename(m['file'])}:{m['line']}{code}"
    stack = node.meta.get("nn_module_stack")
    if stack:
        path, cls = list(stack.values())[-1]
        cls = cls if isinstance(cls, str) else getattr(cls, "__name__", str(cls))
        return f"in module '{path or '<root>'}' ({cls.rsplit('.', 1)[-1]})"
    return "source location unknown"
