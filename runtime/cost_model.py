"""Roofline cost model of one Ascend task, and the hardware table it reads.

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
`estimate` gives the figures for one task; the executor's scheduler and the
task-parallel pass both read it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.ir import Operation, SSAValue

from ge_dialect import ascend, ge

FRACTAL = 16  # the cube multiplies 16x16 fp16 fractals: 16x16x16 MACs per cycle

# Cube cycles per fractal step by the element type of a matrix product's
# operands, relative to fp16 (`cube_macs_per_cycle` is the fp16 rate).
# - f16 and bf16: the native rate. Ascend 910: 256 TFLOPS fp16 (Hot Chips 31,
#   Da Vinci talk); the 910B's cube takes bf16 at the fp16 rate (CANN's
#   Ascend910B ops-info files list bf16 for MatMul/Conv2D on the cube; Huawei
#   quotes one 16-bit figure for the chip). Both chips are modelled alike.
# - i8: twice the rate: Ascend 910 512 TOPS int8 (Hot Chips 31).
# - f32: not native on the cube: its multipliers are 16-bit-wide arrays, and
#   an fp32 product (24-bit significands) is built from fp16-sized partial
#   products, splitting each operand into a high and a low part (the scheme of
#   split-fp32 GEMMs on 16-bit matrix units: 3-4 products for fp32 accuracy).
#   Modelled as 4x slower. This is our assumption, not a vendor figure; it is
#   why a precision mode that moves the cube ops to 16 bits shortens
#   `execution_time` here as it does on the chip.
CUBE_DTYPE_CYCLES = {"f16": 1.0, "bf16": 1.0, "i8": 0.5, "f32": 4.0}


@dataclass(frozen=True)
class Hardware:
    """One chip's figures. Sources are in the HARDWARE table's comments."""

    name: str
    ai_cores: int             # cores with a cube unit (on 910 they also hold the vector unit)
    vector_cores: int         # vector-only cores; 0 = vector tasks run on the AI Cores
    aicpu_cores: int
    clock_ghz: float
    cube_macs_per_cycle: int  # fp16 multiply-accumulates per core per cycle
    vector_bytes_per_cycle: int  # per core
    l0a_kb: int
    l0b_kb: int
    l0c_kb: int
    l1_kb: int
    ub_kb: int
    hbm_gb_s: float
    pcie_gb_s: float          # host <-> card, per direction (copies in and out)
    link_gb_s: float          # card <-> card (HCCS), per direction, one link
    # Our assumptions, not vendor figures:
    link_latency_us: float = 5.0   # per message on the card-to-card link
    launch_us: float = 3.0         # per-task dispatch overhead
    event_us: float = 1.0          # record -> wait latency across streams
    cube_efficiency: float = 0.6   # fraction of cube peak a real kernel reaches
    vector_efficiency: float = 0.5

    def pool_size(self, pool: str) -> int:
        return {"ai_core": self.ai_cores, "vector_core": self.vector_cores,
                "ai_cpu": self.aicpu_cores}[pool]

    def pool_of(self, unit: str) -> str:
        """The core group a task unit runs on."""
        if unit == "cube" or (unit == "vector" and self.vector_cores == 0):
            return "ai_core"
        return "vector_core" if unit == "vector" else "ai_cpu"

    def pools(self) -> dict[str, int]:
        names = ["ai_core", "vector_core", "ai_cpu"]
        return {p: self.pool_size(p) for p in names if self.pool_size(p) > 0}


HARDWARE = {
    # Ascend 910 (Da Vinci Max cores, coupled cube + vector in one AI Core).
    # - 32 AI Cores, no separate vector cores, 1000 MHz cube clock, L0A 64 KB, L0B 64 KB,
    #   L0C 256 KB, L1 1 MB, UB 256 KB, 4 AI CPU cores: CANN platform config
    #   Ascend910A.ini (ai_core_cnt, vector_core_cnt, cube_freq, l0_a_size, l0_b_size,
    #   l0_c_size, l1_size, ub_size, ai_cpu_cnt).
    # - cube 16x16x16 = 4096 fp16 MACs/cycle, 2048-bit (256 B) vector unit: Hot Chips 31
    #   Da Vinci talk; Liao et al., HPCA 2021. Check: 32 x 4096 x 2 x 1.0 GHz = 262 TFLOPS,
    #   the advertised 256 TFLOPS fp16.
    # - HBM2, 4 stacks, 1.2 TB/s: Hot Chips 31 / Huawei Ascend 910 product brief.
    # - Host link PCIe 4.0 x16 and three HCCS card-to-card ports of 240 Gb/s each
    #   (Hot Chips 31 Ascend 910 talk, I/O die). PCIe 4.0 x16 carries 16 GT/s x 16
    #   lanes x 128/130 = 31.5 GB/s per direction (PCI-SIG PCIe 4.0 base
    #   specification); 240 Gb/s is 30 GB/s per direction on one HCCS link.
    "ascend910": Hardware(
        "ascend910", ai_cores=32, vector_cores=0, aicpu_cores=4, clock_ghz=1.0,
        cube_macs_per_cycle=16 * 16 * 16, vector_bytes_per_cycle=256,
        l0a_kb=64, l0b_kb=64, l0c_kb=256, l1_kb=1024, ub_kb=256, hbm_gb_s=1200.0,
        pcie_gb_s=31.5, link_gb_s=30.0),
    # Ascend 910B (split architecture: cube cores and vector cores, 1:2).
    # - 24 cube cores, 48 vector cores, 6 AI CPU cores, 1800 MHz, L0A 64 KB, L0B 64 KB,
    #   L0C 128 KB, L1 512 KB, UB 192 KB: CANN platform config Ascend910B2C.ini; the
    #   24|48 core split is also in the ATC --aicore_num documentation.
    # - cube 16x16x16 (cube_m/n/k_size=16 in the same file); 256 B/cycle vector width
    #   (vec_calc_size=128 fp16 lanes, as on 910).
    # - HBM2e 64 GB; 1.6 TB/s is the commonly quoted figure, not found in a vendor
    #   document: treat it as an assumption.
    # - PCIe 5.0 x16 (63 GB/s per direction by the PCIe 5.0 base specification) and
    #   HCCS at 392 GB/s over 7 links (56 GB/s each) are the figures quoted for
    #   Atlas 800T A2 servers, not found in a vendor document: assumptions.
    "ascend910b": Hardware(
        "ascend910b", ai_cores=24, vector_cores=48, aicpu_cores=6, clock_ghz=1.8,
        cube_macs_per_cycle=16 * 16 * 16, vector_bytes_per_cycle=256,
        l0a_kb=64, l0b_kb=64, l0c_kb=128, l1_kb=512, ub_kb=192, hbm_gb_s=1600.0,
        pcie_gb_s=63.0, link_gb_s=56.0),
}
DEFAULT_CHIP = "ascend910"
DEFAULT_HARDWARE = HARDWARE[DEFAULT_CHIP]


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
