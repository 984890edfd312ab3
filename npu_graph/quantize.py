"""`npu_graph.quantize(graph, calibration_data, scheme=...)`: static int8
quantization as Ascend's AMCT and ONNX Runtime's quantize_static do it.

1. The float graph is brought to the form it will run in (`ge-O2`:
   constants folded, BatchNorm folded into its conv), so the ranges are
   those of the tensors that will be quantized.
2. Calibration runs it on `calibration_data` with the reference kernels and
   observes, for the input of every matrix op with a constant weight, the
   range [lo, hi]: min and max ("minmax"), or the `percentile` of |x|
   ("percentile", which clips rare outliers), over all the data. It writes
   the range on the op as `ge.calibration_range`; for a residual add's
   shortcut conv (passes/quantize_static.py `residual_shortcut`) also the
   range of its result, as `ge.calibration_output_range`.
3. `quantize-static` inserts the QDQ pairs (passes/quantize_static.py):
   int8 per tensor for activations, int8 per channel for weights.

The result is a GEGraph in QDQ form, which `.optimize()` compiles like any
other; `ge-opt` prints it. An op listed in `keep_float` (by result name)
is not calibrated and stays float.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import torch
from xdsl.dialects.builtin import DenseArrayBase, f64

from ge_dialect import find_func
from npu_graph.graph import GEGraph
from passes.driver.runner import run_pipeline
from passes.pipelines import CALIBRATION_LEVEL, QUANTIZE_STATIC
from passes.quantize_static import OUTPUT_RANGE_ATTR, RANGE_ATTR, quantizable, residual_shortcut
from runtime.program import BlockProgram, check_inputs

SCHEMES = ("minmax", "percentile")
MAX_SAMPLE = 1 << 20  # elements of a tensor the percentile looks at (a strided sample)


class QuantizeError(ValueError):
    """Bad arguments to `quantize`: the message says which and what to pass."""


class _Observer:
    """The running range of one tensor over the calibration batches."""

    def __init__(self, scheme: str, percentile: float):
        self.scheme, self.q = scheme, percentile / 100.0
        self.lo, self.hi, self.amax = float("inf"), float("-inf"), []

    def add(self, x: torch.Tensor) -> None:
        x = x.detach().float().reshape(-1)
        if x.numel() == 0:
            return
        if self.scheme == "minmax":
            self.lo, self.hi = min(self.lo, float(x.min())), max(self.hi, float(x.max()))
        else:
            sample = x[:: max(1, x.numel() // MAX_SAMPLE)].abs()
            self.amax.append(float(torch.quantile(sample, self.q)))

    def range(self) -> tuple[float, float]:
        if self.scheme == "minmax":
            return self.lo, self.hi
        a = sum(self.amax) / len(self.amax)  # the batches' percentiles, averaged
        return -a, a


def _batches(calibration_data) -> list[tuple[torch.Tensor, ...]]:
    batches = [tuple(b) if isinstance(b, list | tuple) else (b,) for b in calibration_data]
    if not batches:
        raise QuantizeError("calibration_data is empty; pass an iterable of input tuples "
                            "(or of tensors, for a graph with one input)")
    return batches


def calibrate(graph: GEGraph, calibration_data: Iterable, scheme: str = "minmax",
              percentile: float = 99.99, keep_float: Sequence[str] = ()) -> int:
    """Observe ranges on `calibration_data` and write them on the matrix ops
    of `graph.module` (in place); the number of ops calibrated."""
    fn = find_func(graph.module, "main")
    block = fn.body.block
    program = BlockProgram(block)
    slot = {v: i for i, v in enumerate(program.slot_values)}
    targets = [op for op in block.ops if quantizable(op)
               and op.results[0].name_hint not in set(keep_float)]
    shortcuts = [op for op in targets if residual_shortcut(op)]
    observers = {slot[v]: _Observer(scheme, percentile)
                 for v in [op.operands[0] for op in targets] + [op.results[0] for op in shortcuts]}
    with torch.no_grad():
        for batch in _batches(calibration_data):
            check_inputs(fn.function_type.inputs.data, batch)
            env = list(batch) + [None] * (program.num_slots - len(batch))
            for s in observers:
                if s < len(batch):
                    observers[s].add(env[s])
            for kernel, ins, outs in program.steps:
                result = kernel(*[env[s] for s in ins])
                results = [result] if len(outs) == 1 else list(result)
                for s, value in zip(outs, results):
                    env[s] = value
                    if s in observers:
                        observers[s].add(value)
    for op in targets:
        lo, hi = observers[slot[op.operands[0]]].range()
        op.attributes[RANGE_ATTR] = DenseArrayBase.from_list(f64, [lo, hi])
    for op in shortcuts:
        lo, hi = observers[slot[op.results[0]]].range()
        op.attributes[OUTPUT_RANGE_ATTR] = DenseArrayBase.from_list(f64, [lo, hi])
    return len(targets)


def quantize(graph: GEGraph, calibration_data: Iterable, scheme: str = "minmax",
             percentile: float = 99.99, keep_float: Sequence[str] = ()) -> GEGraph:
    """`graph` (an NpuGraph or a parsed GEGraph, left unchanged) in int8 QDQ
    form, calibrated on `calibration_data` (an iterable of input tuples, or of
    tensors for a one-input graph). `scheme`: "minmax" or "percentile"."""
    if scheme not in SCHEMES:
        raise QuantizeError(f"scheme={scheme!r} is not known; use one of {', '.join(SCHEMES)}")
    if not 50.0 < percentile <= 100.0:
        raise QuantizeError(f"percentile={percentile} must be in (50, 100]")
    if not isinstance(graph, GEGraph):
        raise QuantizeError(f"quantize takes a GEGraph (NpuGraph(model, ...) or "
                            f"GraphParser().parse_*), got {type(graph).__name__}")
    prepared = GEGraph(run_pipeline(graph.module.clone(), CALIBRATION_LEVEL), graph.name)
    calibrate(prepared, calibration_data, scheme, percentile, keep_float)
    return GEGraph(run_pipeline(prepared.module, QUANTIZE_STATIC), graph.name)
