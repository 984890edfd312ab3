"""runtime/host/heap.py: after a compile's large blocks are freed, growing
tensors (a dynamic KV cache's) must not pile up in glibc's heap."""

import os
import subprocess
import sys

import pytest

from runtime.host import heap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# A fresh process: free blocks of a few MB (as a compile's IR constants are
# freed), optionally release(), then grow 16 cache-like tensors by one row
# 1000 times from 128 rows, each step concatenating as a DynamicCache does. Prints the RSS
# growth from the 10th step on, less the tensors' own.
GROW = r"""
import os, sys, torch
from runtime.host import heap
torch.set_num_threads(1)
def rss():
    return int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
for _ in range(4):
    block = torch.ones(3 * 2**20)
    del block
if sys.argv[1] == "release":
    heap.release()
cache = [torch.zeros(1, 8, 128, 64) for _ in range(16)]
for step in range(1000):
    cache = [torch.cat([c, torch.ones(1, 8, 1, 64)], dim=2) for c in cache]
    if step == 10:
        start, start_bytes = rss(), sum(c.numel() * 4 for c in cache)
print((rss() - start - (sum(c.numel() * 4 for c in cache) - start_bytes)) / 2**20)
"""


def _growth_mb(mode: str) -> float:
    out = subprocess.run([sys.executable, "-c", GROW, mode], capture_output=True, text=True,
                         cwd=ROOT, env={**os.environ, "PYTHONPATH": ROOT}, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return float(out.stdout.split()[-1])


@pytest.mark.skipif(heap._glibc("mallopt") is None, reason="not glibc")
def test_release_keeps_growing_tensors_off_the_heap():
    kept, released = _growth_mb("none"), _growth_mb("release")
    # 37 MB of cache tensors at the end (as a 1024x8 Llama's after 1000
    # tokens); without release() glibc's raised mmap threshold left 45-55 MB of
    # heap beside them, with it 1-22 MB (the run's own scatter, one thread)
    assert released < 30, (kept, released)
    assert kept > released + 15, (kept, released)


# A fresh process (a long-lived test worker's state, say a THP setting a
# library made, is not the question): a weight over 4 huge pages, not
# aligned, collapsed in place. Prints the bytes collapsed, the aligned bytes
# inside it, AnonHugePages of its mapping, whether its bytes and address
# stayed, and what a tensor smaller than a huge page gets.
COLLAPSE = r"""
import torch
from runtime.host import heap

def huge_kb(address):
    inside = False
    for line in open("/proc/self/smaps"):
        head = line.split()[0]
        if "-" in head and ":" not in head:
            low, high = (int(a, 16) for a in head.split("-"))
            inside = low <= address < high
        elif inside and head == "AnonHugePages:":
            return int(line.split()[1])
    return 0

size = heap.huge_page_size()
storage = torch.randn(size + 1000)  # 4 huge pages of fp32, and 1000 floats more
weight = storage[1000:]  # not aligned: its first and last partial pages stay
before, address = weight.clone(), weight.data_ptr()
done = heap.huge_pages(weight)
aligned = (address + weight.numel() * 4) // size * size - -(-address // size) * size
kept = weight.data_ptr() == address and torch.equal(weight, before)
print(done, aligned, huge_kb(address + size) * 1024, int(kept), heap.huge_pages(torch.randn(1000)))
"""


def _collapse_supported() -> bool:
    try:
        enabled = open("/sys/kernel/mm/transparent_hugepage/enabled").read()
    except OSError:
        return False
    release = tuple(int(p) for p in os.uname().release.split("-")[0].split(".")[:2])
    return "[never]" not in enabled and release >= (6, 1)


@pytest.mark.skipif(not _collapse_supported(), reason="no MADV_COLLAPSE (Linux 6.1, THP)")
def test_huge_pages_back_a_weight_in_place():
    for attempt in range(3):  # the kernel may refuse for a moment (EAGAIN): best effort
        out = subprocess.run([sys.executable, "-c", COLLAPSE], capture_output=True, text=True,
                             cwd=ROOT, env={**os.environ, "PYTHONPATH": ROOT}, timeout=300)
        assert out.returncode == 0, out.stderr[-2000:]
        done, aligned, huge, kept, small = (int(v) for v in out.stdout.split())
        assert kept and small == 0 and done in (0, aligned) and aligned >= 2 * 2**21
        if done:
            break
    assert done == aligned and huge >= done, out.stdout
