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

It then pins glibc's mmap threshold at 256 KiB. The raised threshold
outlives the compile: a dynamic cache's tensors, a few MB each and one
token longer at every step, then came from the heap, where a block freed
at one length never fits the next and the heap kept growing (1000 tokens
at 1024x8: 146 MB beyond the cache's own 30.9 MB). Mapped blocks of their
own, as in a process that never compiled, grew by the cache alone. A fixed
threshold is no longer raised by glibc; the runtime's own buffers are
arenas allocated once, so what it maps per call is a graph's fresh outputs.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import gc


# glibc's mallopt parameter, and the threshold release() pins: blocks of
# this size or more get pages of their own.
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 256 * 2**10

# Below this many bytes of weights a compile's freed copies are not worth a
# full garbage collection (0.2-0.5 s on a 2-core machine with a Llama loaded).
WORTH_RELEASING = 64 * 2**20


@functools.cache
def _glibc(function: str):
    name = ctypes.util.find_library("c")
    try:
        return getattr(ctypes.CDLL(name), function) if name else None
    except (OSError, AttributeError):  # not glibc
        return None


def release() -> bool:
    """Collect garbage (IR modules are cycles of ops and blocks: their
    constants go only when the collector runs), return the free pages of
    the C heap to the system and pin the mmap threshold; False where the C
    library cannot (not glibc)."""
    gc.collect()
    trim, mallopt = _glibc("malloc_trim"), _glibc("mallopt")
    if trim is None or mallopt is None:
        return False
    trim(0)
    mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)
    return True
