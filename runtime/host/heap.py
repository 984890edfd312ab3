"""Giving freed heap back to the system after a compile.

Compiling a graph copies every weight into IR constants and frees the
copies once the graph is loaded (its weights are then the model's own
tensors, runtime/weight_pool.py). glibc keeps what it freed inside its
heaps: after blocks of a few MB are freed, its dynamic mmap threshold rises
and later blocks of that size come from the heap, whose free pages it
returns only from the top. A Llama of 1024 hidden and 8 layers compiled
through the backend with HF's dynamic cache held 730 MB of such pages after
warm-up (bench/llm_memory.py: 1936 MB resident, 1206 MB once trimmed).
`release()` hands them back with glibc's `malloc_trim`; elsewhere it does
nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import gc


# Below this many bytes of weights a compile's freed copies are not worth a
# full garbage collection (0.2-0.5 s on a 2-core machine with a Llama loaded).
WORTH_RELEASING = 64 * 2**20


@functools.cache
def _malloc_trim():
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):  # not glibc
        return None


def release() -> bool:
    """Collect garbage (IR modules are cycles of ops and blocks: their
    constants go only when the collector runs), then return the free pages
    of the C heap to the system; False where the C library cannot (not glibc)."""
    gc.collect()
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
