"""PyTorch importer: a torch.export ExportedProgram -> one GE `func.func`.

    module = import_module(model, (torch.randn(1, 3, 224, 224),))

`import_module` runs `torch.export.export` and imports its training IR
(`aten.conv2d`, `aten.batch_norm`, `aten.linear`, ...) when the table maps
every op in it; otherwise it runs `run_decompositions()` first, so the graph
is in core ATen, the op set PyTorch keeps stable (nn.Linear is `permute` +
`addmm`, eval-mode BatchNorm2d is one `_native_batch_norm_legit_no_training`),
and imports that. Errors are reported from the core ATen graph.

The translation is the table `ATEN_TO_GE` (`lowering/aten/`): one entry per
ATen overload, each a small builder `(importer, args) -> value` where `args`
holds the op's arguments by schema name with defaults filled in. A builder
returns an SSA value, a `Weight` (a constant that is only turned into
`ge.const` when something uses it, so `addmm(b, x, permute(w))` can become
`ge.linear` on the untransposed weight), a tuple (multi-output ops, read by
`getitem`) or None (ops with no result, e.g. runtime asserts).

Ops with a kernel registered with `npu_graph.custom_op` become `ge.custom`,
whether or not the table maps them (the user's kernel wins). `torch.cond` and `while_loop` become `ge.if` and
`ge.while`; their branch and body graphs are imported recursively into
isolated regions, each with its own constants.

Dtypes: float32/16/64, bfloat16, int64/32/8 and bool tensors import as
f32/f16/f64, bf16, i64/i32/i8 and i1. Operands are cast to the dtype PyTorch
computed for the node (`ge.cast`), so type promotion (int + float, sum of
booleans) is explicit in the IR. Dynamic dims (torch.export `Dim`) import as `?`; a size an op
needs at run time (`arange(T)`, `x[:T]`, a view with several `?` dims) is
computed in the graph from the inputs' dims (`ge.dim`, then `ge.add`/`ge.mul`,
`ge.floor_div`, `ge.remainder`, `ge.maximum`/`ge.minimum` as the symbolic
expression says; see `SIZE_OPS`) and passed to the op as a 0-d i64 operand.
A SymInt used as a tensor operand (HF's `arange(T) + past_seen_tokens`) is
that same value; a slice or narrow with a symbolic start is `ge.dynamic_slice`.

Hugging Face caches: a `DynamicCache` input or output is a pytree of its key
and value tensors (`lowering/hf_cache.py`). In-place writes into a graph
input or a module buffer (a static KV cache: index_copy_, index_put_,
copy_) become `ge.scatter_update` / `ge.assign` on that argument
(`lowering/aten/state.py`); updated buffers become the last arguments, named
by the function's `ge.state_buffers`, and the caller passes the module's own
tensors.

Unsupported ops do not stop the import at the first one: every node is tried,
and one `UnsupportedOpError` lists each distinct op with a count, the first
node and the user's source line.
"""

from __future__ import annotations

import json
import os
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sympy
import torch
from torch.export import ExportedProgram
from torch.utils._sympy import functions as sym_fns
from torch.export.graph_signature import InputKind, OutputKind
from torch.fx import Graph, GraphModule, Node
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    FileLineColLoc,
    FunctionType,
    IntAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    UnknownLoc,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from ge_dialect import OUTPUT_TREE, STATE_BUFFERS, STORAGE_LAYOUTS, ge, shapes
from ge_dialect.shapes import ShapeError
from lowering.aten import ATEN_TO_GE, HINTS
from lowering import hf_cache, output_tree
from lowering.aten import control, state
from lowering.aten.common import (
    ELEMENT_TYPES,
    GEImportError,
    NotImported,
    Unsupported,
    Symbolic,
    Weight,
    element_type,
    meta,
    out_meta,
    static_shape,
)
from runtime import custom_ops

__all__ = ["ATEN_TO_GE", "GEImportError", "UnsupportedOp", "UnsupportedOpError",
           "import_module", "import_program", "source_location"]

CUSTOM_OP_HINT = "register a kernel with npu_graph.custom_op(...)"
MAPPED_HINT = ("For an op GE maps, but not with the operands listed: change the model "
               "code at the line shown as the reason says, or compile with "
               "torch.compile(model, backend=\"ge\"), where such a node runs in eager as a "
               "graph break.")
_TORCH_DTYPES = {str(t): d for d, t in ELEMENT_TYPES.items()}


class UnsupportedOpError(GEImportError):
    """The graph uses ATen ops the importer cannot map; `ops` lists them all."""

    def __init__(self, ops: Sequence[UnsupportedOp]):
        self.ops = list(ops)
        total = sum(op.count for op in self.ops)
        lines = [f"cannot import the model: {len(self.ops)} unsupported PyTorch "
                 f"op{'s' if len(self.ops) != 1 else ''} ({total} node"
                 f"{'s' if total != 1 else ''}):"]
        lines += [f"  - {op}" for op in self.ops]
        unmapped = [op.op for op in self.ops if not op.mapped]
        named = [op for op in unmapped if op.count(".") >= 2]
        if unmapped:
            example = named[0].rsplit(".", 1)[0] if named else "aten.op"
            lines.append(f"To run {'them' if len(unmapped) > 1 else 'it'} anyway, "
                         f"{CUSTOM_OP_HINT}: for example @npu_graph.custom_op(\"{example}\") "
                         "over a function that takes the op's tensors (and its other "
                         "arguments as keywords) and returns its result.")
        if len(unmapped) < len(self.ops):
            lines.append(MAPPED_HINT)
        super().__init__("\n".join(lines))


@dataclass
class UnsupportedOp:
    """One distinct unsupported op: how often, where first, and why."""

    op: str
    reason: str
    first_node: str
    location: str
    count: int = 1
    mapped: bool = False  # GE maps the op, but not with these operands

    def __str__(self) -> str:
        return (f"{self.op} x{self.count} ({self.reason}): first at node "
                f"'{self.first_node}', {self.location}")


class _AlreadyReported(Exception):
    """A subgraph of this node has unsupported ops, already in the report."""


# --------------------------------------------------------------------------
# Public API


def import_module(model: torch.nn.Module, example_inputs: tuple, dynamic_shapes=None,
                  func_name: str = "main") -> ModuleOp:
    """Export `model` (switched to eval mode, and left there) and import it."""
    return import_exported(export(model, example_inputs, dynamic_shapes), func_name,
                           type(model).__name__)


def export(model: torch.nn.Module, example_inputs: tuple,
           dynamic_shapes=None) -> ExportedProgram:
    """torch.export's training IR of `model` in eval mode; a failure is one line."""
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    model.eval()
    hf_cache.register_caches()
    hf_cache.warn_sliding_windows(example_inputs)
    with warnings.catch_warnings():
        # torch 2.13 warns about its own pytree internals while exporting.
        warnings.filterwarnings("ignore", r".*LeafSpec", FutureWarning)
        try:
            return torch.export.export(model, tuple(example_inputs),
                                       dynamic_shapes=dynamic_shapes)
        except Exception as e:  # torch raises many types; the user needs one clear line
            what = type(model).__name__
            raise GEImportError(hf_cache.cache_error(what, e) or
                                f"torch.export could not trace {what}: {_first_line(e)}") from e


def import_exported(ep: ExportedProgram, func_name: str = "main",
                    what: str = "the model") -> ModuleOp:
    """Import `ep` as is when the table maps every op of it, else its core ATen form.

    Decomposing to core ATen re-traces the model, which costs twice the export
    (2 s of ResNet-50's 4 s compile), so it runs only when needed; errors are
    then reported on the core ATen graph, the op set users can look up.
    """
    try:
        return import_program(ep, func_name)
    except GEImportError:
        pass
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", r".*LeafSpec", FutureWarning)
        try:
            ep = ep.run_decompositions(_decompositions())
        except Exception as e:
            raise GEImportError(
                f"decomposing {what} to core ATen failed: {_first_line(e)}") from e
    return import_program(ep, func_name)


# Ops GE has whole that core ATen would take apart (into index, batch norm in
# training mode, pow + mean + rsqrt, gathers): kept, as torch-mlir keeps its
# backend-legal ops.
KEEP_WHOLE = (torch.ops.aten.rms_norm.default, torch.ops.aten.instance_norm.default,
              torch.ops.aten.pad.default, torch.ops.aten.upsample_bicubic2d.vec)


def _decompositions():
    table = torch.export.default_decompositions()
    for op in KEEP_WHOLE:
        table.pop(op, None)
    return table


def import_program(ep: ExportedProgram, func_name: str = "main") -> ModuleOp:
    """Translate an ExportedProgram into `builtin.module { func.func @func_name }`."""
    fn = _GraphImporter(ep, ep.graph_module).run(func_name)
    spec = ep.call_spec.out_spec
    if spec is not None and not output_tree.is_flat(spec):
        text = output_tree.dumps(spec)
        if text is None:
            warnings.warn(f"@{func_name} returns a structure torch's pytree cannot write "
                          f"({spec.type}); the compiled graph returns its tensors as a flat "
                          "tuple", RuntimeWarning, stacklevel=2)
        else:
            fn.attributes[OUTPUT_TREE] = StringAttr(text)
    return ModuleOp([fn])


# --------------------------------------------------------------------------
# The importer

# Size arithmetic torch.export writes into symbolic sizes (sympy), as the GE op
# on 0-d i64 values that computes it at run time; sums and products are
# sympy's own Add and Mul. Sizes are never negative, so Mod is a remainder.
SIZE_OPS: dict[type, type[Operation]] = {
    sym_fns.FloorDiv: ge.FloorDivOp,        # s // 2
    sym_fns.PythonMod: ge.RemainderOp,      # s % 2
    sym_fns.Mod: ge.RemainderOp,
    sym_fns.Max: ge.MaximumOp,              # torch.sym_max(s, 8)
    sym_fns.Min: ge.MinimumOp,              # torch.sym_min(s, 8)
}

_POISONED = object()  # result of a node that was not imported


class _GraphImporter:
    """Imports one FX graph into one block; subgraphs get a child importer."""

    def __init__(self, ep: ExportedProgram, module: GraphModule,
                 parent: _GraphImporter | None = None):
        self.ep = ep
        self.module = module
        self.graph: Graph = module.graph
        self.env: dict[Node, Any] = {}
        self.consts: list[Operation] = []
        self.body: list[Operation] = []
        self.scalars: dict[tuple[float, str], SSAValue] = {}
        self.weights: dict[Weight, SSAValue] = {}  # per block: regions are isolated
        self.unsupported: dict[tuple[str, str], UnsupportedOp] = (
            parent.unsupported if parent else {})
        self.node: Node | None = None  # the node being converted, for builders
        self.user_inputs: list[Node] = []
        # Input index -> (storage offset, strides) as traced, for inputs whose
        # storage an op reads beneath the view (shape.as_strided).
        self.storage_layouts: dict[int, tuple[int | None, tuple[int, ...]]] = {}
        # Symbolic sizes (torch.export Dims): where each symbol is an input's dim,
        # and the 0-d i64 values already computed for size expressions.
        self.symbols: dict[str, tuple[SSAValue, int]] = {}
        self.size_values: dict[str, SSAValue] = {}
        self.state_buffers: list[str] = []
        # In-place updates of graph inputs whose old contents an earlier op reads:
        # argument -> its new contents, assigned after every other op (ge.assign).
        self.assign_last: dict[SSAValue, SSAValue] = {}
        self.block: Block | None = None

    # ---- driver

    def run(self, func_name: str) -> func.FuncOp:
        block = self.block = Block(arg_types=self._bind_placeholders())
        for arg, node in zip(block.args, self.user_inputs):
            arg.name_hint = _identifier(node.name)
            self.env[node] = arg
            for i, d in enumerate(meta(node).shape):
                if isinstance(d, torch.SymInt) and d.node.expr.is_Symbol:
                    self.symbols.setdefault(str(d.node.expr), (arg, i))
        state_args = block.args[len(block.args) - len(self.state_buffers):]
        for arg, name in zip(state_args, self.state_buffers):
            arg.name_hint = _identifier(name)  # the buffer, not the tensor export lifted
        output = self._convert_all()
        if self.unsupported:
            raise UnsupportedOpError(list(self.unsupported.values()))
        results = self._outputs(output)
        self.body += [ge.AssignOp(arg, value) for arg, value in self.assign_last.items()]
        block.add_ops(self.consts + self.body + [func.ReturnOp(*results)])
        ftype = FunctionType.from_lists(block.arg_types, [r.type for r in results])
        fn = func.FuncOp(func_name, ftype, Region(block))
        if self.storage_layouts:
            fn.attributes[STORAGE_LAYOUTS] = StringAttr(json.dumps(
                {str(i): [o, list(s)] for i, (o, s) in sorted(self.storage_layouts.items())}))
        if self.state_buffers:
            fn.attributes[STATE_BUFFERS] = ArrayAttr([StringAttr(b) for b in self.state_buffers])
        return fn

    def _convert_all(self) -> Node | None:
        output = None
        for node in self.graph.nodes:
            if node.op == "call_function":
                self._convert(node)
            elif node.op == "output":
                output = node
            elif node.op not in ("placeholder", "get_attr"):
                raise GEImportError(f"unexpected FX node '{node.name}' ({node.op}) in the "
                                    "exported graph; expected only ATen calls")
        return output

    def _bind_placeholders(self) -> list[TensorType]:
        """Weights become lazy `Weight`s; user inputs become function arguments."""
        placeholders = {n.name: n for n in self.graph.nodes if n.op == "placeholder"}
        for spec in self.ep.graph_signature.input_specs:
            node = placeholders[spec.arg.name]
            if spec.kind == InputKind.USER_INPUT and node.meta.get("val", 0) is None:
                self.env[node] = None  # an optional input passed as None (pytree drops it too)
            elif spec.kind == InputKind.USER_INPUT:
                self.user_inputs.append(node)
            elif spec.kind in (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR):
                tensor = self.ep.state_dict.get(spec.target)
                if tensor is None:
                    tensor = self.ep.constants[spec.target]
                self.env[node] = Weight(tensor.detach(), _identifier(spec.target))
            else:
                raise GEImportError(f"input '{spec.arg.name}' of kind {spec.kind.name} "
                                    "is not supported (only tensors, parameters and buffers)")
        # Buffers the model updates in place (a static KV cache) are state, not
        # constants: they become the last arguments, and the caller passes them.
        buffers = self._updated_buffers(placeholders)
        self.state_buffers = list(buffers)
        self.user_inputs += list(buffers.values())
        return [_input_type(node) for node in self.user_inputs]

    def _updated_buffers(self, placeholders: dict[str, Node]) -> dict[str, Node]:
        """Module buffers written in place, by buffer name: placeholders updated in
        place (training IR: index_copy_, copy_...) or returned as BUFFER_MUTATION
        outputs (core ATen). A tensor the model reaches other than as an attribute
        (HF's StaticCache layers) is lifted as a constant; it is the buffer that
        shares its storage."""
        specs = {spec.arg.name: spec for spec in self.ep.graph_signature.input_specs}
        mutated = {spec.target for spec in self.ep.graph_signature.output_specs
                   if spec.kind == OutputKind.BUFFER_MUTATION}
        nodes = state.updated_placeholders(self.graph) + [
            placeholders[spec.arg.name] for spec in specs.values()
            if spec.kind == InputKind.BUFFER and spec.target in mutated]
        buffers = {}
        for node in nodes:
            spec = specs[node.name]
            if spec.kind == InputKind.BUFFER:
                buffers.setdefault(spec.target, node)
            elif spec.kind == InputKind.CONSTANT_TENSOR:
                name = self._buffer_sharing(self.ep.constants[spec.target], specs)
                if name is None:
                    raise GEImportError(
                        f"the model updates tensor '{spec.target}' in place, but it is not a "
                        "module buffer; register it with module.register_buffer so the "
                        "graph can update it in place")
                buffers.setdefault(name, node)
        return buffers

    def _buffer_sharing(self, tensor: torch.Tensor, specs) -> str | None:
        for spec in specs.values():
            if spec.kind != InputKind.BUFFER:
                continue
            buffer = self.ep.state_dict.get(spec.target)
            if buffer is None:
                buffer = self.ep.constants.get(spec.target)
            if (buffer is not None and buffer.shape == tensor.shape
                    and buffer.untyped_storage().data_ptr() == tensor.untyped_storage().data_ptr()):
                return spec.target
        return None

    def _convert(self, node: Node) -> None:
        # A kernel the user registered wins over GE's mapping of the same op.
        builder = (control.custom if custom_ops.lookup_target(node.target) is not None
                   else ATEN_TO_GE.get(node.target))
        if builder is None:
            self._reject(node, HINTS.get(node.target) or _no_mapping(node.target))
            return
        if any(self.env.get(n) is _POISONED for n in node.all_input_nodes):
            self.env[node] = _POISONED  # its producer is already reported
            return
        self.node = node
        start = len(self.body)
        try:
            _check_dtype(node)
            out = builder(self, _bind(node))
        except Unsupported as e:
            self._reject(node, str(e))
            return
        except ShapeError as e:
            self._reject(node, f"GE shape rule: {e}")
            return
        except _AlreadyReported:
            self.env[node] = _POISONED
            return
        if isinstance(out, SSAValue):
            _check_result(node, out)
        self.env[node] = out
        loc = source_loc(node)
        if loc is not None:
            for op in self.body[start:]:
                for inner in op.walk():
                    if isinstance(inner.location, UnknownLoc):
                        inner.location = loc

    def _reject(self, node: Node, reason: str) -> None:
        self.env[node] = _POISONED
        key = (_op_name(node.target), reason)
        if key in self.unsupported:
            self.unsupported[key].count += 1
        else:
            mapped = node.target in ATEN_TO_GE and custom_ops.lookup_target(node.target) is None
            self.unsupported[key] = UnsupportedOp(key[0], reason, node.name,
                                                  source_location(node), mapped=mapped)

    def _outputs(self, output: Node) -> list[SSAValue]:
        results = []
        for i, (spec, arg) in enumerate(zip(self.ep.graph_signature.output_specs,
                                            output.args[0])):
            if spec.kind == OutputKind.BUFFER_MUTATION and spec.target in self.state_buffers:
                # core ATen's functional form: the new contents, assigned in place
                buffer = self.block.args[len(self.block.args) - len(self.state_buffers)
                                         + self.state_buffers.index(spec.target)]
                self.body.append(ge.AssignOp(buffer, self.value(arg)))
                continue
            if spec.kind == OutputKind.USER_INPUT_MUTATION:
                # core ATen's form of an in-place update of a caller's tensor: the
                # new contents, assigned to that argument after every other op
                node = next((n for n in self.user_inputs if n.name == spec.target), None)
                if node is not None:
                    self.assign_last[self.argument(node)] = self.value(arg)
                    continue
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

    # ---- subgraphs (torch.cond branches, while_loop bodies)

    def submodule(self, node: Node) -> GraphModule:
        return getattr(self.module, node.target)

    def import_subgraphs(self, *specs) -> list[tuple[Region, list[SSAValue]]]:
        """Import each `(module, bindings, arg_types, passthrough)` as an isolated
        region; all of them, so the report names the unsupported ops of every branch."""
        before = sum(op.count for op in self.unsupported.values())
        regions = [self._import_subgraph(*spec) for spec in specs]
        if sum(op.count for op in self.unsupported.values()) != before:
            raise _AlreadyReported()
        return regions

    def _import_subgraph(self, module: GraphModule, bindings: Sequence[Weight | int],
                         arg_types: Sequence[Attribute], passthrough: Sequence[int] = ()
                         ) -> tuple[Region, list[SSAValue]]:
        """Placeholder i is the weight `bindings[i]` or block argument number
        `bindings[i]`; the region yields the subgraph's outputs, then the block
        arguments listed in `passthrough`."""
        child = _GraphImporter(self.ep, module, parent=self)
        block = Block(arg_types=list(arg_types))
        placeholders = [n for n in child.graph.nodes if n.op == "placeholder"]
        if len(placeholders) != len(bindings):
            raise Unsupported(f"a subgraph with {len(placeholders)} inputs for "
                              f"{len(bindings)} operands")
        for node, b in zip(placeholders, bindings):
            if isinstance(b, Weight):
                child.env[node] = b
            else:
                child.env[node] = block.args[b]
                block.args[b].name_hint = _identifier(node.name)
        output = child._convert_all()
        outs = output.args[0] if output is not None else ()
        outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
        if any(child.env.get(v) is _POISONED for v in outs):
            return Region(block), []  # already reported; import_subgraphs raises
        values = [child.value(v) for v in outs] + [block.args[i] for i in passthrough]
        block.add_ops(child.consts + child.body + [ge.YieldOp(*values)])
        return Region(block), values

    # ---- helpers for builders

    def raw(self, arg: Any) -> Any:
        """What a node evaluated to, as is (SSA value, Weight, tuple, ...)."""
        return self.env[arg] if isinstance(arg, Node) else arg

    def value(self, arg: Any) -> SSAValue:
        """`arg` as an SSA value: weights and Python numbers become ge.const."""
        v = self.raw(arg)
        if isinstance(v, SSAValue):
            return v
        if isinstance(v, Weight):
            if v not in self.weights:
                self.weights[v] = self._const(v.tensor, v.name, v.splat)
            return self.weights[v]
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return self.scalar(v)
        if isinstance(v, NotImported):
            raise Unsupported(v.reason)
        if isinstance(v, Symbolic) and isinstance(arg, Node):
            return self.size_value(meta(arg))  # a SymInt operand: a 0-d i64 value
        raise Unsupported(f"operand {arg} is a {type(v).__name__}, not a tensor")

    def typed(self, arg: Any, dtype: torch.dtype | None = None) -> SSAValue:
        """`arg` as an SSA value of element type `dtype` (default: the node's
        result dtype): numbers become constants of that type, tensors are cast."""
        want = element_type(dtype or out_meta(self).dtype)
        v = self.raw(arg)
        if isinstance(v, (int, float, bool)):
            return self.scalar(v, want)
        value = self.value(arg)
        if ge.element_type(value.type) == want:
            return value
        return self.emit(ge.CastOp(value, want), "cast")

    def size(self, arg: Any) -> Any:
        """An int argument as PyTorch knows it: an int, or a SymInt for a symbolic size."""
        return meta(arg) if isinstance(arg, Node) else arg

    def size_value(self, size: Any) -> SSAValue:
        """A (maybe symbolic) size as a 0-d i64 value, computed at run time from
        the dims of the graph inputs that define its symbols (ge.dim)."""
        return self._expr_value(
            size.node.expr if isinstance(size, torch.SymInt) else sympy.Integer(size))

    def _expr_value(self, expr: sympy.Expr) -> SSAValue:
        key = str(expr)
        if key in self.size_values:
            return self.size_values[key]
        if expr.is_Integer:
            value = self.scalar(int(expr), element_type(torch.int64))
        elif expr.is_Symbol:
            if key not in self.symbols:
                raise Unsupported(f"size {key} is not a dimension of a graph input; GE "
                                  "computes sizes from input dims (torch.export Dim)")
            arg, dim = self.symbols[key]
            value = self.emit(ge.DimOp(arg, dim))
            value.name_hint = f"{arg.name_hint}_dim{dim}"
        elif type(expr) in SIZE_OPS or expr.is_Add or expr.is_Mul:
            op = SIZE_OPS.get(type(expr)) or (ge.AddOp if expr.is_Add else ge.MulOp)
            terms = [self._expr_value(t) for t in expr.args]
            value = terms[0]
            for term in terms[1:]:
                value = self.emit(op(value, term), "size")
        else:
            raise Unsupported(f"a size computed as {expr}; GE computes sums, products, "
                              "floor divisions, remainders, maxima and minima of input dims")
        self.size_values[key] = value
        return value

    def is_argument(self, raw: Any) -> bool:
        """True for an argument of the graph being imported (not of a subgraph region)."""
        return self.block is not None and isinstance(raw, SSAValue) and raw.owner is self.block

    def argument(self, node: Node) -> SSAValue | None:
        """The graph argument a placeholder was bound to, whatever it reads as now."""
        if self.block is None or node not in self.user_inputs:
            return None
        return self.block.args[self.user_inputs.index(node)]

    def is_computed(self, raw: Any) -> bool:
        """True for an SSA value (as opposed to a constant or a Python value)."""
        return isinstance(raw, SSAValue)

    def example(self, arg: Any) -> Any:
        """A tensor or number with `arg`'s dtype, for torch.result_type."""
        if isinstance(arg, Node):
            return meta(arg)
        return arg

    def scalar(self, x: float, like: SSAValue | Attribute | None = None) -> SSAValue:
        """A 0-d constant (f32, or the element type of `like`), shared per region."""
        element = like if isinstance(like, Attribute) or like is None else ge.element_type(
            like.type)
        dtype = _TORCH_DTYPES[str(element)] if element is not None else torch.float32
        key = (x, str(dtype))
        if key not in self.scalars:
            self.scalars[key] = self._const(torch.tensor(x, dtype=dtype), "cst")
        return self.scalars[key]

    def emit(self, op: Operation, suffix: str = "") -> SSAValue:
        """Append `op`; its results are named after the current FX node (+ `_suffix`)."""
        self.body.append(op)
        for result in op.results:
            result.name_hint = _identifier(self.value_name() + (f"_{suffix}" if suffix else ""))
        return op.results[0] if op.results else None

    def value_name(self) -> str:
        return _value_name(self.node)

    def location(self) -> str:
        return source_location(self.node)

    def op_name(self, target: Any) -> str:
        return _op_name(target)

    def _const(self, tensor: torch.Tensor, name: str, splat: bool = False) -> SSAValue:
        element = element_type(tensor.dtype)
        data = tensor.detach().contiguous()
        if splat:
            data = data.reshape(-1)[:1]
        if data.dtype == torch.bfloat16:  # NumPy has no bfloat16: its raw 16-bit words
            data = data.view(torch.int16)
        attr = DenseIntOrFPElementsAttr(TensorType(element, list(tensor.shape)),
                                        BytesAttr(data.numpy().tobytes()))
        op = ge.ConstOp(attr)
        op.output.name_hint = _identifier(name)
        self.consts.append(op)
        return op.output


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


def _input_type(node: Node) -> TensorType:
    val = node.meta.get("val")
    if not isinstance(val, torch.Tensor):
        raise GEImportError(f"input '{node.name}' is a {type(val).__name__}; "
                            "GE graphs take tensors only")
    try:
        return TensorType(element_type(val.dtype), static_shape(val.shape))
    except Unsupported as e:
        raise GEImportError(f"input '{node.name}' has {e}") from None


def _check_dtype(node: Node) -> None:
    val = node.meta.get("val")
    for t in val if isinstance(val, (tuple, list)) else [val]:
        if isinstance(t, torch.Tensor) and t.dtype not in ELEMENT_TYPES:
            element_type(t.dtype)  # raises Unsupported naming the dtype


def _check_result(node: Node, value: SSAValue) -> None:
    """GE's inferred type must agree with PyTorch's; a mismatch is an importer bug."""
    val = node.meta.get("val")
    if not isinstance(val, torch.Tensor):
        return
    got, want = ge.shape_of(value), tuple(static_shape(val.shape))
    got_t, want_t = ge.element_type(value.type), ELEMENT_TYPES.get(val.dtype)
    if not shapes.compatible(got, want) or got_t != want_t:
        raise GEImportError(f"internal importer error at node '{node.name}' "
                            f"({_op_name(node.target)}): GE inferred {shapes.fmt(got)} "
                            f"{got_t}, PyTorch says {shapes.fmt(want)} {want_t}")


def _no_mapping(target: Any) -> str:
    if isinstance(target, torch._ops.OpOverload) and target.namespace not in ("aten", "prims"):
        return "a custom op with no GE kernel"
    return "no GE mapping"


def _op_name(target: Any) -> str:
    if isinstance(target, torch._ops.OpOverload):
        return str(target)  # e.g. aten.cumsum.default
    if isinstance(target, torch._ops.HigherOrderOperator):
        return f"higher_order.{target.name()}"
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
    """Frames of torch itself, or of code it generated (`<eval_with_key>.3`: the
    graphs of torch.cond branches), are not where the user wrote the op."""
    return (os.path.abspath(path).startswith(_TORCH_DIR) or path.startswith("torch" + os.sep)
            or path.startswith("<"))


def source_loc(node: Node) -> FileLineColLoc | None:
    """`loc("model.py":94:0)`: the user's line that made this op (the file's
    base name, so printed IR is the same on every machine)."""
    frames = [m for m in _FRAME.finditer(node.meta.get("stack_trace") or "")
              if not _is_torch_frame(m["file"])]
    if not frames:
        return None
    m = frames[-1]
    return FileLineColLoc(StringAttr(os.path.basename(m["file"])), IntAttr(int(m["line"])),
                          IntAttr(0))


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
