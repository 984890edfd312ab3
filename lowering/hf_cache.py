"""Hugging Face KV caches at the torch.export boundary.

HF decoders take and return their cache as a `DynamicCache` object. torch.export
flattens inputs and outputs with torch's pytree, which does not know that class
until it is registered; transformers ships the registration
(`register_dynamic_cache_export_support`: the cache flattens to its key and
value tensors, layer by layer). `register_caches` runs it whenever transformers
is loaded, so a `DynamicCache` goes in and out of a graph as a pytree of
tensors with nothing for the user to do.

Caches torch.export still cannot flatten end in `cache_error`, which names the
fixes instead of torch's "not a known type".
"""

from __future__ import annotations

import re
import sys
import warnings

from torch.utils import _pytree as pytree

_registered = False


def register_caches() -> None:
    """Make `DynamicCache` a pytree node, once, if transformers is in use."""
    global _registered
    if _registered or "transformers" not in sys.modules:
        return
    try:
        from transformers.integrations.executorch import register_dynamic_cache_export_support
    except ImportError:  # an older or newer transformers: torch.export's own error then
        return
    register_dynamic_cache_export_support()
    _registered = True


# torch writes the type by name or as `<class 'module.Name'>`.
_UNKNOWN_TYPE = re.compile(r"Found (?:<class ')?(?:[\w.]*\.)?(?P<type>\w+)'?>? in "
                           r"(?P<where>input|output)s?, which is not a known type")


def cache_error(what: str, error: BaseException) -> str | None:
    """The message for torch.export refusing a cache object, or None for other errors."""
    m = _UNKNOWN_TYPE.search(str(error))
    if m is None or not m["type"].endswith("Cache"):
        return None
    where = "returns" if m["where"] == "output" else "takes"
    return (f"torch.export could not trace {what}: it {where} a {m['type']}, which torch's "
            "pytree cannot flatten. Either compile it with torch.compile(model, "
            "backend=\"ge\"), which takes HF caches as they are; or pass the cache as a "
            "DynamicCache or as tensors (a tuple of key and value tensors per layer); or "
            "call the model with use_cache=False")


def warn_sliding_windows(example_inputs) -> None:
    """A sliding-window layer (Mistral) flattens to its tensors only: the count
    of tokens seen is fixed at export, so a graph traced below the window
    computes the wrong mask once the cache reaches it. Say so."""
    windows = {getattr(layer, "sliding_window", None)
               for cache in pytree.tree_flatten(example_inputs,
                                                is_leaf=lambda x: hasattr(x, "layers"))[0]
               if hasattr(cache, "layers") for layer in cache.layers} - {None}
    if windows:
        warnings.warn(f"the cache has sliding-window layers (window {min(windows)}): the "
                      "exported graph is valid only while the cache is shorter than the "
                      "window; for longer sequences set config.sliding_window above the "
                      "longest one or compile with torch.compile(model, backend=\"ge\")",
                      RuntimeWarning, stacklevel=3)
