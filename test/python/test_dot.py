"""Pictures: the DOT of a fused ResNet block has one cluster per fused group."""

import re

import pytest

from ge_dialect.dot import build_graph, to_dot, to_mermaid
from npu_graph.compiler import import_model, lower, optimize
from test.models import resnet_block
from tools.ge_viz import main as ge_viz


@pytest.fixture(scope="module")
def fused_block():
    model, inputs = resnet_block.make()
    return optimize(import_model(model, inputs))


def clusters(dot: str) -> dict[str, list[str]]:
    """Cluster label -> the labels of the nodes directly inside it."""
    found, stack = {}, []
    for line in dot.splitlines():
        if m := re.match(r"\s*subgraph (cluster_\w+) \{", line):
            stack.append(m[1])
        elif m := re.match(r'\s*label="(.*)"; style=', line):
            found[m[1]] = []
            stack[-1] = m[1]
        elif re.match(r"\s*\}$", line) and stack:
            stack.pop()
        elif (m := re.match(r'\s*n\d+ \[label="([^"]*)"', line)) and stack:
            found[stack[-1]].append(m[1])
    return found


def test_fused_resnet_block(fused_block):
    dot = to_dot(fused_block)
    groups = clusters(dot)
    ops = lambda labels: [label.split("\\n")[0] for label in labels]  # noqa: E731
    assert ops(groups['fused: conv2d_relu']) == ["ge.conv2d", "ge.relu"]
    assert ops(groups['fused: conv2d_add_relu']) == ["ge.conv2d", "ge.add", "ge.relu"]
    # The function holds the input, the unfused downsample conv and the return.
    assert ops(groups["@main"]) == ["%x", "ge.conv2d", "return"]
    assert groups['fused: conv2d_relu'][0] == "ge.conv2d\\n2x16x8x8xf32"
    graph = build_graph(fused_block)
    assert len(graph.nodes) == 8 and len(graph.edges) == 8
    # The residual join: both convs feed the add inside the second group.
    names = {n.id: n.label.split("\n")[0] for n in graph.nodes}
    into_add = sorted(names[e.src] for e in graph.edges if names[e.dst] == "ge.add")
    assert into_add == ["ge.conv2d", "ge.conv2d"]
    assert dot.count(" -> ") == 8


def test_weights_are_drawn_on_request(fused_block):
    graph = build_graph(fused_block, weights=True)
    consts = [n for n in graph.nodes if n.label.startswith("ge.const")]
    assert len(consts) == 6 and all(n.shape == "note" for n in consts)


def test_lowered_block_tasks_are_coloured_by_unit(fused_block):
    graph = build_graph(lower(fused_block.clone()))
    tasks = [n for n in graph.nodes if n.shape == "box"]
    assert [n.color for n in tasks] == ["#f4a261"] * 3  # conv groups run on the cube unit
    assert [c.label for c in graph.clusters] == ["@main", "stream 0"]


def test_mermaid_has_the_same_groups(fused_block):
    text = to_mermaid(fused_block)
    assert text.startswith("flowchart TB\n")
    assert text.count("subgraph ") == 3 and text.count("  end") == 3
    assert text.count(" --> ") == 8


def test_ge_viz_writes_dot(tmp_path, capsys):
    out = tmp_path / "block.dot"
    assert ge_viz(["--model", "resnet_block", "-p", "ge-O3", "-o", str(out)]) == 0
    assert 'label="fused: conv2d_add_relu"' in out.read_text()
    assert ge_viz(["/no/such.mlir"]) == 1
    assert capsys.readouterr().err.startswith("ge-viz: error: ")
