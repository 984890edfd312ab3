"""The registries that ge-opt, lit and the Python API rely on stay complete."""

import inspect
from pathlib import Path

import pytest
from xdsl.irdl import IRDLOperation

from ge_dialect import ascend, ge
from passes import get_all_passes

FILECHECK = Path(__file__).parents[1] / "filecheck"


@pytest.mark.parametrize("name", sorted(get_all_passes()))
def test_pass_name_matches_registry_key(name):
    assert get_all_passes()[name]().name == name


@pytest.mark.parametrize("name", sorted(get_all_passes()))
def test_every_pass_has_a_filecheck_file(name):
    path = FILECHECK / "passes" / f"{name}.mlir"
    assert path.is_file(), f"missing {path}"
    assert "// RUN:" in path.read_text()


def _defined_ops(module):
    """Op classes the module defines with @irdl_op_definition (not shared bases)."""
    return {cls for _, cls in inspect.getmembers(module, inspect.isclass)
            if issubclass(cls, IRDLOperation) and cls.__module__ == module.__name__
            and "get_irdl_definition" in vars(cls)}


@pytest.mark.parametrize("module, dialect", [(ge, ge.GE), (ascend, ascend.Ascend)])
def test_every_op_class_is_listed_in_its_dialect(module, dialect):
    defined = _defined_ops(module)
    assert defined, "found no op classes: the detection is broken"
    assert defined == set(dialect.operations)


@pytest.mark.parametrize("module", [ge, ascend])
def test_every_op_has_a_docstring_with_an_ir_example(module):
    for cls in _defined_ops(module):
        doc = inspect.getdoc(cls) or ""
        assert cls.name in doc, f"{cls.__name__} docstring lacks an IR example using {cls.name}"


@pytest.mark.parametrize("module", [ge, ascend])
def test_every_op_has_a_roundtrip_test(module):
    tested = "\n".join(p.read_text() for p in (FILECHECK / "dialect").rglob("*.mlir"))
    missing = [cls.name for cls in _defined_ops(module) if cls.name not in tested]
    assert not missing, f"no round-trip test mentions {missing}"


def test_help_lists_every_registered_pass():
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "tools.ge_opt", "--help"],
                         capture_output=True, text=True, check=True).stdout
    table = out[out.index("GE passes:"):].splitlines()[1:]
    listed = {line.split()[0] for line in table if line.strip()}
    assert listed == set(get_all_passes())
