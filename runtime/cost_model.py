"""Roofline cost model of one Ascend task, and the hardware table it reads.

A task's device time is `launch + max(compute time, memory time)`: compute
at the unit's peak times an efficiency, memory at HBM bandwidth over the
bytes the task reads and writes. The figures are per chip; the foundation
assumes a task's tiles spread over all cores of its unit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.ir import Operation, SSAValue

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


ShapeOf = Callable[[SSAValue], Sequence[int]]


def static_shape(value: SSAValue) -> tuple[int, ...]:
    """The shape in the value's type; an unknown `?` dim counts as 1."""
    return tuple(max(d, 1) for d in value.type.get_shape())


def _numel(value: SSAValue, shape_of: ShapeOf) -> int:
    n = 1
    for d in shape_of(value):
        n *= d
    return n


def _conv_flops(op: ge.Conv2dOp, shape_of: ShapeOf) -> int:
    oc, icg, kh, kw = shape_of(op.weight)
    return 2 * _numel(op.output, shape_of) * icg * kh * kw


def _conv_transpose_flops(op: ge.ConvTranspose2dOp, shape_of: ShapeOf) -> int:
    # Every input element meets every weight element of its group once.
    ic, ocg, kh, kw = shape_of(op.weight)
    return 2 * _numel(op.input, shape_of) * ocg * kh * kw


def _matmul_flops(op: ge.MatMulOp, shape_of: ShapeOf) -> int:
    # Batched too: the output counts every batch.
    return 2 * _numel(op.output, shape_of) * shape_of(op.lhs)[-1]


def _linear_flops(op: ge.LinearOp, shape_of: ShapeOf) -> int:
    return 2 * _numel(op.output, shape_of) * shape_of(op.weight)[1]


# Cube ops: FLOPs on the cube unit. Anything else counts one vector op per output element.
CUBE_FLOPS: dict[type[Operation], Callable[[Operation, ShapeOf], int]] = {
    ge.Conv2dOp: _conv_flops,
    ge.ConvTranspose2dOp: _conv_transpose_flops,
    ge.MatMulOp: _matmul_flops,
    ge.LinearOp: _linear_flops,
}


def _body_ops(task: ascend.TaskOp):
    """Every computing op of the body. Control-flow regions count once each: a
    branch not taken or a loop run several times is not modelled."""
    for op in task.body.walk():
        if op is not task and not op.regions and not isinstance(op, ge.YieldOp):
            yield op


def _nbytes(value: SSAValue, shape_of: ShapeOf) -> int:
    element = value.type.element_type
    size = (element.bitwidth + 7) // 8 if hasattr(element, "bitwidth") else 4
    return size * _numel(value, shape_of)


def task_time_us(task: ascend.TaskOp, hw: Hardware = DEFAULT_HARDWARE,
                 shape_of: ShapeOf = static_shape) -> float:
    """Device time of one task; `shape_of` gives concrete shapes when the types
    have `?` dims (the executor passes the shapes of a run)."""
    cube_flops = vector_ops = 0
    for op in _body_ops(task):
        flops = CUBE_FLOPS.get(type(op))
        if flops is not None:
            cube_flops += flops(op, shape_of)
        else:
            vector_ops += sum(_numel(r, shape_of) for r in op.results)
    cycles_per_us = hw.clock_ghz * 1e3
    cube_peak = hw.ai_cores * hw.cube_fp16_flops_per_cycle * cycles_per_us * hw.cube_efficiency
    # Elements per cycle at fp32 through the vector unit.
    vector_peak = (hw.ai_cores * hw.vector_bytes_per_cycle / 4 * cycles_per_us
                   * hw.vector_efficiency)
    compute = cube_flops / cube_peak + vector_ops / vector_peak
    moved = sum(_nbytes(v, shape_of) for v in (*task.ins, *task.outs))
    memory = moved / (hw.hbm_gb_s * 1e3)  # GB/s -> bytes/us
    return hw.launch_us + max(compute, memory)
