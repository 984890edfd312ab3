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
from xdsl.dialects.builtin import IntegerType, Signedness, f16, f32, f64, i1, i8, i32, i64
from xdsl.ir import Attribute

from lowering.aten.common import Unsupported

Builder = Callable[[Any, Any], list]

# ONNX TensorProto element type -> (GE element type, NumPy dtype).
ELEMENT_TYPES = {1: (f32, np.float32), 10: (f16, np.float16), 11: (f64, np.float64),
                 9: (i1, np.bool_), 3: (i8, np.int8), 6: (i32, np.int32), 7: (i64, np.int64),
                 2: (IntegerType(8, Signedness.UNSIGNED), np.uint8)}
BY_DTYPE = {np.dtype(dtype): element for element, dtype in ELEMENT_TYPES.values()}


def element_type(onnx_type: int) -> Attribute:
    try:
        return ELEMENT_TYPES[onnx_type][0]
    except KeyError:
        import onnx
        if onnx_type not in onnx.TensorProto.DataType.values():
            raise Unsupported(f"element type {onnx_type!r}, which ONNX does not define") from None
        name = onnx.TensorProto.DataType.Name(onnx_type)
        raise Unsupported(f"element type {name}; GE supports FLOAT, FLOAT16, DOUBLE, BOOL, "
                          "INT8, UINT8, INT32 and INT64") from None


def numpy_dtype(element: Attribute) -> np.dtype:
    return next(np.dtype(d) for e, d in ELEMENT_TYPES.values() if e == element)


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
