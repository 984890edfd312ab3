"""The torch.compile backend: TorchAir's door to the same compiler as NpuGraph.

    model = torch.compile(model, backend="ge")
    model = torch.compile(model, backend=npu_graph.get_npu_backend(
        compiler_config=npu_graph.CompilerConfig(mode="max-autotune")))

Dynamo hands over FX graphs of torch-level calls. Each one takes the road of
`NpuGraph`, with no compiler of its own: the graph's parameters and buffers
become module attributes (so they import as weights, read once at compile
time, as TorchAir's `frozen_parameter`), `torch.export` turns it into ATen
(`lowering/torch_to_ge.py` `export` and `import_exported`), and the GE graph
is optimized by the pipeline builder (`GEGraph.optimize`) and run by the
runtime's executable.

An op the importer cannot map is a graph break: the ATen graph is split
with torch's `CapabilityBasedPartitioner` around the unsupported nodes, the
supported pieces are compiled as above, and the rest runs in eager, so the
answer stays right. Each graph logs one line on the `npu_graph.backend`
logger; `explain(model, *inputs)` collects them with Dynamo's own breaks.

Dynamic shapes: a graph Dynamo traced with symbolic sizes is exported with
those dims marked `Dim.DYNAMIC`, so they import as `?` dims. Where the
importer cannot express a symbolic size, or a split would pass a size
between pieces, that graph runs in eager and its report says why.
"""

from __future__ import annotations

import collections
import logging
import operator
import os
import warnings
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING

import torch
from torch.fx import GraphModule, Node
from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
from torch.fx.passes.operator_support import OperatorSupportBase
from xdsl.passes import PassPipeline
from xdsl.printer import Printer

from ge_dialect import ge
from npu_graph.graph import GEGraph, OptimizedGraph
from npu_graph.inference import marked
from passes import get_all_passes
from passes.pipelines import Flags, build_pipeline
from runtime.host import heap
from runtime.weight_pool import WeightPool

if TYPE_CHECKING:
    from lowering.torch_to_ge import UnsupportedOp

log = logging.getLogger("npu_graph.backend")

MODES = ("max-autotune", "reduce-overhead")
# Splitting stops after this many rounds (a piece may reveal further unsupported
# ops when imported alone); what is left then runs in eager.
MAX_SPLIT_ROUNDS = 4
FUSED_PREFIX = "ge_piece_"
MAX_REPORTS = 64  # the reports a backend keeps, newest last
MAX_WEIGHT_SETS = 8  # compiles of one graph for different modules' weights
CARRIER = "ge_size_carrier"  # node meta: a placeholder carrying an integer as its dim


class BackendError(ValueError):
    """The backend refuses a graph or a configuration; the message says what to do."""


@dataclass
class CompilerConfig(Flags):
    """What `get_npu_backend` compiles with, TorchAir's `CompilerConfig` flattened.

    `mode`: "max-autotune" (the whole GE pipeline, dynamic dims allowed) or
    "reduce-overhead" (static shapes only: one plan per graph, buffers fixed
    at load; a graph with symbolic sizes is refused). The other fields are
    the article's `optimize(...)` flags and GE's options (passes/pipelines.py
    `Flags`): `precision_mode` (GE's, e.g. "allow_mix_precision_bf16"),
    `enable_memory_reuse`, `max_streams` (GE's ge.streamMaxParallelNum), ...
    `graph_dump_path` (TorchAir's `config.debug.graph_dump.path`): a directory
    that receives each whole graph's imported GE IR as `ge_graph_<n>.mlir`
    (n as in the report lines), the text `ge-opt` reads.
    `prepack_weights`: whether oneDNN linears of more than a few rows (a
    prefill's) read a prepacked copy of their weights, up to 2-3x faster
    than reading them where they are (runtime/host/onednn.py
    PLAIN_WEIGHT_ROWS), at the price of that copy of the model's weights. Off
    by default: the graphs then hold no copy of the parameters, so a
    compiled model needs little more memory than in eager.
    """

    mode: str = "max-autotune"
    graph_dump_path: str | None = None
    prepack_weights: bool = False

    def check(self) -> None:
        """A bad mode or flag is refused when the backend is made, not per graph."""
        if self.mode not in MODES:
            raise BackendError(f"CompilerConfig.mode is {self.mode!r}; allowed: "
                               f"{', '.join(MODES)}")
        try:  # parsing the pipeline checks every pass option (precision mode, ...)
            spec = build_pipeline(**self.optimize_flags()).spec()
            PassPipeline.parse_spec(get_all_passes(), spec)
        except ValueError as e:
            raise BackendError(f"CompilerConfig: {e}") from None

    def optimize_flags(self) -> dict:
        """The keywords of `GEGraph.optimize` (passes/pipelines.py builds the pipeline)."""
        return {f.name: getattr(self, f.name) for f in fields(Flags)}


@dataclass
class GraphReport:
    """What happened to one graph Dynamo handed over."""

    index: int
    nodes: int
    status: str  # "compiled", "split" (compiled pieces + eager ops) or "eager"
    pieces: int = 0
    breaks: list[UnsupportedOp] = field(default_factory=list)
    reason: str = ""
    updates: int = 0  # in-place updates of its inputs (ge.scatter_update, ge.assign)
    replayed: bool = False  # run by captured replay ("reduce-overhead")
    calls: int = 0  # calls that ran compiled code (whole or pieces)

    def line(self) -> str:
        head = f"ge graph {self.index}: {self.nodes} ops, "
        if self.status == "compiled":
            extra = [f"{self.updates} in-place update(s) of its inputs"] if self.updates else []
            extra += ["captured replay"] if self.replayed else []
            return head + "compiled whole" + "".join(f", {e}" for e in extra)
        if self.status == "split":
            ops = ", ".join(sorted({b.op for b in self.breaks}))
            return (head + f"split: {self.pieces} compiled piece(s), eager for {ops}")
        return head + f"eager ({self.reason})"


class GEBackend:
    """A Dynamo backend: `(GraphModule, example_inputs) -> callable`."""

    def __init__(self, config: CompilerConfig | None = None):
        self.config = config or CompilerConfig()
        self.config.check()
        self.reports: collections.deque[GraphReport] = collections.deque(maxlen=MAX_REPORTS)
        self.graphs = 0
        # Every graph's weights as the model's parameters, or one copy shared by
        # the graphs (a prefill and a decode graph read the same weights).
        self.weights = WeightPool()

    def __call__(self, gm: GraphModule, example_inputs) -> callable:
        report = GraphReport(self.graphs, _count_ops(gm), "eager")
        self.graphs += 1
        self.reports.append(report)
        # Outside Dynamo's tracing context: torch.export would otherwise trace with
        # Dynamo's shape environment and add its own guards to the caller's frame.
        with torch._guards.tracing(None):
            fn = self._compile(gm, list(example_inputs), report)
        _release_heap(example_inputs)
        log.info(report.line())
        if not isinstance(fn, _Compiled):
            return fn

        def compile_again(args):
            with torch._guards.tracing(None):
                again = self._compile(gm, list(args), report)
            _release_heap(args)
            log.info(f"ge graph {report.index}: compiled again for another module's weights")
            return again
        return _PerWeights(fn, compile_again, gm.forward)

    def _compile(self, gm: GraphModule, example_inputs: list, report: GraphReport):
        # The importer loads on the first graph: `import npu_graph` stays light
        # (a process that only loads .npu files never imports it).
        from lowering.torch_to_ge import (GEImportError, UnsupportedOpError, export,
                                          import_exported)

        eager = gm.forward
        aliased = _outputs_aliasing_inputs(gm)
        integers = _integer_outputs(gm)
        # Dynamo reads the graph it handed over after this call: change a copy.
        gm = GraphModule(gm, gm.graph.__deepcopy__())
        user, carried, weights = _freeze_weights(gm, example_inputs)
        if any(_hint(example_inputs[i]) < 0 for i in carried):
            report.reason = "a negative integer input, which no dim can carry"
            return eager
        # New tensor objects on the same data: export marks what it is given, and
        # Dynamo guards on the caller's tensors.
        inputs = [_as_dim(_hint(example_inputs[i])) if i in carried else _alias(example_inputs[i])
                  for i in user]
        if not all(isinstance(x, torch.Tensor) for x in inputs):
            report.reason = "a graph input is not a tensor"
            return eager
        dynamic = _dynamic_shapes(gm)
        if dynamic is not None and self.config.mode == "reduce-overhead":
            raise BackendError(
                "CompilerConfig(mode='reduce-overhead') compiles static shapes only, and "
                "Dynamo handed over a graph with symbolic sizes; pass dynamic=False to "
                "torch.compile (one graph per shape) or use mode='max-autotune'")
        try:
            ep = export(gm, tuple(inputs), dynamic_shapes=dynamic)
        except GEImportError as e:
            report.reason = str(e)
            return eager
        for tensor in weights.values():
            self.weights.add(tensor)
        try:
            module = import_exported(ep, what="the Dynamo graph")
            report.updates = _count_updates(module)
            self._dump(module, report.index)
            compiled = self._optimize(module, marked([example_inputs[i] for i in user]))
            call = compiled.executable.run
            if self.config.mode == "reduce-overhead":
                call, report.replayed = _Replayed(compiled.executable), True
            report.status, report.pieces = "compiled", 1
        except UnsupportedOpError as e:
            call = self._split(ep, e.ops, dynamic is not None, report)
            if call is None:
                return eager
        except GEImportError as e:
            report.reason = str(e).splitlines()[0]
            return eager
        frozen = _FrozenWeights(weights)

        def run(*args):
            if any(args[i] < 0 for i in carried):
                return eager(*args)  # no dim carries a negative integer
            out = call(*[_as_dim(args[i]) if i in carried else args[i] for i in user])
            report.calls += 1
            out = list(out) if isinstance(out, (list, tuple)) else [out]
            for i, j in aliased.items():  # the caller's tensor itself, updated in place
                out[i] = args[j]
            for i in integers:  # a size the graph returns (a cache's length) is an int
                out[i] = int(out[i])
            return tuple(out)
        return _Compiled(run, frozen)

    def _optimize(self, module, dim_gears: dict | None = None) -> OptimizedGraph:
        graph = GEGraph(module)
        graph.dim_gears = dim_gears or {}  # npu_graph.inference.set_dim_gears's marks
        try:
            optimized = graph.optimize(**self.config.optimize_flags())
        except ValueError as e:  # a bad flag, or CompileError: a pass refused the graph
            raise BackendError(f"the GE pipeline refused the graph: {e}") from None
        self.weights.share(optimized.module)
        optimized.options = replace(optimized.options, prepack=self.config.prepack_weights)
        return optimized

    def _split(self, ep, broken: list[UnsupportedOp], symbolic: bool,
               report: GraphReport) -> GraphModule | None:
        """`ep` with its supported pieces compiled and the unsupported ops left to
        eager; None when it must run in eager whole (`report` says why)."""
        report.breaks = list(broken)
        if symbolic:
            report.reason = ("a graph break in a graph with symbolic sizes (sizes "
                             "would cross the pieces): " + _names(broken))
            return None
        try:
            with warnings.catch_warnings():  # torch 2.13 warns about its own pytree internals
                warnings.filterwarnings("ignore", r".*LeafSpec", FutureWarning)
                aten = ep.run_decompositions(_core_aten_table())
        except Exception as e:  # torch raises many types; this graph then runs in eager
            report.reason = f"decomposing for a split failed: {type(e).__name__}: {e}"
            return None
        names = {b.op for b in broken}
        for _ in range(MAX_SPLIT_ROUNDS):
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", r".*LeafSpec", FutureWarning)
                split = _partition(aten.module(), names)
            pieces, more = self._compile_pieces(split, ep)
            if not more and not pieces:
                report.reason = "no piece of it compiles: " + _names(report.breaks)
                return None
            if not more:
                report.status, report.pieces = "split", pieces
                return split
            report.breaks += more
            names |= {b.op for b in more}
        report.reason = "splitting did not converge: " + _names(report.breaks)
        return None

    def _dump(self, module, index: int) -> None:
        if self.config.graph_dump_path is None:
            return
        os.makedirs(self.config.graph_dump_path, exist_ok=True)
        with open(os.path.join(self.config.graph_dump_path, f"ge_graph_{index}.mlir"), "w") as f:
            Printer(stream=f).print_op(module)
            f.write("\n")

    def _compile_pieces(self, split: GraphModule, ep) -> tuple[int, list[UnsupportedOp]]:
        """Replace each fused piece of `split` by its compiled graph; returns the
        count compiled and the unsupported ops found inside pieces."""
        from lowering.torch_to_ge import (GEImportError, UnsupportedOpError, export,
                                          import_exported)

        example = _piece_inputs(split, ep)
        count, more = 0, []
        for node in [n for n in split.graph.nodes if n.op == "call_module"]:
            if not node.target.startswith(FUSED_PREFIX) or node.target not in example:
                continue
            # A copy: a piece that does not compile stays as it was, and runs in eager.
            original = getattr(split, node.target)
            piece = GraphModule(original, original.graph.__deepcopy__())
            args = example[node.target]
            if not all(isinstance(a, torch.Tensor) for a in args):
                continue  # a size or scalar crosses into it: keep it eager, never specialized
            # Weights the piece reads from the split module are its weights too.
            holders = [n for n in piece.graph.nodes if n.op == "placeholder"]
            frozen = {i for i, a in enumerate(node.args)
                      if isinstance(a, Node) and a.op == "get_attr"}
            _freeze_placeholders(piece, {holders[i]: args[i] for i in frozen})
            user = [i for i in range(len(args)) if i not in frozen]
            try:
                module = import_exported(export(piece, tuple(args[i] for i in user)),
                                         what="a piece of the Dynamo graph")
            except UnsupportedOpError as e:
                more += e.ops
                continue
            except GEImportError:
                continue
            setattr(split, node.target, _CompiledPiece(self._optimize(module), user))
            count += 1
        return count, more


@dataclass
class _Compiled:
    """A compiled graph's call, and the weights it holds as constants."""

    run: callable
    frozen: _FrozenWeights


class _PerWeights:
    """One compiled graph per set of weight tensors. Dynamo reuses a graph for
    modules that run the same code (with inline_inbuilt_nn_modules, a frame
    resumed after a graph break inside a decoder layer serves every layer) and
    passes each module's parameters as inputs; a compiled graph holds its
    weights as constants, so each set gets a compile of its own, up to
    MAX_WEIGHT_SETS; calls with further sets run in eager."""

    def __init__(self, first: _Compiled, compile_again, eager):
        self.compiled = [first]
        self.compile_again, self.eager = compile_again, eager

    def __call__(self, *args):
        for c in self.compiled:
            if c.frozen.same_tensors(args):
                c.frozen.check_versions()
                return c.run(*args)
        if len(self.compiled) >= MAX_WEIGHT_SETS:
            return self.eager(*args)
        again = self.compile_again(args)
        if not isinstance(again, _Compiled):
            return again(*args)
        self.compiled.append(again)
        return again.run(*args)


class _FrozenWeights:
    """The weights a graph was compiled with, checked on every call: not
    modified in place since (their version counter), so a changed weight is an
    error rather than a stale answer."""

    def __init__(self, weights: dict[int, torch.Tensor]):
        self.indices = list(weights)
        self.tensors = list(weights.values())
        # an inference tensor has no version counter (and cannot change)
        self.versioned = [t for t in self.tensors if _version(t) is not None]
        self.versions = [t._version for t in self.versioned]

    def same_tensors(self, args) -> bool:
        return all(map(operator.is_, [args[i] for i in self.indices], self.tensors))

    def check_versions(self) -> None:
        """Called at every call (a decode step's): one list pass, no frame per weight."""
        if [t._version for t in self.versioned] != self.versions:
            raise BackendError(
                "a parameter or buffer changed after torch.compile(backend='ge') "
                "compiled it (weights are read once, as constants); call "
                "torch._dynamo.reset() and compile again")


def _version(t: torch.Tensor) -> int | None:
    try:
        return t._version
    except RuntimeError:  # an inference tensor has no version counter (and cannot change)
        return None


class _Replayed:
    """"reduce-overhead": the graph's captured replay (runtime/replay.py). A new
    tensor for an input the graph updates in place (a new static cache, as a
    new generate() makes) is a new capture. Outputs are cloned: code after a
    compiled function may keep them past the next replay, which overwrites
    the captured ones."""

    def __init__(self, executable):
        from runtime.replay import Replay, ReplayError  # loaded with the first graph

        self.replay, self.refused = Replay(executable), ReplayError

    def __call__(self, *inputs):
        try:
            outputs = self.replay.run(*inputs)  # checks its inputs before it writes
        except self.refused:
            if self.replay.bound_to(inputs):
                raise  # a shape or type the capture does not take
            log.info("ge: captured replay bound to new tensors for the inputs it updates")
            self.replay.rebind(inputs)
            outputs = self.replay.run(*inputs)
        return [out.clone() for out in outputs]


def _release_heap(inputs) -> None:
    """After a compile that copied large weights into IR constants (the
    inputs Dynamo passes include the parameters), collect and trim the heap
    (runtime/host/heap.py); a small graph is not worth the collector's
    pass (a few tenths of a second)."""
    if sum(x.numel() * x.element_size() for x in inputs
           if isinstance(x, torch.Tensor)) >= heap.WORTH_RELEASING:
        heap.release()


def _count_updates(module) -> int:
    return sum(ge.in_place_operand(op) is not None for op in module.walk())


class _CompiledPiece(torch.nn.Module):
    """One compiled piece of a split graph, called with the piece's inputs."""

    def __init__(self, graph: OptimizedGraph, user: list[int]):
        super().__init__()
        self.graph = graph
        self.user = user

    def forward(self, *args):
        return self.graph(*[args[i] for i in self.user])


class _Supported(OperatorSupportBase):
    """ATen calls whose op is not in `broken`; getitem follows its producer."""

    def __init__(self, broken: set[str]):
        self.broken = broken

    def is_node_supported(self, submodules, node: Node) -> bool:
        if node.target is operator.getitem:
            return self.is_node_supported(submodules, node.args[0])
        return (node.op == "call_function" and isinstance(node.target, torch._ops.OpOverload)
                and str(node.target) not in self.broken)


def _partition(aten: GraphModule, broken: set[str]) -> GraphModule:
    """`aten` with each maximal supported region fused into a `ge_piece_N` module."""
    partitioner = CapabilityBasedPartitioner(aten, _Supported(broken),
                                             allows_single_node_partition=True)
    return partitioner.fuse_partitions(partitioner.propose_partitions(), prefix=FUSED_PREFIX)


def _piece_inputs(split: GraphModule, ep) -> dict[str, list]:
    """The real inputs of each piece's call, from one eager run on `ep`'s example inputs."""
    seen: dict[str, list] = {}

    class Recorder(torch.fx.Interpreter):
        def call_module(self, target, args, kwargs):
            seen.setdefault(target, list(args))
            return super().call_module(target, args, kwargs)

    args, kwargs = ep.example_inputs
    flat = torch.utils._pytree.tree_leaves((args, kwargs))
    with torch.no_grad():
        Recorder(split).run(*flat)
    return seen


def _core_aten_table():
    from lowering.torch_to_ge import KEEP_WHOLE

    table = torch.export.default_decompositions()
    for op in KEEP_WHOLE:
        table.pop(op, None)
    return table


def _freeze_weights(gm: GraphModule, example_inputs: list
                    ) -> tuple[list[int], set[int], dict[int, torch.Tensor]]:
    """Dynamo's parameter and buffer inputs become attributes of `gm` (no copy);
    size inputs are read from a tensor's dims instead (`_sizes_from_dims`).
    Returns the indices of the inputs the compiled graph is called with, those
    of them that are integers carried as a dim, and the weights by index."""
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    weights, user = {}, []
    for i, node in enumerate(placeholders):
        grapharg = node.meta.get("grapharg")
        source = grapharg.source.name if grapharg is not None else ""
        source = source() if callable(source) else source
        if ("._parameters[" in source or "._buffers[" in source) and isinstance(
                example_inputs[i], torch.Tensor):
            weights[node] = example_inputs[i]
        else:
            user.append(i)
    sizes = {i for i, n in enumerate(placeholders)
             if isinstance(n.meta.get("example_value"), torch.SymInt)}
    _freeze_placeholders(gm, weights)
    carried = _sizes_from_dims(gm, [n for n in placeholders if n not in weights])
    carried = {placeholders.index(n) for n in carried}
    user = [i for i in user if i in carried or i not in sizes]
    return user, carried, {placeholders.index(n): t for n, t in weights.items()}


def _freeze_placeholders(gm: GraphModule, tensors: dict[Node, torch.Tensor]) -> None:
    """Each placeholder in `tensors` becomes a get_attr of its tensor (no copy)."""
    first = next(n for n in gm.graph.nodes if n.op != "placeholder")
    for i, (node, tensor) in enumerate(tensors.items()):
        name = f"_ge_weight_{i}"
        gm.register_buffer(name, tensor.detach(), persistent=False)
        with gm.graph.inserting_before(first):
            attr = gm.graph.get_attr(name)
        attr.meta.update(node.meta)
        node.replace_all_uses_with(attr)
        gm.graph.erase_node(node)
    gm.recompile()


def _sizes_from_dims(gm: GraphModule, placeholders: list[Node]) -> list[Node]:
    """A symbolic size input (Dynamo's `s0`) becomes `aten.sym_size` of a tensor
    input with that dim, and its placeholder goes, so graphs take tensors only.
    A symbolic integer that is no input's dim (a cache's length) is carried as
    the dim of an empty tensor, `torch.empty(n, 0)`: the importer reads it as
    any other input dim. Returns the placeholders carried so."""
    dims = {}
    for node in placeholders:
        val = node.meta.get("example_value")
        if isinstance(val, torch.Tensor):
            for d, size in enumerate(val.shape):
                if isinstance(size, torch.SymInt):
                    dims.setdefault(str(size.node.expr), (node, d))
    carried = []
    for node in placeholders:
        if not isinstance(node.meta.get("example_value"), torch.SymInt):
            continue
        if node.users:
            where = dims.get(str(node.meta["example_value"].node.expr))
            if where is None:
                with gm.graph.inserting_before(node):
                    carrier = gm.graph.placeholder(f"{node.name}_as_dim")
                carrier.meta[CARRIER] = True
                carried.append(node)
                where = (carrier, 0)
            with gm.graph.inserting_after(where[0]):
                size = gm.graph.call_function(torch.ops.aten.sym_size.int, where)
            node.replace_all_uses_with(size)
        gm.graph.erase_node(node)
    gm.recompile()
    return carried


def _outputs_aliasing_inputs(gm: GraphModule) -> dict[int, int]:
    """Outputs that are an input itself, maybe updated in place (`x += 1`;
    `x.to(x.device).add_(1)`): output index -> input index. The compiled graph
    returns a new tensor there; the caller must get its own tensor back, as in
    eager, since Dynamo's code after the graph stores it (a cache's counter)."""
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    output = next(n for n in gm.graph.nodes if n.op == "output")
    found = {}
    for i, node in enumerate(output.args[0]):
        val = node.meta.get("example_value") if isinstance(node, Node) else None
        if not isinstance(val, torch.Tensor):
            continue
        for j, p in enumerate(placeholders):
            x = p.meta.get("example_value")
            if (isinstance(x, torch.Tensor) and torch._C._is_alias_of(val, x)
                    and _layout(val) == _layout(x)):
                found[i] = j
    return found


def _integer_outputs(gm: GraphModule) -> list[int]:
    """Outputs Dynamo traced as integers (SymInt), which the GE graph returns
    as 0-d i64 tensors; the caller gets ints, as in eager."""
    output = next(n for n in gm.graph.nodes if n.op == "output")
    return [i for i, node in enumerate(output.args[0]) if isinstance(node, Node) and
            isinstance(node.meta.get("example_value"), (int, torch.SymInt))]


def _layout(t: torch.Tensor) -> str:
    return str((tuple(t.shape), t.stride(), t.storage_offset(), t.dtype))


def _as_dim(n: int) -> torch.Tensor:
    """An integer input as the dim of an empty tensor (see `_sizes_from_dims`)."""
    return torch.empty(n, 0)


def _hint(size) -> int:
    """The value Dynamo traced a SymInt input with (int() would add a guard)."""
    return size.node.hint if isinstance(size, torch.SymInt) else int(size)


def _dynamic_shapes(gm: GraphModule):
    """torch.export's `dynamic_shapes` for `gm`'s tensor inputs: Dim.DYNAMIC where
    Dynamo traced a symbolic size; None when every size is static."""
    specs, any_dynamic = [], False
    for node in gm.graph.nodes:
        if node.op != "placeholder":
            continue
        val = node.meta.get("example_value")
        spec = {d: torch.export.Dim.DYNAMIC for d, size in enumerate(getattr(val, "shape", ()))
                if _symbolic(size)}
        if node.meta.get(CARRIER):
            spec = {0: torch.export.Dim.DYNAMIC}
        any_dynamic |= bool(spec)
        specs.append(spec or None)
    return tuple(specs) if any_dynamic else None


def _symbolic(size) -> bool:
    """A size Dynamo kept symbolic (not one its guards pinned to a constant)."""
    if not isinstance(size, torch.SymInt):
        return False
    return not size.node.shape_env.replace(size.node.expr).is_number


def _alias(x):
    return x.detach() if isinstance(x, torch.Tensor) else x


def _count_ops(gm: GraphModule) -> int:
    return sum(n.op in ("call_function", "call_method", "call_module") for n in gm.graph.nodes)


def _names(ops: list[UnsupportedOp]) -> str:
    return "; ".join(f"{op.op} ({op.reason})" for op in ops)


def get_npu_backend(*, compiler_config: CompilerConfig | None = None) -> GEBackend:
    """`torch.compile(model, backend=get_npu_backend(compiler_config=config))`, as
    TorchAir."""
    return GEBackend(compiler_config)


_DEFAULT: GEBackend | None = None


def ge_backend(gm: GraphModule, example_inputs):
    """The backend registered with Dynamo as "ge": the default CompilerConfig."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = GEBackend()
    return _DEFAULT(gm, example_inputs)


def register_backend() -> None:
    """Make `torch.compile(..., backend="ge")` find this backend (once per process).

    The installed package also declares it as a `torch_dynamo_backends` entry
    point, which Dynamo loads and registers itself; then this does nothing."""
    from torch._dynamo.backends import registry

    pending_entry_point = registry._BACKENDS.get("ge") is not None
    if "ge" not in registry._COMPILER_FNS and not pending_entry_point:
        registry.register_backend(ge_backend, name="ge")


@dataclass
class ExplainOutput:
    """What `explain` found: each graph's report, and Dynamo's own breaks."""

    graphs: list[GraphReport]
    dynamo_breaks: list[str]

    @property
    def graph_count(self) -> int:
        return len(self.graphs)

    @property
    def graph_break_count(self) -> int:
        """Dynamo's breaks plus the splits around ops GE lacks."""
        return len(self.dynamo_breaks) + sum(len({b.op for b in g.breaks}) for g in self.graphs)

    @property
    def break_reasons(self) -> list[str]:
        reasons = [f"dynamo: {r}" for r in self.dynamo_breaks]
        for g in self.graphs:
            reasons += [f"ge graph {g.index}: {b}" for b in g.breaks]
            if g.status == "eager":
                reasons.append(f"ge graph {g.index}: runs in eager: {g.reason}")
        return reasons

    def __str__(self) -> str:
        lines = [f"{self.graph_count} graph(s), {self.graph_break_count} break(s)"]
        lines += [g.line() for g in self.graphs]
        lines += [f"  - {r}" for r in self.break_reasons]
        return "\n".join(lines)


def explain(model, *inputs, compiler_config: CompilerConfig | None = None,
            **kwargs) -> ExplainOutput:
    """Compile and run `model(*inputs)` once through the backend, and say what
    broke and why: Dynamo's breaks (torch._dynamo.explain's) and the ops GE
    lacks, each with its node and source line. Like torch._dynamo.explain."""
    import torch._dynamo

    backend = GEBackend(compiler_config)
    dynamo = torch._dynamo.explain(model)(*inputs, **kwargs)
    torch._dynamo.reset()  # explain's graphs are cached; compile afresh for ours
    torch.compile(model, backend=backend)(*inputs, **kwargs)
    torch._dynamo.reset()
    return ExplainOutput(list(backend.reports), [r.reason for r in dynamo.break_reasons])
