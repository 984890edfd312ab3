"""Small C kernels of the host fast path: compiled once, loaded with ctypes.

Some task bodies are a handful of torch ops on a few hundred floats (a
decode step's RMSNorm or rotary embedding). There the time is torch's
dispatch per op, not the arithmetic, and one loop in C does the whole body
in a few microseconds. `load(name, source, signatures)` compiles `source`
with the system's C compiler (`-O3 -march=native -fopenmp`) into a cache
directory, one file per source, flags, compiler and CPU (so a cache shared
by machines holds one entry per machine type), and returns the library
with its functions' ctypes signatures set; None without a working compiler
or with `GE_HOST_C_KERNELS=none`, and the caller keeps its torch path.

OpenMP: the library's `libgomp.so.1` resolves to the one torch has loaded,
so its parallel loops run on torch's thread pool and `torch.set_num_threads`
applies.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
import warnings
from pathlib import Path

FLAGS = ("-O3", "-march=native", "-fopenmp", "-shared", "-fPIC")


def cache_dir() -> Path:
    return Path(os.environ.get("GE_CACHE_DIR", Path.home() / ".cache" / "ge"))


def cpu_has(flag: str) -> bool:
    """Whether /proc/cpuinfo lists `flag` (say "avx512f") for this CPU."""
    return flag in _cpu_flags().split()


@functools.cache
def _cpu_flags() -> str:
    """The CPU's feature line: -march=native code is only valid on the same ISA."""
    try:
        return next((line for line in Path("/proc/cpuinfo").read_text().splitlines()
                     if line.startswith("flags")), "")
    except OSError:
        return ""


def _build(compiler: str, name: str, source: str) -> Path:
    key = hashlib.sha256("\0".join([source, *FLAGS, compiler, _cpu_flags()]).encode())
    path = cache_dir() / f"{name}-{key.hexdigest()[:16]}.so"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=path.parent) as tmp:
            src, out = Path(tmp) / "k.c", Path(tmp) / "k.so"
            src.write_text(source)
            subprocess.run([compiler, *FLAGS, str(src), "-o", str(out)], check=True,
                           capture_output=True, timeout=120)
            os.replace(out, path)  # atomic: concurrent builders agree on one file
    return path


@functools.cache
def _load(name: str, source: str, signatures: tuple) -> ctypes.CDLL | None:
    if os.environ.get("GE_HOST_C_KERNELS") == "none":
        return None
    compiler = shutil.which(os.environ.get("CC", "cc"))
    if compiler is None:
        return None
    try:
        lib = ctypes.CDLL(str(_build(compiler, name, source)))
    except (OSError, subprocess.SubprocessError) as e:
        detail = getattr(e, "stderr", None) or b""
        warnings.warn(f"host C kernel '{name}' unavailable ({e} {detail.decode()[-500:]}); "
                      "using torch ops instead",
                      RuntimeWarning, stacklevel=3)
        return None
    for fn, argtypes in signatures:
        f = getattr(lib, fn)
        f.restype = None
        f.argtypes = list(argtypes)
    return lib


def load(name: str, source: str, signatures: dict[str, list]) -> ctypes.CDLL | None:
    """The library built from `source`, its functions typed by `signatures`
    (function name -> ctypes argument types, all returning void); None if
    it cannot be built here."""
    return _load(name, source, tuple((fn, tuple(a)) for fn, a in signatures.items()))


def as_rows(t, n: int):
    """(pointer, row stride in elements, rows) of a fp32 tensor seen as rows of
    its last dim `n` (contiguous within a row, rows evenly spaced); None if
    it is not laid out so."""
    if t.dim() == 0 or t.shape[-1] != n or (n > 1 and t.stride(-1) != 1):
        return None
    rows = t.numel() // n if n else 0
    try:
        matrix = t.view(rows, n)
    except RuntimeError:
        return None
    return matrix.data_ptr(), (matrix.stride(0) if rows > 1 else n), rows


def overlap(a, b) -> bool:
    """Whether the byte ranges of two (non-empty) views intersect."""
    if a.numel() == 0 or b.numel() == 0:
        return False
    a_lo, b_lo = a.data_ptr(), b.data_ptr()
    return (a_lo < b_lo + b.numel() * b.element_size()
            and b_lo < a_lo + a.numel() * a.element_size())


def apart_or_same(a, b) -> bool:
    """Two views either share no byte or are the same elements (an in-place
    elementwise kernel then reads each element before writing it)."""
    return (not overlap(a, b)
            or (a.data_ptr(), a.shape, a.stride()) == (b.data_ptr(), b.shape, b.stride()))


def as_runner(call, name: str):
    """A task runner making `call`, bound at load with every argument: the
    executor's prepared loop calls its `bare` (the ctypes call itself)
    with no Python frame between, as for a oneDNN primitive."""
    def run(*args):
        call()
    run.__name__ = run.__qualname__ = name
    run.bare = call
    return run
