"""The structure of a model's outputs, kept in the IR as text.

torch.export flattens what a model returns (a dict, nested tuples, a
namedtuple, an HF `ModelOutput`) into a list of tensors and keeps the
structure as a pytree spec. The importer writes that spec on the function
(`ge_dialect.OUTPUT_TREE`, pytree's JSON) unless it is a plain tuple of
tensors, and `npu_graph` rebuilds the structure from the runtime's flat
results, so a graph returns what eager returns, from a `.npu` file too.

A namedtuple class is serialized by its import path (`module.QualName`); a
process that cannot import it gets the values as a plain tuple and a warning.
"""

from __future__ import annotations

import importlib
import json
import warnings

from torch.utils import _pytree as pytree

from lowering import hf_cache


def is_flat(spec: pytree.TreeSpec) -> bool:
    """A single tensor or a plain tuple of tensors: no structure to keep."""
    return spec.is_leaf() or (spec.type is tuple
                              and all(c.is_leaf() for c in spec.children()))


def _namedtuples(spec: pytree.TreeSpec):
    """The namedtuple classes in `spec` (pytree keeps the class as the context)."""
    if isinstance(spec.context, type) and pytree.is_namedtuple_class(spec.context):
        yield spec.context
    for child in spec.children():
        yield from _namedtuples(child)


def _path(cls) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _register(cls) -> None:
    if cls not in pytree.SUPPORTED_SERIALIZED_TYPES:
        pytree._register_namedtuple(cls, serialized_type_name=_path(cls))


def dumps(spec: pytree.TreeSpec) -> str | None:
    """The spec as text, or None if it cannot be written (then the outputs
    keep a flat tuple, and the caller says so)."""
    for cls in _namedtuples(spec):
        _register(cls)
    try:
        return pytree.treespec_dumps(spec)
    except Exception:  # an output type pytree cannot name: no structure kept
        return None


def loads(text: str) -> pytree.TreeSpec | None:
    """The spec back; None, with a warning, if a type in it cannot be found here."""
    try:
        return pytree.treespec_loads(text)
    except Exception:
        pass
    if "transformers.cache_utils." in text:  # an HF cache: transformers registers it
        try:
            importlib.import_module("transformers")
            hf_cache.register_caches()
        except ImportError:
            pass
    for name in _type_names(json.loads(text)):
        module, _, qualname = name.rpartition(".")
        try:
            cls = importlib.import_module(module)
            for part in qualname.split("."):
                cls = getattr(cls, part)
            _register(cls)
        except Exception:
            continue
    try:
        return pytree.treespec_loads(text)
    except Exception as e:
        warnings.warn(f"the graph's outputs come back as a flat tuple: their structure names "
                      f"a type this process cannot import ({e})", RuntimeWarning, stacklevel=2)
        return None


def _type_names(node) -> list[str]:
    """The namedtuple classes a spec's JSON names (their context is the name)."""
    if isinstance(node, list):
        return [n for item in node for n in _type_names(item)]
    if isinstance(node, dict):
        own = [node["context"]] if node.get("type") == "collections.namedtuple" else []
        return own + [n for v in node.values() for n in _type_names(v)]
    return []
