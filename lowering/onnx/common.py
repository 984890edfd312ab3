"""What the ONNX builders share: the builder contract and small helpers.

A builder is `(importer, node) -> [outputs]`: one SSA value (or NumPy constant,
or None for an output nobody reads) per node output. The importer (`g`) offers
`input`, `constant`, `has_input`, `attr`, `emit`, `scalar` and `const` (see
`lowering/onnx_to_ge.py`). A builder raises `OnnxUnsupported` when its node
cannot be expressed in GE; the importer collects those into one report.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

Builder = Callable[[Any, Any], list]


class OnnxUnsupported(Exception):
    """Raised by a builder when its node cannot be expressed in GE."""


def ints(g, node, i: int, what: str) -> list[int]:
    """Input i as a list of ints; it must be a constant (axes, shapes, pads, ...)."""
    value = g.constant(node, i)
    if value is None:
        raise OnnxUnsupported(f"{what} computed at run time; GE needs it constant")
    return [int(v) for v in np.asarray(value).reshape(-1)]


def axes_of(g, node, i: int = 1, attr: str = "axes") -> list[int] | None:
    """`axes` from the attribute (older opsets) or input i (newer); None if absent."""
    if g.has_input(node, i):
        return ints(g, node, i, "axes")
    value = g.attr(node, attr)
    return None if value is None else list(value)
