"""Roofline cost model of one Ascend task on a chip of the hardware table (target/hardware.py).

A task's device time is `launch + max(compute, memory)` on the `block_dim`
cores its tiles can use:

- tiles (cheap tiling): the cube computes 16x16 output fractals, one
  16x16x16 step per cycle, so a matrix product M x N x K is
  ceil(M/16) * ceil(N/16) fractals of ceil(K/16) cycles each; the vector
  unit works in repeats of `vector_bytes_per_cycle` bytes. A task can use
  at most one core per tile (`block_dim`), and its cores work in waves:
  ceil(tiles / block_dim) tiles each. Small tasks thus leave cores idle,
  which is what independent branches on other streams can use.
- compute: those waves at the clock, times an efficiency. A fused task's
  vector work overlaps its cube work (the Da Vinci pipelines run side by
  side; Hot Chips 31: "execution time of vector is hidden by execution time
  of cube"), so compute is the larger of the two, not their sum.
- memory: the bytes the task reads and writes at HBM bandwidth. Assumption:
  bandwidth is shared evenly by the cores of a group, so a task on
  `block_dim` of `n` cores gets `block_dim / n` of it.

The on-chip buffer sizes (L0A/L0B/L0C, L1, UB) are in the table for
reference and for a finer tiler; this model does not read them yet.
`estimate` gives the figures for one task; hardware-mapping, task-parallel,
pipeline-partition and the simulated device (runtime/sim/) all read it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.ir import Operation, SSAValue

from ge_dialect import ascend, ge
from target.hardware import CUBE_DTYPE_CYCLES, DEFAULT_HARDWARE, Hardware

FRACTAL = 16  # the cube multiplies 16x16 fp16 fractals: 16x16x16 MACs per cycle


@dataclass(frozen=True)
class Estimate:
    pool: str          # core group: ai_core, vector_core or ai_cpu
    block_dim: int     # cores the task's tiles can use
    cube_flops: int
    vector_ops: int
    bytes_moved: int
    time_us: float


ShapeOf = Callable[[SSAValue], Sequence[int]]


def static_shape(value: SSAValue) -> tuple[int, ...]:
    """The shape in the value's type; an unknown `?` dim counts as 1."""
    return tuple(max(d, 1) for d in value.type.get_shape())


def _numel(value: SSAValue, shape_of: ShapeOf = static_shape) -> int:
    n = 1
    for d in shape_of(value):
        n *= d
    return n


def _conv_work(op: ge.Conv2dOp, shape_of: ShapeOf) -> tuple[int, int, int]:
    """(M, N, K) of the implicit GEMM: output pixels x output channels x window."""
    oc, icg, kh, kw = shape_of(op.weight)
    out = shape_of(op.output)
    pixels = _numel(op.output, shape_of) // (out[1] * out[4] if len(out) == 5 else oc)
    return pixels, oc, icg * kh * kw


def _conv_nd_work(op: ge.ConvNdOp, shape_of: ShapeOf) -> tuple[int, int, int]:
    """1-D and 3-D convolutions: output positions x output channels x window."""
    weight = shape_of(op.weight)
    window = 1
    for d in weight[1:]:
        window *= d
    return _numel(op.output, shape_of) // weight[0], weight[0], window


def _conv_transpose_work(op: ge.ConvTranspose2dOp, shape_of: ShapeOf) -> tuple[int, int, int]:
    """Every input pixel meets every weight element of its group once."""
    ic, ocg, kh, kw = shape_of(op.weight)
    return _numel(op.input, shape_of) // ic, ocg * kh * kw, ic


def _matmul_work(op: ge.MatMulOp, shape_of: ShapeOf) -> tuple[int, int, int]:
    """torch.matmul: a 1-D right operand is a column (N = 1), so vector . vector
    (a 0-d result) is one row times one column."""
    n = shape_of(op.output)[-1] if len(shape_of(op.rhs)) > 1 else 1
    return _numel(op.output, shape_of) // n, n, shape_of(op.lhs)[-1]


def _linear_work(op: ge.LinearOp, shape_of: ShapeOf) -> tuple[int, int, int]:
    n = shape_of(op.output)[-1]
    return _numel(op.output, shape_of) // n, n, shape_of(op.weight)[1]


# Cube ops: the (M, N, K) of their matrix product. Any other op counts one vector
# op per output element.
CUBE_WORK: dict[type[Operation], Callable[[Operation, ShapeOf], tuple[int, int, int]]] = {
    ge.Conv2dOp: _conv_work,
    ge.ConvTranspose2dOp: _conv_transpose_work,
    ge.Conv1dOp: _conv_nd_work,
    ge.Conv3dOp: _conv_nd_work,
    ge.MatMulOp: _matmul_work,
    ge.LinearOp: _linear_work,
    ge.WeightQuantLinearOp: _linear_work,  # int8 weight: the bytes count it, not the cube
    ge.QuantizedConv2dOp: _conv_work,      # int8 input: CUBE_DTYPE_CYCLES["i8"], twice fp16's rate
    ge.QuantizedLinearOp: _linear_work,
}


def cube_cycles(operand: SSAValue) -> float:
    """Cycles per fractal step relative to fp16 for a product on this operand
    (CUBE_DTYPE_CYCLES; another type counts as fp32)."""
    element = getattr(operand.type, "element_type", None)
    return CUBE_DTYPE_CYCLES.get(str(element), CUBE_DTYPE_CYCLES["f32"])


def _element_bytes(value: SSAValue) -> int:
    element = getattr(value.type, "element_type", None)
    return (element.bitwidth + 7) // 8 if hasattr(element, "bitwidth") else 4


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def estimate_ops(ops: list[Operation], unit: str, bytes_moved: int,
                 hw: Hardware = DEFAULT_HARDWARE, shape_of: ShapeOf = static_shape) -> Estimate:
    """Roofline estimate of running `ops` as one kernel on `unit`."""
    cube = []          # (fractals, cycles per fractal) per matrix product
    cube_flops = vector_ops = vector_half = 0
    for op in ops:
        work = CUBE_WORK.get(type(op))
        if work is not None:
            m, n, k = work(op, shape_of)
            cube_flops += 2 * m * n * k
            cycles = _ceil(k, FRACTAL) * FRACTAL**3 / hw.cube_macs_per_cycle
            cube.append((_ceil(m, FRACTAL) * _ceil(n, FRACTAL),
                         cycles * cube_cycles(op.operands[0])))
        else:
            elements = sum(_numel(r, shape_of) for r in op.results)
            vector_ops += elements
            # the 256 B vector repeat holds 64 fp32 or 128 fp16/bf16 lanes
            half = all(_element_bytes(r) == 2 for r in op.results)
            vector_half += elements if half else 0
    lanes = hw.vector_bytes_per_cycle // 4  # fp32 elements per repeat
    repeats = _ceil(vector_ops - vector_half, lanes) + _ceil(vector_half, 2 * lanes)
    pool = hw.pool_of(unit)
    cores = hw.pool_size(pool)
    tiles = max((f for f, _ in cube), default=repeats)
    block_dim = max(1, min(cores, tiles))
    cycles_per_us = hw.clock_ghz * 1e3
    cube_us = sum(_ceil(f, block_dim) * c for f, c in cube) / (cycles_per_us
                                                               * hw.cube_efficiency)
    vector_us = _ceil(repeats, block_dim) / (cycles_per_us * hw.vector_efficiency)
    memory_us = bytes_moved / (hw.hbm_gb_s * 1e3 * block_dim / cores)  # GB/s -> bytes/us
    time = hw.launch_us + max(cube_us, vector_us, memory_us)
    return Estimate(pool, block_dim, cube_flops, vector_ops, bytes_moved, time)


def body_ops(task: ascend.TaskOp) -> list[Operation]:
    """Every computing op of the body. Control-flow regions count once each: a
    branch not taken or a loop run several times is not modelled."""
    return [op for op in task.body.walk()
            if op is not task and not op.regions and not isinstance(op, ge.YieldOp)]


def _nbytes(value: SSAValue, shape_of: ShapeOf) -> int:
    return _element_bytes(value) * _numel(value, shape_of)


def estimate_graph_op(op: Operation, unit: str, hw: Hardware = DEFAULT_HARDWARE) -> Estimate:
    """The estimate the task lowered from a GE op or `ge.fused` group will get:
    the same ops, reading its operands and writing its results (hardware-mapping
    annotates GE IR with it, before there are tasks)."""
    ops = [o for o in op.walk() if not o.regions and not isinstance(o, ge.YieldOp)]
    moved = sum(_nbytes(v, static_shape) for v in (*op.operands, *op.results))
    return estimate_ops(ops, unit, moved, hw)


def estimate(task: ascend.TaskOp, hw: Hardware = DEFAULT_HARDWARE,
             shape_of: ShapeOf = static_shape) -> Estimate:
    """`shape_of` gives concrete shapes when types have `?` dims (the executor
    passes the shapes of a run)."""
    moved = sum(_nbytes(v, shape_of) for v in (*task.ins, *task.outs))
    return estimate_ops(body_ops(task), task.unit.data, moved, hw, shape_of)


def task_time_us(task: ascend.TaskOp, hw: Hardware = DEFAULT_HARDWARE,
                 shape_of: ShapeOf = static_shape) -> float:
    return estimate(task, hw, shape_of).time_us


def transfer_us(nbytes: int, gb_s: float, latency_us: float = 0.0) -> float:
    """Time to move `nbytes` over a link of `gb_s` GB/s (1e9 bytes/s) per direction."""
    return latency_us + nbytes / (gb_s * 1e3)
