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

It then pins glibc's mmap threshold at 256 KiB. A raised threshold
outlives the compile: a dynamic cache's tensors, a few MB each and one
token longer at every step, would come from the heap, where a block freed
at one length never fits the next and the heap keeps growing (1000 tokens
at 1024x8: 146 MB beyond the cache's own 30.9 MB). Mapped blocks of their
own, as in a process that never compiled, grow by the cache alone. A fixed
threshold is no longer raised by glibc; the runtime's own buffers are
arenas allocated once, so what it maps per call is a graph's fresh outputs.

`huge_pages(tensor)` backs a loaded weight with the kernel's 2 MB pages
(Linux's MADV_COLLAPSE) in place: its address and bytes stay, so the
model's parameter and the graph's weight are still one copy. A decode
step reads every weight once, a few hundred MB of 4 KB pages that each
cost a TLB miss, and the hardware prefetchers stop at each 4 KB page's
end: the 1024x8 Llama's replayed step took 1.8-2.3% less time (AMD EPYC,
2 threads, two models interleaved in one process, one collapsed). Only
the 2 MB-aligned pages wholly inside the tensor are collapsed, so no byte
of anything else changes backing. Where the kernel cannot (older than
6.1, THP disabled, a file-backed weight), the weight keeps its pages.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import gc
from pathlib import Path


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


MADV_COLLAPSE = 25  # Linux 6.1's madvise advice


@functools.cache
def huge_page_size() -> int:
    """The kernel's transparent huge page size; 0 where there is none."""
    try:
        return int(Path("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size").read_text())
    except (OSError, ValueError):
        return 0


def huge_pages(tensor) -> int:
    """Back each huge-page-aligned range wholly inside `tensor`'s bytes by one
    huge page, in place; returns the bytes so backed (0 where the kernel or
    the C library cannot, or refuses for the moment: it is best effort)."""
    size, madvise = huge_page_size(), _glibc("madvise")
    if not size or madvise is None:
        return 0
    start = tensor.data_ptr()
    end = start + tensor.numel() * tensor.element_size()
    low, high = -(-start // size) * size, end // size * size
    if high <= low:
        return 0
    done = madvise(ctypes.c_void_p(low), ctypes.c_size_t(high - low), ctypes.c_int(MADV_COLLAPSE))
    return high - low if done == 0 else 0
