"""Dense constants <-> NumPy arrays, through raw bytes only.

Going through Python lists costs ~30 us per element on parse and ~100 ns on
build; raw bytes cost nothing, so every weight path in the project uses these.

NumPy has no bfloat16 of its own: `ml_dtypes` (a dependency of onnx, and of
ours) registers one whose bytes are MLIR's bf16 (the top half of an IEEE
float32), so bf16 constants take the same raw-bytes path.
"""

import ml_dtypes
import numpy as np
from xdsl.dialects.builtin import (
    BytesAttr,
    IntegerType,
    Signedness,
    bf16,
    DenseIntOrFPElementsAttr,
    TensorType,
    f16,
    f32,
    f64,
    i1,
    i8,
    i32,
    i64,
)

_TO_NUMPY = {"bf16": ml_dtypes.bfloat16, "f16": np.float16, "f32": np.float32, "f64": np.float64, "i1": np.bool_,
             "i8": np.int8, "ui8": np.uint8, "i32": np.int32, "i64": np.int64}
_FROM_NUMPY = {np.dtype(ml_dtypes.bfloat16): bf16, np.dtype(np.float16): f16, np.dtype(np.float32): f32,
               np.dtype(np.float64): f64, np.dtype(np.bool_): i1, np.dtype(np.int8): i8,
               np.dtype(np.int32): i32, np.dtype(np.int64): i64,
               np.dtype(np.uint8): IntegerType(8, Signedness.UNSIGNED)}


def to_numpy(attr: DenseIntOrFPElementsAttr) -> np.ndarray:
    """A read-only array view of the attribute's bytes (splats are broadcast)."""
    data = np.frombuffer(attr.data.data, _TO_NUMPY[str(attr.get_element_type())])
    shape = attr.get_shape()
    if data.size == 1 and int(np.prod(shape)) != 1:
        return np.broadcast_to(data.reshape(()), shape)
    return data.reshape(shape)


def from_numpy(array: np.ndarray) -> DenseIntOrFPElementsAttr:
    # np.ascontiguousarray would turn a 0-d array into a 1-element 1-d one.
    array = np.require(array, requirements="C")
    element = _FROM_NUMPY.get(array.dtype)
    if element is None:
        raise TypeError(f"no MLIR element type for numpy dtype {array.dtype}")
    return DenseIntOrFPElementsAttr(TensorType(element, list(array.shape)),
                                    BytesAttr(array.tobytes()))
