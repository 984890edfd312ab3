"""Models for the command-line tools: a zoo name, FILE.py:FUNCTION, or FILE.mlir.

`zoo()` is the one way in to the model zoo, and `fuzz_graphs()` to the
random graph generator (`test/models`, whose `ZOO` maps a
name to a factory returning `(model, example_inputs)`); ge-import, ge-bisect,
ge-viz, the benchmarks and the demo all go through it. The zoo is loaded from
this repository's files, not by whatever `test` package is importable
(Python's standard library has one), so an installed console script finds it.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def zoo() -> dict[str, Callable]:
    """The zoo's factories by name."""
    package = sys.modules.get("test")
    if package is None or Path(getattr(package, "__file__", "") or "").parent != REPO / "test":
        spec = importlib.util.spec_from_file_location(
            "test", REPO / "test" / "__init__.py", submodule_search_locations=[str(REPO / "test")])
        package = importlib.util.module_from_spec(spec)
        sys.modules["test"] = package  # the zoo's modules import each other as test.models.*
        spec.loader.exec_module(package)
    return importlib.import_module("test.models").ZOO


def fuzz_graphs():
    """test/fuzz/graphs.py, the random graph generator (through the same package
    as the zoo): its `graphs` strategy, `MENU` and `to_module` serve ge-fuzz."""
    zoo()  # makes this repository's `test` package the importable one
    return importlib.import_module("test.fuzz.graphs")


def zoo_names() -> list[str]:
    return sorted(zoo())


def zoo_factory(name: str) -> Callable:
    """The zoo's factory for `name`; an unknown name is a ValueError listing the zoo."""
    factories = zoo()
    if name not in factories:
        raise ValueError(f"unknown model '{name}'; the zoo has: {', '.join(sorted(factories))} "
                         "(or give FILE.py:FUNCTION or FILE.mlir)")
    return factories[name]


def load_model(spec: str, seed: int):
    """(GE module, seeded inputs) for --model."""
    import torch
    from xdsl.dialects.builtin import ModuleOp

    from npu_graph.bisect import seeded_inputs
    from npu_graph.compiler import import_model

    if spec.endswith(".mlir"):
        return _load_mlir(spec, seed)
    if ":" in spec:
        from passes.driver.plugins import import_file

        path, _, function = spec.rpartition(":")
        factory = getattr(import_file(path, "model"), function, None)
        if not callable(factory):
            raise ValueError(f"{path} has no function '{function}'")
    else:
        factory = zoo_factory(spec)
    model, examples = factory()
    examples = (examples,) if isinstance(examples, torch.Tensor) else tuple(examples)
    inputs = seeded_inputs(examples, seed)
    module = model if isinstance(model, ModuleOp) else import_model(model, examples)
    return module, inputs


def _load_mlir(path: str, seed: int):
    import torch
    from xdsl.parser import Parser

    from ge_dialect import find_func, make_context
    from npu_graph.bisect import seeded_inputs
    from runtime.kernels import torch_dtype

    module = Parser(make_context(), Path(path).read_text(), name=path).parse_module()
    module.verify()
    types = find_func(module).function_type.inputs.data
    examples = tuple(torch.empty([max(d, 1) for d in t.get_shape()],
                                 dtype=torch_dtype(t.element_type)) for t in types)
    return module, seeded_inputs(examples, seed)
