"""The int8 columns of `bench.suite --int8`: the calibration data, ONNX
Runtime's static int8 and OpenVINO NNCF's (through bench/int8_worker.py).

All three int8 systems calibrate on the same batches (`calibration_batches`):
ours through `npu_graph.quantize` (minmax), ORT through
`quantize_static` (QDQ, MinMax, int8 weights per channel and activations per
tensor, both symmetric, as ours but for our uint8 where calibration saw no
negative value), NNCF through `nncf.quantize` with its defaults. Each reports which of its matrix ops run int8, so no column calls
float kernels int8.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import numpy as np
import torch

from bench.benchmark import Timed

PEER_PYTHON_ENV = "GE_INT8_PEER_PYTHON"
DEFAULT_PEER_PYTHON = Path("/work/venv-nncf/bin/python")
SETUP_TIMEOUT_S = 1800  # NNCF's calibration of BERT-base on a loaded 2-core machine
MATRIX_OP = re.compile(r"Conv|MatMul|Gemm|Attention")


def calibration_batches(inputs: tuple, count: int, seed: int = 1) -> list[tuple]:
    """`count` batches shaped like `inputs`, from a seed of their own (the timed
    inputs and held-out sets use others): images (4-D float inputs) from
    `image_like`, other float inputs standard normal, token ids uniform
    below the largest id seen, a 0/1 mask as given."""
    g = torch.Generator().manual_seed(seed)

    def like(x: torch.Tensor) -> torch.Tensor:
        if x.dtype.is_floating_point and x.dim() == 4:
            return image_like(x.shape, g).to(x.dtype)
        if x.dtype.is_floating_point:
            return torch.randn(x.shape, generator=g, dtype=x.dtype)
        high = int(x.max()) + 1
        return x.clone() if high <= 2 else torch.randint(0, high, x.shape, generator=g,
                                                         dtype=x.dtype)
    return [tuple(like(x) for x in inputs) for _ in range(count)]


def image_like(shape, generator: torch.Generator) -> torch.Tensor:
    """[N, C, H, W] images with a photo's kind of structure: smooth noise (drawn
    at 1/8 of the size, upsampled bilinearly) plus a little white noise, per
    image mean 0 and std 1. White noise alone would be averaged away by a
    classifier's global pooling, leaving outputs that hardly depend on the
    input; then no error measure would see whether int8 kept the input's
    information."""
    n, c, h, w = shape
    coarse = torch.randn(n, c, max(1, h // 8), max(1, w // 8), generator=generator)
    x = torch.nn.functional.interpolate(coarse, size=(h, w), mode="bilinear",
                                        align_corners=False)
    x = x + 0.1 * torch.randn(shape, generator=generator)
    x = x - x.mean((1, 2, 3), keepdim=True)
    return x / x.std((1, 2, 3), keepdim=True)


def ort_missing() -> str | None:
    try:
        import onnxruntime  # noqa: F401
    except ImportError as e:
        return f"onnxruntime is not installed ({e}); pip install -e '.[bench]'"
    return None


def _input_names(path: str) -> list[str]:
    import onnx

    graph = onnx.load(path, load_external_data=False).graph
    initializers = {i.name for i in graph.initializer}
    return [i.name for i in graph.input if i.name not in initializers]


def ort_int8_model(onnx_path: str, batches: list[tuple], workdir: str, threads: int):
    """(session, input names, matrix ops by type in ORT's optimized graph):
    ONNX Runtime on its statically quantized model, calibrated on `batches`."""
    import onnxruntime as ort
    from onnxruntime.quantization import (CalibrationDataReader, CalibrationMethod,
                                          QuantFormat, QuantType, quantize_static)
    from onnxruntime.quantization.shape_inference import quant_pre_process

    names = _input_names(onnx_path)
    prepared = os.path.join(workdir, "ort_pre.onnx")
    try:  # ORT's advice before quantize_static: shapes inferred, graph simplified
        quant_pre_process(onnx_path, prepared)
    except Exception as e:  # noqa: BLE001 - its failure is not ours to fix; quantize as is
        print(f"ort_int8: quant_pre_process failed ({type(e).__name__}), quantizing the "
              "exported model as it is")
        prepared = onnx_path

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.feeds = iter([{n: x.numpy() for n, x in zip(names, b)} for b in batches])

        def get_next(self):
            return next(self.feeds, None)

    quantized = os.path.join(workdir, "ort_int8.onnx")
    quantize_static(prepared, quantized, Reader(), quant_format=QuantFormat.QDQ,
                    per_channel=True, activation_type=QuantType.QInt8,
                    weight_type=QuantType.QInt8, calibrate_method=CalibrationMethod.MinMax,
                    extra_options={"ActivationSymmetric": True, "WeightSymmetric": True})
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = threads
    optimized = os.path.join(workdir, "ort_int8_optimized.onnx")
    options.optimized_model_filepath = optimized
    session = ort.InferenceSession(quantized, options, providers=["CPUExecutionProvider"])
    return session, names, _matrix_ops(optimized)


def ort_int8_session(onnx_path: str, inputs: tuple, batches: list[tuple], workdir: str,
                     threads: int):
    """(run on `inputs`, seconds to quantize+load, matrix ops by type)."""
    start = time.perf_counter()
    session, names, ops = ort_int8_model(onnx_path, batches, workdir, threads)
    feeds = {n: x.numpy() for n, x in zip(names, inputs)}
    session.run(None, feeds)
    return (lambda: session.run(None, feeds)), time.perf_counter() - start, ops


def _matrix_ops(path: str) -> dict[str, int]:
    """How many convs and matmuls of each op type an ONNX file holds
    (QLinearConv and MatMulIntegerToFloat run int8; Conv and FusedMatMul float)."""
    import onnx

    counts: dict[str, int] = {}
    for node in onnx.load(path, load_external_data=False).graph.node:
        if MATRIX_OP.search(node.op_type):
            counts[node.op_type] = counts.get(node.op_type, 0) + 1
    return counts


def peer_python() -> Path:
    return Path(os.environ.get(PEER_PYTHON_ENV) or DEFAULT_PEER_PYTHON)


def nncf_missing() -> str | None:
    """Why the NNCF column cannot run, or None."""
    python = peer_python()
    if python.exists():
        return None
    if os.environ.get(PEER_PYTHON_ENV):
        return f"no Python for the NNCF peer at {python} (${PEER_PYTHON_ENV})"
    return (f"no Python for the NNCF peer at {python} (set ${PEER_PYTHON_ENV}, or "
            f"python3.11 -m venv {DEFAULT_PEER_PYTHON.parents[1]} && "
            f"{python} -m pip install torch==2.13.0 openvino nncf onnx)")


class NNCFPeer:
    """The NNCF int8 model in its worker process; `error` says why it is not
    there (the venv lacks nncf, quantization failed, ...)."""

    def __init__(self, onnx_path: str, inputs: tuple, batches: list[tuple], workdir: str,
                 threads: int, transformer: bool):
        from bench.llm import Worker

        self.worker, self.error, self.ready = None, nncf_missing(), {}
        if self.error:
            return
        data = os.path.join(workdir, "int8_data.npz")
        arrays = {f"input_{i}": x.numpy() for i, x in enumerate(inputs)}
        arrays.update({f"calib_{b}_{i}": x.numpy() for b, batch in enumerate(batches)
                       for i, x in enumerate(batch)})
        np.savez(data, **arrays)
        argv = [str(peer_python()), "-m", "bench.int8_worker", "--onnx", onnx_path,
                "--data", data, "--threads", str(threads)] + (["--transformer"] if transformer
                                                              else [])
        start = time.perf_counter()
        self.worker = Worker(argv, Path(workdir) / "nncf_worker.log", SETUP_TIMEOUT_S)
        self.seconds = time.perf_counter() - start
        if "error" in self.worker.ready:
            self.error = f"NNCF peer failed: {self.worker.ready['error']}"
            self.close()
        else:
            self.ready = self.worker.ready

    def run(self) -> Timed:
        answer = self.worker.request(op="run")
        if "error" in answer:
            raise RuntimeError(f"the NNCF worker: {answer['error']}")
        return Timed(answer["seconds"])

    def outputs(self, workdir: str) -> list[torch.Tensor]:
        path = os.path.join(workdir, "nncf_outputs.npz")
        answer = self.worker.request(op="outputs", path=path)
        if "error" in answer:
            raise RuntimeError(f"the NNCF worker: {answer['error']}")
        data = np.load(path)
        return [torch.from_numpy(data[k]) for k in sorted(data.files,
                                                            key=lambda k: int(k.split("_")[1]))]

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close()
            self.worker = None


def first_output(value) -> torch.Tensor:
    """The first output of any runner (a tensor, a tuple, ORT's list of arrays)."""
    while isinstance(value, list | tuple):
        value = value[0]
    return torch.as_tensor(np.asarray(value)) if not isinstance(value, torch.Tensor) else value


def relative_error(got, want) -> float:
    """max |got - want| / max |want| over the first output."""
    got, want = first_output(got).float(), first_output(want).float()
    return float((got - want).abs().max() / want.abs().max())
