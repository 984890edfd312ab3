"""Pictures of GE and Ascend IR: Graphviz DOT (and Mermaid, which GitHub renders).

    text = to_dot(module)            # ge-opt --emit-dot=FILE, ge-viz
    text = to_mermaid(module)        # ge-viz --format mermaid

One node per op, labelled with its name and result shape; an edge per SSA use.
A `ge.fused` op is drawn as a cluster of its member ops, so a picture shows
what fusion grouped. In Ascend IR each `ascend.task` is one node coloured by
its compute unit and placed in a cluster per stream; data edges go from the
task that last wrote a buffer to the tasks that read it, and events are dashed
edges from the last task before `record_event` on one stream to the first task
after the matching `wait_event` on another. Weights (`ge.const`,
`ascend.weight`) are left out unless asked for: they double the node count.

Both emitters read one plain `Graph`, built once by `build_graph`.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation, SSAValue

from ge_dialect import ascend, ge

UNIT_COLORS = {"cube": "#f4a261", "vector": "#8ecae6", "aicpu": "#cccccc"}
WEIGHTS = (ge.ConstOp, ascend.WeightOp)


@dataclass
class Node:
    id: str
    label: str
    cluster: str | None
    shape: str = "box"
    color: str = "white"


@dataclass
class Edge:
    src: str
    dst: str
    label: str = ""
    dashed: bool = False


@dataclass
class Cluster:
    id: str
    label: str
    parent: str | None
    dashed: bool = False


@dataclass
class Graph:
    nodes: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    clusters: list[Cluster] = field(default_factory=list)

    def add_node(self, label: str, cluster: str | None, **style) -> str:
        node = Node(f"n{len(self.nodes)}", label, cluster, **style)
        self.nodes.append(node)
        return node.id

    def add_cluster(self, prefix: str, label: str, parent: str | None, dashed=False) -> str:
        cluster = Cluster(f"cluster_{prefix}_{len(self.clusters)}", label, parent, dashed)
        self.clusters.append(cluster)
        return cluster.id


def shape_of(t: Attribute) -> str:
    """`2x16x8x8xf32` for tensor and memref types."""
    text = str(t)
    return text[text.index("<") + 1:-1] if "<" in text else text


def _label(op: Operation) -> str:
    shapes = ", ".join(shape_of(r.type) for r in op.results)
    return f"{op.name}\n{shapes}" if shapes else op.name


class _FuncBuilder:
    """Adds one function to a Graph; `producer` maps each value to the node that makes it."""

    def __init__(self, graph: Graph, fn: func.FuncOp, weights: bool):
        self.graph, self.weights = graph, weights
        self.cluster = graph.add_cluster("func", f"@{fn.sym_name.data}", None)
        self.producer: dict[SSAValue, str] = {}
        self.stream_clusters: dict[int, str] = {}
        self.last_task: dict[int, str] = {}        # stream -> last task seen on it
        self.recorded: dict[int, str] = {}         # event -> task before its record
        self.waiting: dict[int, list[int]] = {}    # stream -> events its next task waits for
        for arg in fn.body.block.args:
            hint = f"%{arg.name_hint}\n" if arg.name_hint else ""
            self.producer[arg] = graph.add_node(f"{hint}{shape_of(arg.type)}", self.cluster,
                                                shape="ellipse")
        for op in fn.body.block.ops:
            self.add(op, self.cluster)

    def uses(self, values, dst: str) -> None:
        for v in values:
            if v in self.producer:
                self.graph.edges.append(Edge(self.producer[v], dst))

    def add(self, op: Operation, cluster: str) -> None:
        if isinstance(op, WEIGHTS) and not self.weights:
            return
        handler = {ge.FusedOp: self.add_fused, ascend.TaskOp: self.add_task,
                   ascend.BufferOp: lambda op, cluster: None,
                   ascend.RecordEventOp: self.add_record, ascend.WaitEventOp: self.add_wait,
                   }.get(type(op), self.add_op)
        handler(op, cluster)

    def add_op(self, op: Operation, cluster: str) -> None:
        is_return = isinstance(op, func.ReturnOp | ge.YieldOp)
        node = self.graph.add_node(
            "return" if is_return else _label(op), cluster,
            shape="oval" if is_return else "note" if isinstance(op, WEIGHTS) else "box",
            color="#eeeeee" if isinstance(op, WEIGHTS) else "white")
        self.uses(op.operands, node)
        for r in op.results:
            self.producer[r] = node

    def add_fused(self, op: ge.FusedOp, cluster: str) -> None:
        inner = self.graph.add_cluster("fused", f"fused: {op.kind.data}", cluster, dashed=True)
        block = op.body.block
        for arg, outer in zip(block.args, op.inputs):
            if outer in self.producer:
                self.producer[arg] = self.producer[outer]
        for member in op.members:
            self.add(member, inner)
        for result, value in zip(op.outputs, block.last_op.operands):
            if value in self.producer:
                self.producer[result] = self.producer[value]

    def add_task(self, op: ascend.TaskOp, cluster: str) -> None:
        stream = op.stream.value.data
        if stream not in self.stream_clusters:
            self.stream_clusters[stream] = self.graph.add_cluster(
                "stream", f"stream {stream}", cluster)
        members = [m.name.removeprefix("ge.") for m in op.body.block.ops
                   if not isinstance(m, ge.YieldOp)]
        label = (f"{op.task_name.data}\n{op.unit.data}: {' + '.join(members)}\n"
                 + ", ".join(shape_of(v.type) for v in op.outs))
        node = self.graph.add_node(label, self.stream_clusters[stream],
                                   color=UNIT_COLORS.get(op.unit.data, "white"))
        self.uses(op.ins, node)
        for v in op.outs:
            self.producer[v] = node  # the last writer of a buffer feeds its later readers
        for event in self.waiting.pop(stream, []):
            if event in self.recorded:
                self.graph.edges.append(Edge(self.recorded[event], node, f"event {event}", True))
        self.last_task[stream] = node

    def add_record(self, op: ascend.RecordEventOp, cluster: str) -> None:
        task = self.last_task.get(op.stream.value.data)
        if task is not None:
            self.recorded[op.event.value.data] = task

    def add_wait(self, op: ascend.WaitEventOp, cluster: str) -> None:
        self.waiting.setdefault(op.stream.value.data, []).append(op.event.value.data)


def build_graph(module: ModuleOp, weights: bool = False) -> Graph:
    graph = Graph()
    for op in module.ops:
        if isinstance(op, func.FuncOp) and op.body.blocks:
            _FuncBuilder(graph, op, weights)
    return graph


# ---- emitters

def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(module: ModuleOp, weights: bool = False) -> str:
    graph = build_graph(module, weights)
    lines = ['digraph "ge" {', "  rankdir=TB;",
             '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10];',
             '  edge [fontname="Helvetica", fontsize=9];']

    def emit(cluster: str | None, indent: str) -> None:
        for c in graph.clusters:
            if c.parent == cluster:
                style = "rounded,dashed" if c.dashed else "rounded"
                lines.append(f"{indent}subgraph {c.id} {{")
                lines.append(f"{indent}  label={_quote(c.label)}; style={_quote(style)};")
                emit(c.id, indent + "  ")
                lines.append(f"{indent}}}")
        for n in graph.nodes:
            if n.cluster == cluster:
                lines.append(f"{indent}{n.id} [label={_quote(n.label)}, shape={n.shape}, "
                             f"fillcolor={_quote(n.color)}];")

    emit(None, "  ")
    for e in graph.edges:
        attrs = [f"label={_quote(e.label)}"] if e.label else []
        if e.dashed:
            attrs.append("style=dashed")
        lines.append(f"  {e.src} -> {e.dst}" + (f" [{', '.join(attrs)}]" if attrs else "") + ";")
    lines.append("}")
    return "\n".join(lines) + "\n"


def to_mermaid(module: ModuleOp, weights: bool = False) -> str:
    graph = build_graph(module, weights)
    lines = ["flowchart TB"]

    def text(label: str) -> str:
        return '"' + label.replace('"', "#quot;").replace("\n", "<br/>") + '"'

    def emit(cluster: str | None, indent: str) -> None:
        for c in graph.clusters:
            if c.parent == cluster:
                lines.append(f"{indent}subgraph {c.id}[{text(c.label)}]")
                emit(c.id, indent + "  ")
                lines.append(f"{indent}end")
        for n in graph.nodes:
            if n.cluster == cluster:
                open_, close = ("([", "])") if n.shape in ("ellipse", "oval") else ("[", "]")
                lines.append(f"{indent}{n.id}{open_}{text(n.label)}{close}")
                if n.color != "white":
                    lines.append(f"{indent}style {n.id} fill:{n.color}")

    emit(None, "  ")
    for e in graph.edges:
        arrow = f"-. {text(e.label)} .->" if e.dashed else "-->"
        lines.append(f"  {e.src} {arrow} {e.dst}")
    return "\n".join(lines) + "\n"


def render_svg(dot_path: str | Path) -> Path | None:
    """Run Graphviz on a DOT file when `dot` is installed; the SVG's path, else None."""
    if shutil.which("dot") is None:
        return None
    svg = Path(f"{dot_path}.svg")
    subprocess.run(["dot", "-Tsvg", str(dot_path), "-o", str(svg)], check=True)
    return svg
