"""The import rule of docs/architecture.md holds, and pyproject.toml installs every package.

Imports are read from the source with `ast` (function-local ones included),
so a layer that reaches up shows here even if no test happens to run it.
"""

import ast
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).parents[2]
OURS = ("ge_dialect", "target", "lowering", "passes", "runtime", "npu_graph", "tools", "bench",
        "test")
# Execution knowledge passes and lowering may read: constant folding evaluates
# ops with the kernel table, the importers look up user kernels and fold with it.
KERNEL_TABLE = ("runtime.kernels", "runtime.program", "runtime.custom_ops")


def imports(folder: str) -> list[tuple[str, str]]:
    """(file, imported module) for every import of ours under `folder`."""
    found = []
    for path in sorted((REPO / folder).rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            else:
                continue
            found += [(str(path.relative_to(REPO)), n) for n in names
                      if n.split(".")[0] in OURS]
    return found


def reaching(folder: str, allowed) -> list[tuple[str, str]]:
    return [(f, m) for f, m in imports(folder) if not allowed(m)]


def test_ge_dialect_imports_nothing_of_ours():
    assert reaching("ge_dialect", lambda m: m.startswith("ge_dialect")) == []


def test_target_imports_only_the_dialects():
    assert reaching("target", lambda m: m.split(".")[0] in ("target", "ge_dialect")) == []


@pytest.mark.parametrize("folder", ["passes", "lowering"])
def test_passes_and_lowering_read_the_target_not_the_runtime(folder):
    """What they know about the chip comes from target/; from runtime/ only the kernel table."""
    def allowed(m):
        top = m.split(".")[0]
        return (top in ("ge_dialect", "target", "lowering", "passes")
                or m.startswith(KERNEL_TABLE) or m == "runtime")
    assert reaching(folder, allowed) == []
    # `from runtime import X` names a module: only the kernel table's.
    assert [(f, m) for f, m in imports(folder) if m.startswith("runtime.")
            and not m.startswith(KERNEL_TABLE)] == []


def test_runtime_never_imports_the_compiler_or_the_api():
    assert reaching("runtime", lambda m: m.split(".")[0] in ("runtime", "target", "ge_dialect")) == []


def test_only_tools_models_imports_the_test_tree():
    """Packages reach the model zoo through tools/models.py (benchmark scripts
    and examples, run from a checkout, import it directly)."""
    for folder in ("ge_dialect", "target", "lowering", "passes", "runtime", "npu_graph", "tools"):
        assert [(f, m) for f, m in imports(folder) if m.split(".")[0] == "test"] == []


def test_pyproject_installs_every_package():
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())
                 ["tool"]["setuptools"]["packages"])
    folders = {".".join(p.parent.relative_to(REPO).parts)
               for top in OURS if top != "test"
               for p in (REPO / top).rglob("__init__.py")}
    assert listed == folders
    for top in OURS[:-1]:  # every folder with Python files is a package, none is left out
        for path in (REPO / top).rglob("*.py"):
            assert (path.parent / "__init__.py").is_file(), f"{path.parent} has no __init__.py"
