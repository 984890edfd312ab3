"""The registries that ge-opt, lit and the Python API rely on stay complete."""

import inspect
from pathlib import Path

import pytest
from xdsl.irdl import IRDLOperation


from ge_dialect import ascend, ge
from passes import builtin_passes, get_all_passes
from runtime.cost_model import CUBE_WORK

FILECHECK = Path(__file__).parents[1] / "filecheck"
PASSES = Path(__file__).parents[2] / "passes"


@pytest.mark.parametrize("name", sorted(get_all_passes()))
def test_pass_name_matches_registry_key(name):
    assert get_all_passes()[name]().name == name


@pytest.mark.parametrize("name", sorted(get_all_passes()))
def test_every_pass_has_a_filecheck_file(name):
    path = FILECHECK / "passes" / f"{name}.mlir"
    assert path.is_file(), f"missing {path}"
    assert "// RUN:" in path.read_text()


@pytest.mark.parametrize("name", sorted(get_all_passes()))
def test_every_pass_says_which_ir_it_works_on(name):
    cls = get_all_passes()[name]()
    assert getattr(cls, "level", "ge") in ("ge", "lowering", "ascend")
    assert isinstance(getattr(cls, "plans", False), bool)


def test_every_module_under_passes_registers_exactly_one_pass():
    """One file per pass: the registry's built-in passes come one per module,
    except the pipeline builder's levels; the packages hold no pass."""
    by_module: dict[str, list[str]] = {}
    for name, factory in builtin_passes().items():
        by_module.setdefault(factory().__module__, []).append(name)
    by_module.pop("passes.pipelines")
    modules = {f"passes.{p.stem}" for p in PASSES.glob("*.py")} - {"passes.__init__",
                                                                 "passes.pipelines"}
    assert modules <= set(by_module), f"modules with no pass: {modules - set(by_module)}"
    assert all(len(names) == 1 for names in by_module.values()), by_module
    for package in ("driver", "planning"):
        for path in (PASSES / package).glob("*.py"):
            source = path.read_text()
            assert "(ModulePass)" not in source, f"{path} defines a pass"


def test_the_cost_model_knows_the_work_of_every_cube_op():
    assert set(CUBE_WORK) == set(ascend.CUBE_OPS)


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
    # GE's table ends at the blank line before the common xDSL passes.
    table = out[out.index("GE passes:"):].split("\n\n")[0].splitlines()[1:]
    listed = {line.split()[0] for line in table if line.strip()}
    assert listed == set(get_all_passes())
