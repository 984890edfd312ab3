"""Smoke run of the benchmark scripts (bench/ is not part of the suite otherwise)."""

import subprocess
import sys
from pathlib import Path

import pytest

from runtime.host import onednn

ROOT = Path(__file__).parents[2]


def test_memory_plan_bench_prints_the_figures_and_skips_missing_models(tmp_path):
    trace = tmp_path / "trace.json"
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "memory_plan.py"),
                        "--model", "resnet_block,no_such_model", "--batch", "1,2", "--check",
                        "--trace", str(trace)], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert "resnet_block batch 2: 3 tasks" in r.stdout
    for label in ("best-fit", "size-class", "auto", "streams+auto", "max |ours - eager|",
                  "verified"):
        assert label in r.stdout
    assert "skip: no model 'no_such_model' in test.models.ZOO" in r.stdout
    assert trace.read_text().startswith('{"traceEvents"')


def test_suite_smoke_prints_the_table_and_writes_json(tmp_path):
    import json

    out = tmp_path / "suite.json"
    r = subprocess.run([sys.executable, "-m", "bench.suite", "--smoke", "--no-ort",
                        "--json", str(out)], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert "ours ms" in r.stdout and "compile by stage (s): tiny_resnet_bs1: import" in r.stdout
    assert "paired round by round, q1 median q3: tiny_resnet_bs1: eager" in r.stdout
    data = json.loads(out.read_text())
    assert data["onednn_primitives"] == onednn.version()  # which conv path was measured
    rows = data["rows"]
    assert [row["model"] for row in rows] == ["tiny_resnet_bs1", "bert_tiny"]
    for row in rows:
        assert set(row["compile_s"]) == {"import", "passes", "lowering", "planning", "load",
                                         "total"}
        assert row["latency_ms"]["ours"] > 0 and row["ratio_ours_to"]["eager"] > 0
        q1, q2, q3 = row["paired_ratio_quartiles"]["eager"]
        assert 0 < q1 <= q2 <= q3
        assert row["memory_mb"]["arena"] <= row["memory_mb"]["naive"]
        assert row["gflop"] > 0 and row["gflop_per_s"]["ours"] == pytest.approx(
            row["gflop"] / row["latency_ms"]["ours"] * 1e3)
    tiny_resnet = rows[0]["gflop"]  # 2 images, 3x32x32: its convs and the fc, counted by hand
    assert tiny_resnet == pytest.approx(2 * (
        16 * 3 * 49 * 16 * 16 + 2 * 16 * 16 * 9 * 8 * 8            # stem, layer1
        + 32 * 16 * 9 * 4 * 4 + 32 * 32 * 9 * 4 * 4 + 32 * 16 * 4 * 4  # layer2 + shortcut
        + 10 * 32) * 2 / 1e9)
    assert all(v > 0 for v in data["attainable_gflop_per_s"].values())
    assert "sgemm 2048^3 (torch)" in data["attainable_gflop_per_s"]
    assert "GFLOP/s (conv and matmul FLOPs / latency): tiny_resnet_bs1" in r.stdout
    # ours in bf16 beside fp32, the path its cube tasks took, and the ISA line
    assert all(row["latency_ms"]["ours_bf16"] > 0 for row in rows)
    paths = rows[0]["bf16_cube_paths"]
    assert paths and all(key.startswith("bf16 ") for key in paths)
    assert data["isa"].startswith("CPU ") and "oneDNN conv fp32" in data["isa"]
    assert data["isa"] in r.stdout
    try:
        import openvino  # noqa: F401
    except ImportError:
        assert "OpenVINO skipped: openvino is not installed" in r.stdout
    else:
        for row in rows:
            assert "openvino_f32" in row["latency_ms"]
            assert row["openvino_precision"]["openvino_f32"] == "f32"
            if "openvino_default" not in row["latency_ms"]:  # left out, and said so
                assert "openvino_default: OpenVINO cannot compile this model here" in r.stdout
                continue
            assert row["targets"]["ours_bf16/openvino_default"] == pytest.approx(
                row["latency_ms"]["ours_bf16"] / row["latency_ms"]["openvino_default"])



def test_compile_scaling_smoke_times_every_stage_and_the_growth(tmp_path):
    out = tmp_path / "scaling.json"
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "compile_scaling.py"), "--smoke",
                        "--json", str(out)], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    import json

    data = json.loads(out.read_text())
    stages = ["build", "print", "parse", "fold-quantized", "canonicalize", "constant-fold",
              "fold-batch-norm", "cse", "merge-parallel-linears", "op-fusion", "dce",
              "hardware-mapping",
              "lower-to-ascend", "task-parallel", "memory-reuse", "load"]
    assert [r["case"] for r in data["results"]] == [
        f"{shape}-{n}" for shape in ("chain", "residual", "branches") for n in (60, 200)]
    for result in data["results"]:
        assert [s["stage"] for s in result["stages"]] == stages
        assert result["ops"] >= result["size"]
    assert set(data["growth"]) == {"chain", "residual", "branches"}
    assert [row["stage"] for row in data["growth"]["residual"]] == [*stages, "total"]
    assert "residual: growth" in r.stdout


def test_synthetic_graphs_verify_and_compile_to_the_reference_numbers():
    """The generated graphs are valid GE IR, and compiled they compute what the
    reference evaluator computes on the uncompiled graph."""
    import torch

    from bench import synthetic
    from ge_dialect.verifier import verify
    from npu_graph.compiler import lower, optimize, plan_device
    from runtime.executor import Executable
    from runtime.reference import evaluate

    for shape in synthetic.SHAPES:
        module = synthetic.build(shape, 120)
        verify(module)
        assert synthetic.count_ops(module) >= 120
        x = torch.randn(*module.ops.first.function_type.inputs.data[0].get_shape())
        (expected,) = evaluate(module, x)
        (got,) = Executable(plan_device(lower(optimize(module)))).run(x)
        torch.testing.assert_close(got, expected, rtol=1e-4, atol=1e-4)


def test_gemm_micro_forms_compute_the_same_linear():
    from bench import gemm_micro

    forms = gemm_micro.candidates(rows=6, k=16, n=24)  # asserts each against x @ W^T + b
    assert "addmm" in forms and len(forms) >= 1


def test_task_times_warm_times_every_task_and_leaves_the_executable_correct():
    import torch

    from bench.runtime_levers import task_times
    from bench.suite import _models, compile_ours

    model, inputs = _models(True)["tiny_resnet_bs1"]()
    model.eval()
    executable = compile_ours(model, inputs)[0].executable
    for warm in (False, True):
        rows = task_times(executable, inputs, 2, warm=warm)
        assert sorted(name for name, _, _ in rows) == sorted(t.name for t in executable.tasks)
        assert all(ms > 0 for _, _, ms in rows)
    # warm mode runs in-place accumulations twice; the next run starts over
    with torch.no_grad():
        torch.testing.assert_close(executable.run(*inputs)[0], model(*inputs),
                                   rtol=1e-4, atol=1e-4)


def test_openvino_compare_times_every_task_kind_inside_correct_runs():
    import torch

    from bench.openvino_compare import timed_by_kind
    from bench.suite import _models, compile_ours

    model, inputs = _models(True)["tiny_resnet_bs1"]()
    model.eval()
    executable = compile_ours(model, inputs)[0].executable
    seconds = timed_by_kind(executable)
    with torch.no_grad():
        torch.testing.assert_close(executable.run(*inputs)[0], model(*inputs),
                                   rtol=1e-4, atol=1e-4)
    kinds = {t.name.rsplit("_", 1)[0] for t in executable.tasks}
    assert set(seconds) == kinds and all(s > 0 for s in seconds.values())


def test_conv_micro_blocked_forms_compute_the_same_conv():
    import pytest
    import torch

    from bench import conv_micro
    from runtime.host import onednn

    if onednn.block() is None:
        pytest.skip("no native blocked kernel on this CPU")
    runs, ref, out = conv_micro.blocked_candidates(2, 16, 16, 6, 3, 1)
    for name in ("blocked", "via_nhwc"):
        out.data.fill_(float("nan"))
        runs[name]()
        torch.testing.assert_close(out.logical(), ref, rtol=1e-4, atol=1e-4, msg=name)


def test_paired_quartiles_are_of_the_round_by_round_ratios():
    from bench.suite import paired_quartiles

    # the machine slows down 2x halfway: each round's ratio stays 1.5
    ours, peer = [3.0, 3.0, 6.0, 6.0, 6.0], [2.0, 2.0, 4.0, 4.0, 4.0]
    assert paired_quartiles(ours, peer) == [1.5, 1.5, 1.5]
    q1, q2, q3 = paired_quartiles([1.0, 2.0, 3.0, 4.0, 5.0], [1.0] * 5)
    assert (q1, q2, q3) == (2.0, 3.0, 4.0)
    assert paired_quartiles([2.0], [1.0]) == [2.0, 2.0, 2.0]


def test_parallel_bench_reports_cards_and_pipelining(tmp_path):
    import json

    out = tmp_path / "parallel.json"
    r = subprocess.run([sys.executable, "-m", "bench.parallel", "--model", "tiny_resnet",
                        "--batch", "2", "--iterations", "1", "--json", str(out)],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr
    data = json.loads(out.read_text())
    assert set(data["measured_items_per_s"]) == {"1 card", "data parallel, 2 ranks",
                                                 "pipeline parallel, 2 ranks"}
    sim = data["simulated_items_per_s"]
    assert sim["data parallel, 2 cards"] > sim["1 card"]
    assert sim["one card, batches pipelined (copies overlap compute)"] >= \
        sim["one card, batches one at a time (with PCIe copies)"]
    assert "host: run_pipelined" in r.stdout and "gain" in r.stdout


def test_suite_int8_smoke_adds_the_int8_columns_and_says_why_a_peer_is_absent(tmp_path):
    """`bench.suite --int8` on the tiny ResNet: ours_int8 timed beside fp32 and
    checked against eager; ORT's int8 where onnxruntime is installed (else the
    note); the NNCF peer pointed at a Python that is not there, so its row
    says so instead of failing (the peer itself: the next test)."""
    import json
    import os

    out = tmp_path / "suite.json"
    env = {**os.environ, "GE_INT8_PEER_PYTHON": str(tmp_path / "no-venv" / "python")}
    r = subprocess.run([sys.executable, "-m", "bench.suite", "--smoke", "--int8", "--no-bf16",
                        "--models", "tiny_resnet_bs1", "--calibration-batches", "2",
                        "--json", str(out)], capture_output=True, text=True, cwd=ROOT, env=env)
    assert r.returncode == 0, r.stderr
    (row,) = json.loads(out.read_text())["rows"]
    int8 = row["int8"]
    assert row["latency_ms"]["ours_int8"] > 0
    assert int8["ratios"]["vs_ours"] == pytest.approx(
        row["latency_ms"]["ours_int8"] / row["latency_ms"]["ours"])
    assert int8["rel_error_vs_eager"]["ours_int8"] < 0.05  # int8, not something else
    assert int8["quantize_s"]["ours_int8"] > 0 and sum(int8["matrix_ops"]["ours_int8"].values()) == 7
    assert "int8 (medians in ms" in r.stdout and "int8/best peer" in r.stdout
    assert "nncf_int8" not in row["latency_ms"]
    assert int8["notes"]["nncf_int8"].startswith("no Python for the NNCF peer at")
    assert "nncf_int8: n/a, no Python for the NNCF peer" in r.stdout
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        assert int8["notes"]["ort_int8"].startswith("onnxruntime is not installed")
    else:
        assert row["latency_ms"]["ort_int8"] > 0
        assert int8["ratios"]["best_peer"] == "ort_int8"
        # int8, not fp32 and not noise: ORT's MinMax calibration on two batches
        # gives 0.058 on this model (onnxruntime 1.32)
        assert 1e-4 < int8["rel_error_vs_eager"]["ort_int8"] < 0.1
        assert any(op.startswith("QLinear") or op == "QGemm" for op in int8["matrix_ops"]["ort_int8"])


def test_nncf_worker_quantizes_and_runs_int8_where_its_venv_exists(tmp_path):
    """bench/int8_worker.py in the NNCF venv ($GE_INT8_PEER_PYTHON or
    /work/venv-nncf; bench-only, absent in a fresh CI): the tiny ResNet from
    its ONNX file, int8 convs in OpenVINO's runtime model, outputs near eager's."""
    import torch

    from bench import int8_peers
    from bench.suite import _models, export_onnx

    if int8_peers.nncf_missing():
        pytest.skip(int8_peers.nncf_missing())
    model, inputs = _models(True)["tiny_resnet_bs1"]()
    model.eval()
    path, _ = export_onnx(model, inputs, str(tmp_path))
    peer = int8_peers.NNCFPeer(path, inputs, int8_peers.calibration_batches(inputs, 2),
                               str(tmp_path), threads=1, transformer=False)
    try:
        assert peer.error is None, peer.error
        layers = peer.ready["int8_layers"]
        assert sum(n for k, n in layers.items() if k.split()[0] in ("i8", "u8")) >= 6, layers
        assert peer.run() > 0
        with torch.no_grad():
            want = model(*inputs)
        assert int8_peers.relative_error(peer.outputs(str(tmp_path)), want) < 0.05
    finally:
        peer.close()


def test_nncf_peer_in_a_python_without_nncf_is_a_note_not_a_crash(tmp_path, monkeypatch):
    """The peer Python exists but lacks nncf (this venv): the worker answers
    with the import error, which becomes the column's note."""
    import importlib.util

    from bench import int8_peers
    from bench.suite import _models, export_onnx

    if importlib.util.find_spec("nncf") is not None:
        pytest.skip("this Python has nncf")
    monkeypatch.setenv(int8_peers.PEER_PYTHON_ENV, sys.executable)
    model, inputs = _models(True)["tiny_resnet_bs1"]()
    path, _ = export_onnx(model.eval(), inputs, str(tmp_path))
    peer = int8_peers.NNCFPeer(path, inputs, int8_peers.calibration_batches(inputs, 1),
                               str(tmp_path), threads=1, transformer=False)
    assert peer.error == "NNCF peer failed: ModuleNotFoundError: No module named 'nncf'"
    assert peer.worker is None
