"""OpenVINO NNCF's int8 peer for `bench.suite --int8`, in a process of its own.

    $GE_INT8_PEER_PYTHON -m bench.int8_worker --onnx model.onnx --data data.npz --threads 2

NNCF pins its own versions of torch and friends, so it runs in a venv apart
from the project's (/work/venv-nncf, or the Python `$GE_INT8_PEER_PYTHON`
names; docs/BENCHMARKS.md says how to make one). This module imports only
the standard library, NumPy, OpenVINO and NNCF.

The suite hands over the fp32 ONNX file ORT also reads and an .npz with the
calibration batches (`calib_<batch>_<input>`) and the timed inputs
(`input_<input>`), the same arrays our quantize and ORT's calibrate on.
The worker reads the ONNX file with OpenVINO, quantizes it with
`nncf.quantize` (its defaults: the PERFORMANCE preset, symmetric int8,
weights per channel, activations per tensor; `--transformer` passes
`model_type=TRANSFORMER`), compiles it on the CPU plugin with the latency
hint and `--threads` threads, and answers JSON lines on stdout (bench/llm.py
`Worker` is the other side):

    (ready)                     -> {"ready": true, "quantize_s": s, "compile_s": s,
                                    "precision": "bf16", "int8_layers": {...}, "versions": ...}
                                   or {"error": "..."}
    {"op": "run"}               -> {"seconds": s}   one inference, timed here (no pipe)
    {"op": "outputs", "path": p} -> {"ok": true}    the outputs of the timed inputs, as .npz
    {"op": "quit"}
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback

MATRIX_LAYERS = ("Convolution", "FullyConnected", "MatMul", "GroupConvolution")


def load_data(path: str) -> tuple[list[list], list]:
    """(calibration batches, timed inputs) from the suite's .npz."""
    import numpy as np

    data = np.load(path)
    inputs = sorted((k for k in data.files if k.startswith("input_")),
                    key=lambda k: int(k.split("_")[1]))
    batches: dict[int, dict[int, object]] = {}
    for k in data.files:
        if k.startswith("calib_"):
            _, b, i = k.split("_")
            batches.setdefault(int(b), {})[int(i)] = data[k]
    calibration = [[batch[i] for i in sorted(batch)] for _, batch in sorted(batches.items())]
    return calibration, [data[k] for k in inputs]


def layer_precisions(compiled) -> dict[str, int]:
    """How many matrix layers of the compiled model run in each precision
    ("i8 Convolution": 53), from OpenVINO's runtime model: the proof that the
    int8 column ran int8 kernels."""
    counts: dict[str, int] = {}
    for op in compiled.get_runtime_model().get_ordered_ops():
        info = op.get_rt_info()  # values are OVAny: astype(str) reads them
        layer = info["layerType"].astype(str) if "layerType" in info else ""
        if layer not in MATRIX_LAYERS:
            continue
        precision = (info["runtimePrecision"].astype(str) if "runtimePrecision" in info
                     else "?")
        key = f"{precision} {layer}"
        counts[key] = counts.get(key, 0) + 1
    return counts


def setup(args):
    """(infer, ready-line fields): the quantized model compiled, one request."""
    import nncf
    import openvino as ov

    calibration, inputs = load_data(args.data)
    core = ov.Core()
    model = core.read_model(args.onnx)
    start = time.perf_counter()
    extra = {"model_type": nncf.ModelType.TRANSFORMER} if args.transformer else {}
    quantized = nncf.quantize(model, nncf.Dataset(calibration), subset_size=len(calibration),
                              **extra)
    quantize_s = time.perf_counter() - start
    start = time.perf_counter()
    compiled = core.compile_model(quantized, "CPU", {"PERFORMANCE_HINT": "LATENCY",
                                                     "INFERENCE_NUM_THREADS": args.threads})
    request = compiled.create_infer_request()
    request.infer(inputs)
    hint = compiled.get_property("INFERENCE_PRECISION_HINT")
    ready = {"ready": True, "quantize_s": quantize_s, "compile_s": time.perf_counter() - start,
             "precision": hint.get_type_name() if hasattr(hint, "get_type_name") else str(hint),
             "int8_layers": layer_precisions(compiled),
             "versions": f"openvino {ov.__version__.split('-')[0]}, nncf {nncf.__version__}"}
    return (lambda: request.infer(inputs)), ready


def serve(args) -> int:
    """Answer the suite's requests; the protocol goes to the real stdout, and
    anything the libraries print goes to stderr (the suite's log file)."""
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def answer(message: dict) -> None:
        out.write(json.dumps(message) + "\n")
        out.flush()

    try:
        infer, ready = setup(args)
    except Exception as e:  # the row says why; the suite goes on
        traceback.print_exc()
        lines = [line.strip() for line in str(e).splitlines() if line.strip()]
        answer({"error": f"{type(e).__name__}: {lines[-1] if lines else ''}"})
        return 1
    answer(ready)
    for line in sys.stdin:
        request = json.loads(line)
        if request["op"] == "run":
            start = time.perf_counter()
            infer()
            answer({"seconds": time.perf_counter() - start})
        elif request["op"] == "outputs":
            import numpy as np

            results = infer()
            np.savez(request["path"], *list(results.values()))
            answer({"ok": True})
        elif request["op"] == "quit":
            break
        else:
            answer({"error": f"unknown op {request['op']!r}"})
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--onnx", required=True)
    p.add_argument("--data", required=True)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--transformer", action="store_true")
    args = p.parse_args(argv)
    return serve(args)


if __name__ == "__main__":
    sys.exit(main())
