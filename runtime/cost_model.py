"""Roofline cost model of one Ascend task, and the hardware table it reads.

A task's device time is `launch + max(compute time, memory time)`: compute
at the unit's peak times an efficiency, memory at HBM bandwidth over the
bytes the task reads and writes. The figures are per chip; the foundation
assumes a task's tiles spread over all cores of its unit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.ir import Operation

from ge_dialect import ascend, ge


@dataclass(frozen=True)
class Hardware:
    name: str
    ai_cores: int            # Da Vinci cores (each has a cube and a vector unit)
    clock_ghz: float
    cube_fp16_flops_per_cycle: int  # per core: 16x16x16 MACs x 2
    vector_bytes_per_cycle: int     # per core: 2048-bit vector unit
    hbm_gb_s: float
    launch_us: float
    cube_efficiency: float = 0.6
    vector_efficiency: float = 0.5


HARDWARE = {
    # Ascend 910: 32 Da Vinci cores; cube 16x16x16 fp16 MACs/cycle/core; 2048-bit vector
    # unit (Liao et al., "Ascend: a Scalable and Unified Architecture for Ubiquitous Deep
    # Neural Network Computing", HPCA 2021). 256 TFLOPS fp16 => ~1.0 GHz clock
    # (Huawei Ascend 910 product brief). HBM2: 1.2 TB/s (same brief, 4 stacks).
    # launch_us and the efficiencies are our assumptions, not vendor figures.
    "ascend910": Hardware("ascend910", ai_cores=32, clock_ghz=1.0,
                          cube_fp16_flops_per_cycle=16 * 16 * 16 * 2,
                          vector_bytes_per_cycle=256, hbm_gb_s=1200.0, launch_us=3.0),
}
DEFAULT_HARDWARE = HARDWARE["ascend910"]


def _numel(value) -> int:
    n = 1
    for d in value.type.get_shape():
        n *= d
    return n


def _conv_flops(op: ge.Conv2dOp) -> int:
    oc, icg, kh, kw = op.weight.type.get_shape()
    return 2 * _numel(op.output) * icg * kh * kw


def _matmul_flops(op: ge.MatMulOp) -> int:
    return 2 * _numel(op.output) * op.lhs.type.get_shape()[-1]


def _linear_flops(op: ge.LinearOp) -> int:
    return 2 * _numel(op.output) * op.weight.type.get_shape()[1]


# Cube ops: FLOPs on the cube unit. Anything else counts one vector op per output element.
CUBE_FLOPS: dict[type[Operation], Callable[[Operation], int]] = {
    ge.Conv2dOp: _conv_flops,
    ge.MatMulOp: _matmul_flops,
    ge.LinearOp: _linear_flops,
}


def task_time_us(task: ascend.TaskOp, hw: Hardware = DEFAULT_HARDWARE) -> float:
    cube_flops = vector_ops = 0
    for op in task.body.block.ops:
        if isinstance(op, ge.YieldOp):
            continue
        flops = CUBE_FLOPS.get(type(op))
        if flops is not None:
            cube_flops += flops(op)
        else:
            vector_ops += sum(_numel(r) for r in op.results)
    cycles_per_us = hw.clock_ghz * 1e3
    cube_peak = hw.ai_cores * hw.cube_fp16_flops_per_cycle * cycles_per_us * hw.cube_efficiency
    # Elements per cycle at fp32 through the vector unit.
    vector_peak = (hw.ai_cores * hw.vector_bytes_per_cycle / 4 * cycles_per_us
                   * hw.vector_efficiency)
    compute = cube_flops / cube_peak + vector_ops / vector_peak
    moved = sum(ascend.nbytes(v.type) for v in (*task.ins, *task.outs))
    memory = moved / (hw.hbm_gb_s * 1e3)  # GB/s -> bytes/us
    return hw.launch_us + max(compute, memory)
