"""The `.npu` file: one optimized graph, self-contained, loadable without torch.export.

A zip archive (like an ONNX or TorchScript file, one artifact to ship):

    manifest.json  format name and version, producer versions, the pipeline,
                   the signature, one entry per weight, SHA-256 of the members
    graph.mlir     the planned Ascend IR; each `ascend.weight` holds a zero
                   splat and an `npu.weight = <index>` attribute instead of
                   its data, so the text stays small and parses fast
    weights.bin    the weights' raw bytes, back to back, 64-byte aligned

Loading checks everything it reads and raises `NpuFileError` with one line
that says what was expected: not a zip (or truncated), a foreign archive, a
newer format, a checksum mismatch, IR that does not parse or verify.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile
from importlib import metadata

import numpy as np
import torch
from xdsl.dialects.builtin import BytesAttr, DenseIntOrFPElementsAttr, IntegerAttr, ModuleOp, i64
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError, VerifyException

from ge_dialect import ascend, find_func, make_context
from ge_dialect.tensors import from_numpy, to_numpy
from ge_dialect.verifier import verify
from npu_graph.graph import OptimizedGraph

FORMAT = "npu_graph.npu"
FORMAT_VERSION = 1
WEIGHT_ATTR = "npu.weight"
ALIGN = 64
MEMBERS = ("manifest.json", "graph.mlir", "weights.bin")


class NpuFileError(ValueError):
    """A `.npu` file that cannot be loaded; the message is one line."""


def _versions() -> dict[str, str]:
    def version(dist: str) -> str:
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            return "unknown"

    return {"ge-compiler": version("ge-compiler"), "xdsl": version("xdsl"),
            "torch": str(torch.__version__), "numpy": np.__version__}


def _signature(types) -> list[dict]:
    return [{"shape": [None if d == -1 else d for d in t.get_shape()],
             "dtype": str(t.element_type)} for t in types]


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def save(graph: OptimizedGraph, path: str) -> None:
    """Write `graph` to `path` (conventionally `*.npu`)."""
    module = graph.module.clone()
    weights, entries, offset = io.BytesIO(), [], 0
    for index, op in enumerate(o for o in module.walk() if isinstance(o, ascend.WeightOp)):
        array = to_numpy(op.value)
        data = np.ascontiguousarray(array).tobytes()
        pad = -offset % ALIGN
        weights.write(b"\0" * pad)
        offset += pad
        entries.append({"dtype": str(array.dtype), "shape": list(array.shape),
                        "offset": offset, "nbytes": len(data)})
        weights.write(data)
        offset += len(data)
        zero = np.zeros((), array.dtype).tobytes()
        op.value = DenseIntOrFPElementsAttr(op.value.type, BytesAttr(zero))
        op.attributes[WEIGHT_ATTR] = IntegerAttr(index, i64)
    text = str(module).encode()
    blob = weights.getvalue()
    fn = find_func(module)
    manifest = {
        "format": FORMAT, "format_version": FORMAT_VERSION, "producer": _versions(),
        "name": graph.name, "pipeline": graph.pipeline, "entry": "main",
        "inputs": _signature(fn.function_type.inputs.data),
        "outputs": _signature(fn.function_type.outputs.data),
        "weights": entries,
        "sha256": {"graph.mlir": _sha256(text), "weights.bin": _sha256(blob)},
    }
    partial = f"{path}.partial"  # a failed save must not leave a truncated file behind
    with zipfile.ZipFile(partial, "w") as z:
        for name, data, compression in (
                ("manifest.json", json.dumps(manifest, indent=2), zipfile.ZIP_DEFLATED),
                ("graph.mlir", text, zipfile.ZIP_DEFLATED),
                ("weights.bin", blob, zipfile.ZIP_STORED)):
            # A fixed timestamp, as reproducible builds use: the same graph
            # gives the same bytes, whenever it is saved.
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = compression
            z.writestr(info, data)
    os.replace(partial, path)


def _read(path: str) -> dict[str, bytes]:
    try:
        with zipfile.ZipFile(path) as z:
            names = set(z.namelist())
            missing = [m for m in MEMBERS if m not in names]
            if missing:
                raise NpuFileError(f"{path}: not a .npu file: the archive has no "
                                   f"{', '.join(missing)} (expected {', '.join(MEMBERS)})")
            return {m: z.read(m) for m in MEMBERS}
    except FileNotFoundError:
        raise NpuFileError(f"{path}: no such file (expected a .npu file written by "
                           "OptimizedGraph.save)") from None
    except IsADirectoryError:
        raise NpuFileError(f"{path}: is a directory, not a .npu file") from None
    except (zipfile.BadZipFile, EOFError, zipfile.LargeZipFile) as e:
        raise NpuFileError(f"{path}: corrupt or truncated .npu file ({e}); save it again "
                           "with OptimizedGraph.save") from None


def _manifest(path: str, raw: bytes) -> dict:
    try:
        manifest = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise NpuFileError(f"{path}: manifest.json is not valid JSON ({e})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        found = manifest.get("format") if isinstance(manifest, dict) else None
        raise NpuFileError(f"{path}: not a .npu file: manifest format is {found!r}, "
                           f"expected {FORMAT!r}")
    version = manifest.get("format_version")
    if version != FORMAT_VERSION:
        raise NpuFileError(f"{path}: .npu format version {version!r}; this build reads "
                           f"version {FORMAT_VERSION}")
    return manifest


def load(path: str) -> OptimizedGraph:
    """The optimized graph saved at `path`, ready to call."""
    members = _read(str(path))
    manifest = _manifest(path, members["manifest.json"])
    for name, digest in manifest.get("sha256", {}).items():
        if name in members and _sha256(members[name]) != digest:
            raise NpuFileError(f"{path}: {name} is corrupt (SHA-256 mismatch with the "
                               "manifest)")
    try:
        module = Parser(make_context(), members["graph.mlir"].decode(), "graph.mlir").parse_module()
        _restore_weights(module, manifest, members["weights.bin"])
        verify(module)
    except NpuFileError as e:  # from _restore_weights, which does not know the path
        raise NpuFileError(f"{path}: {e}") from None
    except (ParseError, VerifyException, UnicodeDecodeError, KeyError, TypeError,
            ValueError) as e:
        if isinstance(e, ParseError):
            why = f"{e.span.get_location()}: {e.msg}"
        else:  # verifier messages put the reason on the lines after the headline
            why = " ".join(line.strip() for line in str(e).splitlines() if line.strip())
        raise NpuFileError(f"{path}: graph.mlir does not load: {why or type(e).__name__}") \
            from None
    return OptimizedGraph(module, manifest.get("pipeline", ""), manifest.get("name", "graph"))


def _restore_weights(module: ModuleOp, manifest: dict, blob: bytes) -> None:
    entries = manifest.get("weights", [])
    ops = [o for o in module.walk() if isinstance(o, ascend.WeightOp)]
    if len(ops) != len(entries):
        raise NpuFileError(f"graph.mlir has {len(ops)} weights, the manifest lists "
                           f"{len(entries)}")
    for op in ops:
        index = op.attributes.pop(WEIGHT_ATTR, None)
        if not isinstance(index, IntegerAttr) or not 0 <= index.value.data < len(entries):
            raise NpuFileError(f"an ascend.weight has no valid '{WEIGHT_ATTR}' index")
        e = entries[index.value.data]
        end = e["offset"] + e["nbytes"]
        if end > len(blob):
            raise NpuFileError(f"weight {index.value.data} ends at byte {end}, past the "
                               f"end of weights.bin ({len(blob)} bytes)")
        array = np.frombuffer(blob, np.dtype(e["dtype"]), offset=e["offset"],
                              count=e["nbytes"] // np.dtype(e["dtype"]).itemsize)
        value = from_numpy(array.reshape(e["shape"]))
        if value.type != op.value.type:
            raise NpuFileError(f"weight {index.value.data} is {value.type} in weights.bin "
                               f"but {op.value.type} in graph.mlir")
        op.value = value
