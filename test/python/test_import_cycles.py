"""No two of the project's modules import each other, directly or round a loop.

Imports are read with `ast`, both those at module level and those inside
functions (a function-local import hides a loop from Python's import order, not
from the design). An edge goes to the module an import names: `from a.b import
c` goes to `a.b.c` when that is a module, else to `a.b`. A package's
`__init__.py` that the import runs on the way is not an edge, since Python
handles a package importing its own submodules.

A loop that is meant is listed in ALLOWED with the reason; any other fails
this test with the loop spelled out.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("ge_dialect", "lowering", "passes", "runtime", "target", "npu_graph", "tools",
            "bench", "examples", "test")

# Deliberate loops: the modules that import each other round it -> why.
ALLOWED: dict[frozenset[str], str] = {
    frozenset({"ge_dialect.canonicalization", "ge_dialect.op_base", "ge_dialect.ge",
               "ge_dialect.elementwise", "ge_dialect.nn", "ge_dialect.indexing",
               "ge_dialect.reductions", "ge_dialect.quant"}):
        "an op hands canonicalize its rules when asked (xDSL's canonicalization trait in "
        "op_base, importing the table on first use); the rule table is written over the op "
        "classes, which ge gathers from its family modules",
    frozenset({"npu_graph.graph", "npu_graph.artifact"}):
        "the .npu format (artifact.py) reads a file into an OptimizedGraph; "
        "OptimizedGraph.save and NpuGraph.load are the article's face of it, on first use",
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_modules() -> dict[str, Path]:
    files = [p for pkg in PACKAGES if (ROOT / pkg).is_dir()
             for p in sorted((ROOT / pkg).rglob("*.py"))]
    return {module_name(p): p for p in files if ".venv" not in p.parts}


def imported(path: Path, name: str, modules: dict[str, Path]) -> set[str]:
    """The project modules that the file at `path` (module `name`) imports."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
    return {m for m in found if m in modules and m != name}


def import_graph() -> dict[str, set[str]]:
    modules = project_modules()
    return {name: imported(path, name, modules) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> dict[frozenset[str], list[str]]:
    """Modules that import each other round a loop (each strongly connected
    component of more than one module, by Tarjan's algorithm) -> one such loop,
    as a path that returns to its start."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(component)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return {frozenset(c): loop_in(graph, c) for c in components}


def loop_in(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """A shortest path from the component's first module back to itself."""
    start = min(component)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph[v] & component):
                if w == start:
                    return [*paths[v], start]
                if w not in paths:
                    paths[w] = [*paths[v], w]
                    nxt.append(w)
        frontier = nxt
    return [start]


def test_the_graph_sees_module_level_and_function_local_imports():
    graph = import_graph()
    assert "passes.planning.memory" in graph["passes.memory_reuse"]  # from passes.planning import memory
    assert "ge_dialect.ascend" in graph["passes.memory_reuse"]        # from ge_dialect import ascend
    assert "lowering.torch_to_ge" in graph["npu_graph.compiler"]      # inside import_model
    assert cycles({"a": {"b"}, "b": {"c", "d"}, "c": {"a"}, "d": set()}) == \
        {frozenset("abc"): ["a", "b", "c", "a"]}


def test_no_import_loops_but_the_listed_ones():
    found = cycles(import_graph())
    unexpected = {c: loop for c, loop in found.items() if c not in ALLOWED}
    assert not unexpected, "import loops (break them, or list one in ALLOWED with why):\n" + \
        "\n".join(f"  {' -> '.join(loop)}  (modules on loops: {', '.join(sorted(c))})"
                  for c, loop in unexpected.items())
    stale = set(ALLOWED) - set(found)
    assert not stale, f"ALLOWED lists loops that are gone: {sorted(map(sorted, stale))}"
