"""Models for the command-line tools: a zoo name, FILE.py:FUNCTION, or FILE.mlir.

Shared by ge-bisect and ge-viz. Zoo names resolve through `test.models.ZOO`
when the zoo has that index, else to `test.models.<name>.make()`; the repo
root is put on sys.path so this works from an installed console script.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def zoo_names() -> list[str]:
    models = importlib.import_module("test.models")
    zoo = getattr(models, "ZOO", None)
    if zoo is not None:
        return sorted(zoo)
    return sorted(m.name for m in pkgutil.iter_modules(models.__path__)
                  if hasattr(importlib.import_module(f"test.models.{m.name}"), "make"))


def zoo_factory(name: str):
    """`test.models.ZOO[name]` when the zoo has an index, else `test.models.<name>.make`."""
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    models = importlib.import_module("test.models")
    zoo = getattr(models, "ZOO", None)
    entry = zoo.get(name) if zoo is not None else None
    if entry is None and zoo is None and name.isidentifier():
        try:
            entry = importlib.import_module(f"test.models.{name}")
        except ModuleNotFoundError:
            entry = None
    if entry is None:
        raise ValueError(f"unknown model '{name}'; the zoo has: {', '.join(zoo_names())} "
                         "(or give FILE.py:FUNCTION or FILE.mlir)")
    return entry if callable(entry) else entry.make


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

    from ge_dialect import make_context
    from npu_graph.bisect import seeded_inputs
    from runtime.kernels import torch_dtype
    from runtime.reference import find_func

    module = Parser(make_context(), Path(path).read_text(), name=path).parse_module()
    module.verify()
    types = find_func(module).function_type.inputs.data
    examples = tuple(torch.empty([max(d, 1) for d in t.get_shape()],
                                 dtype=torch_dtype(t.element_type)) for t in types)
    return module, seeded_inputs(examples, seed)
