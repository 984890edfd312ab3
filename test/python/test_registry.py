"""The registries that ge-opt, lit and the Python API rely on stay complete."""

import inspect
import sys
from pathlib import Path

import pytest
from xdsl.irdl import IRDLOperation


from ge_dialect import ascend, elementwise, ge, indexing, nn, quant, reductions
from passes import builtin_passes, get_all_passes
from passes.base import LEVELS, AscendPass, GEPass
from target.cost_model import CUBE_WORK

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


@pytest.mark.parametrize("name", sorted(builtin_passes()))
def test_every_pass_derives_from_a_level_base_class(name):
    cls = builtin_passes()[name]()
    assert issubclass(cls, GEPass | AscendPass), f"{cls.__name__} derives from neither"
    assert cls.level in LEVELS
    assert (cls.level == "ge") == issubclass(cls, GEPass)
    assert isinstance(cls.plans, bool)


def test_every_module_under_passes_registers_exactly_one_pass():
    """One file per pass: the registry's built-in passes come one per module,
    except the pipeline builder's levels; the packages hold no pass."""
    by_module: dict[str, list[str]] = {}
    for name, factory in builtin_passes().items():
        by_module.setdefault(factory().__module__, []).append(name)
    by_module.pop("passes.pipelines")
    modules = {f"passes.{p.stem}" for p in PASSES.glob("*.py")} - {
        "passes.__init__", "passes.pipelines", "passes.base"}
    assert modules <= set(by_module), f"modules with no pass: {modules - set(by_module)}"
    assert all(len(names) == 1 for names in by_module.values()), by_module
    for package in ("driver", "planning"):
        for path in (PASSES / package).glob("*.py"):
            source = path.read_text()
            assert "(ModulePass)" not in source, f"{path} defines a pass"


def test_the_cost_model_knows_the_work_of_every_cube_op():
    assert set(CUBE_WORK) == set(ascend.CUBE_OPS)


# The GE dialect's op families: ge.py and the modules it exports the ops of.
GE_MODULES = (ge, elementwise, nn, indexing, reductions, quant)


def _defined_ops(*modules):
    """Op classes the modules define with @irdl_op_definition (not shared bases),
    the generated ones of elementwise.py's table included."""
    return {cls for module in modules for _, cls in inspect.getmembers(module, inspect.isclass)
            if issubclass(cls, IRDLOperation) and cls.__module__ == module.__name__
            and "get_irdl_definition" in vars(cls)}


@pytest.mark.parametrize("modules, dialect", [(GE_MODULES, ge.GE), ((ascend,), ascend.Ascend)])
def test_every_op_class_is_listed_in_its_dialect(modules, dialect):
    defined = _defined_ops(*modules)
    assert defined, "found no op classes: the detection is broken"
    assert defined == set(dialect.operations)


def test_ge_exports_every_op_class_under_its_name():
    """`ge.AddOp` names any GE op, wherever its family module defines it."""
    for cls in ge.GE.operations:
        assert getattr(ge, cls.__name__) is cls
        assert getattr(sys.modules[cls.__module__], cls.__qualname__) is cls


@pytest.mark.parametrize("modules", [GE_MODULES, (ascend,)])
def test_every_op_has_a_docstring_with_an_ir_example(modules):
    for cls in _defined_ops(*modules):
        doc = inspect.getdoc(cls) or ""
        assert cls.name in doc, f"{cls.__name__} docstring lacks an IR example using {cls.name}"


@pytest.mark.parametrize("modules", [GE_MODULES, (ascend,)])
def test_every_op_has_a_roundtrip_test(modules):
    tested = "\n".join(p.read_text() for p in (FILECHECK / "dialect").rglob("*.mlir"))
    missing = [cls.name for cls in _defined_ops(*modules) if cls.name not in tested]
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
