"""A static KV cache's update at a decode step, one row per call, as a C copy.

`ge.scatter_update` writes `updates` into `ref` at `indices` along a dim:
at a decode step one new key or value row per head into the cache, at
the position the step reads from its input. As torch's index_copy_ that is
a dispatched op per layer and per cache, 9-20 us each on a 2-core AMD EPYC
(16 of them a step at 1024x8, after the step's weights have streamed
through the caches); the copy itself is a few rows of a few hundred bytes.
The C loop reads the position, checks it (an index outside the cache
raises IndexError, as index_copy_ does) and copies each row.

`writer(ref, indices, updates, dim)` binds the call to the tensors once; None
where the update is not one contiguous row per leading index (the caller
keeps index_copy_).
"""

from __future__ import annotations

import ctypes
import functools
import math
from collections.abc import Callable

import torch

from runtime.host import cc

_SOURCE = r"""
#include <stdint.h>
#include <string.h>

/* ref holds `outer` blocks of `length` rows of `row` bytes; updates `outer`
   rows. The row at index[0] of each block becomes the update's; *bad is 1
   when the index is outside [0, length), and nothing is written. */
void cache_row(char *ref, int64_t outer, int64_t length, int64_t row, const int64_t *index,
               const char *updates, int64_t *bad) {
    const int64_t p = index[0];
    *bad = p < 0 || p >= length;
    if (*bad) return;
    for (int64_t o = 0; o < outer; o++)
        memcpy(ref + (o * length + p) * row, updates + o * row, (size_t)row);
}
"""
_P, _N = ctypes.c_void_p, ctypes.c_int64
_SIGNATURES = {"cache_row": [_P, _N, _N, _N, _P, _P, _P]}


def library() -> ctypes.CDLL | None:
    return cc.load("cache_row", _SOURCE, _SIGNATURES)


def writer(ref: torch.Tensor, indices: torch.Tensor, updates: torch.Tensor,
           dim: int) -> Callable[[], None] | None:
    """The bound update, or None (see the module's docstring)."""
    if not all(isinstance(t, torch.Tensor) for t in (ref, indices, updates)):
        return None
    dim = dim % ref.dim() if ref.dim() else 0
    if (ref.dim() == 0 or updates.dtype != ref.dtype or indices.dtype != torch.int64
            or indices.numel() != 1 or not indices.is_contiguous()
            or not ref.is_contiguous() or not updates.is_contiguous()
            or updates.shape != ref.shape[:dim] + (1,) + ref.shape[dim + 1:]
            or cc.overlap(ref, updates) or library() is None):
        return None
    outer = math.prod(ref.shape[:dim])
    length = ref.shape[dim]
    row = math.prod(ref.shape[dim + 1:]) * ref.element_size()
    bad = ctypes.c_int64(0)
    call = functools.partial(library().cache_row, ref.data_ptr(), outer, length, row,
                             indices.data_ptr(), updates.data_ptr(), ctypes.byref(bad))

    def cache_row():
        call()
        if bad.value:
            raise IndexError(f"scatter_update: index {int(indices)} is out of bounds for "
                             f"dimension {dim} with size {length} (the cache is "
                             f"{length} long: a longer generation needs a larger cache)")
    cache_row.keep = (ref, indices, updates)  # the bytes the call points at
    return cache_row
