"""`.npu` files: save, load in a fresh process, and every way a file can be bad."""

import io
import json
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
import torch

from npu_graph import GraphExecutor, NpuFileError, NpuGraph, load
from npu_graph.artifact import FORMAT
from test.models import tiny_resnet

ROOT = Path(__file__).parents[2]


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """(path, input, output) of the zoo's tiny ResNet, optimized and saved."""
    model, (x,) = tiny_resnet.make()
    optimized = NpuGraph(model, input_spec=(x,)).optimize()
    out = optimized(x)
    path = tmp_path_factory.mktemp("npu") / "tiny_resnet.npu"
    optimized.save(str(path))
    return path, x, out


def test_save_writes_manifest_ir_and_weights(saved):
    path, _, _ = saved
    with zipfile.ZipFile(path) as z:
        assert sorted(z.namelist()) == ["graph.mlir", "manifest.json", "weights.bin"]
        manifest = json.loads(z.read("manifest.json"))
        text = z.read("graph.mlir").decode()
    assert manifest["format"] == FORMAT and manifest["format_version"] == 1
    assert set(manifest["producer"]) == {"ge-compiler", "xdsl", "torch", "numpy"}
    assert manifest["pipeline"].endswith("lower-to-ascend,task-parallel{max-streams=4},"
                                         "memory-reuse")
    assert manifest["inputs"] == [{"shape": list(saved[1].shape), "dtype": "f32"}]
    assert text.count("ascend.weight") == len(manifest["weights"]) > 4
    assert "npu.weight = 0 : i64" in text and "ascend.arena_size" in text


def test_load_runs_with_identical_outputs(saved):
    path, x, out = saved
    torch.testing.assert_close(load(str(path))(x), out, rtol=0, atol=0)
    executor = GraphExecutor().load_graph(path)  # a Path works too
    assert torch.equal(executor.run(input_data=x), out)


def test_load_in_a_fresh_process_that_never_saw_the_model(saved, tmp_path):
    path, x, out = saved
    torch.save(x, tmp_path / "x.pt")
    script = f"""
import sys, torch
def no_export(*args, **kwargs):
    raise SystemExit("loading a .npu file called torch.export")
torch.export.export = no_export
from npu_graph import GraphExecutor
executor = GraphExecutor().load_graph({str(path)!r})
y = executor.run(input_data=torch.load({str(tmp_path / 'x.pt')!r}))
torch.save(y, {str(tmp_path / 'y.pt')!r})
seen = [m for m in ("test.models", "lowering.torch_to_ge") if m in sys.modules]
print("imported:", seen)
"""
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert "imported: []" in r.stdout
    assert torch.equal(torch.load(tmp_path / "y.pt"), out)


def _rezip(path: Path, dest: Path, change) -> Path:
    """A copy of the .npu at `path` with its members passed through `change`."""
    with zipfile.ZipFile(path) as z:
        members = {n: z.read(n) for n in z.namelist()}
    change(members)
    with zipfile.ZipFile(dest, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return dest


def _with_manifest(edit):
    def change(members):
        manifest = json.loads(members["manifest.json"])
        edit(manifest, members)
        members["manifest.json"] = json.dumps(manifest).encode()
    return change


def _garbage_ir(manifest, members):
    import hashlib

    members["graph.mlir"] = b"builtin.module { ascend.bogus }"
    manifest["sha256"]["graph.mlir"] = hashlib.sha256(members["graph.mlir"]).hexdigest()


def _flip_weight_byte(members):
    data = bytearray(members["weights.bin"])
    data[100] ^= 0xFF
    members["weights.bin"] = bytes(data)


def _drop_weight(manifest, members):
    manifest["weights"].pop()


BAD_FILES = {
    "truncated-half": (lambda p, d: d.write_bytes(p.read_bytes()[: p.stat().st_size // 2]),
                       r"corrupt or truncated \.npu file"),
    "truncated-tiny": (lambda p, d: d.write_bytes(p.read_bytes()[:10]),
                       r"corrupt or truncated \.npu file"),
    "empty": (lambda p, d: d.write_bytes(b""), r"corrupt or truncated \.npu file"),
    "text": (lambda p, d: d.write_text("builtin.module {}"), r"corrupt or truncated"),
    "foreign-zip": (lambda p, d: _rezip(p, d, lambda m: [m.pop("graph.mlir"),
                                                         m.pop("weights.bin")]),
                    r"not a \.npu file: the archive has no graph\.mlir, weights\.bin"),
    "foreign-manifest": (lambda p, d: _rezip(p, d, _with_manifest(
        lambda m, _: m.update(format="onnx"))),
        r"manifest format is 'onnx', expected 'npu_graph\.npu'"),
    "bad-json": (lambda p, d: _rezip(p, d, lambda m: m.update({"manifest.json": b"{"})),
                 r"manifest\.json is not valid JSON"),
    "newer-version": (lambda p, d: _rezip(p, d, _with_manifest(
        lambda m, _: m.update(format_version=99))),
        r"format version 99; this build reads version 1"),
    "flipped-weight-byte": (lambda p, d: _rezip(p, d, _flip_weight_byte),
                            r"weights\.bin is corrupt \(SHA-256 mismatch"),
    "garbage-ir": (lambda p, d: _rezip(p, d, _with_manifest(_garbage_ir)),
                   r"graph\.mlir does not load: .*ascend\.bogus"),
    "weight-count": (lambda p, d: _rezip(p, d, _with_manifest(_drop_weight)),
                     r"graph\.mlir has \d+ weights, the manifest lists \d+"),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_npu_files_give_one_line_errors(saved, tmp_path, case):
    make, message = BAD_FILES[case]
    bad = tmp_path / f"{case}.npu"
    make(saved[0], bad)
    with pytest.raises(NpuFileError, match=message) as info:
        load(str(bad))
    assert "\n" not in str(info.value) and str(bad) in str(info.value)


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(NpuFileError, match=r"no such file \(expected a \.npu file"):
        load(str(tmp_path / "missing.npu"))
    with pytest.raises(NpuFileError, match="is a directory"):
        GraphExecutor().load_graph(tmp_path)


def test_ge_bench_on_a_truncated_file_is_one_line_exit_1(saved, tmp_path):
    bad = tmp_path / "cut.npu"
    bad.write_bytes(saved[0].read_bytes()[:1000])
    r = subprocess.run([sys.executable, "-m", "bench.benchmark", "--model", str(bad)],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 1
    assert r.stderr.strip().count("\n") == 0 and "Traceback" not in r.stderr
    assert r.stderr.startswith(f"ge-bench: error: {bad}: corrupt or truncated .npu file")


def test_compiling_twice_gives_byte_identical_ir_and_npu_files(tmp_path):
    """Determinism: the same model and flags give the same IR text and .npu bytes,
    whenever they are saved (zip timestamps have a 2 s resolution)."""
    files, texts = [], []
    for i in range(2):
        if i:
            time.sleep(2.1)
        model, (x,) = tiny_resnet.make()
        optimized = NpuGraph(model, input_spec=(x,)).optimize()
        texts.append(optimized.to_mlir(elide=False))
        path = tmp_path / f"run{i}.npu"
        optimized.save(str(path))
        files.append(path.read_bytes())
    assert texts[0] == texts[1]
    assert files[0] == files[1]
