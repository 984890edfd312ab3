"""Roofline cost model of one Ascend task, and the hardware table it reads.

A task's device time is `launch + max(compute, memory)` on the `block_dim`
cores its tiles can use:

- compute: cube FLOPs at the cube peak, vector element-ops at the vector
  peak, each times an efficiency, per core times `block_dim`. A fused task's
  vector work overlaps its cube work (the Da Vinci pipelines run side by side;
  Hot Chips 31: "execution time of vector is hidden by execution time of
  cube"), so compute is the larger of the two, not their sum.
- memory: the bytes the task reads and writes at HBM bandwidth. Assumption:
  bandwidth is shared evenly by the cores of the unit, so a task on
  `block_dim` of `n` cores gets `block_dim / n` of it.
- block_dim (tiling): a cube task's output is cut into tiles that fit half of
  L0C (fp32 accumulators, double buffered); a vector task's bytes into
  chunks of half the Unified Buffer. A task uses one core per tile, at most
  all cores of its unit. This is why small tasks leave cores idle and why
  independent branches on other streams can use them.

`estimate` gives all of that for one task; `task_time_us` just the time.
The executor's scheduler and the task-parallel pass both read it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.ir import Operation

from ge_dialect import ascend, ge

KB = 1024
FRACTAL = 16  # the cube multiplies 16x16 fp16 fractals: 16x16x16 MACs per cycle


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
    # Our assumptions, not vendor figures:
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
    "ascend910": Hardware(
        "ascend910", ai_cores=32, vector_cores=0, aicpu_cores=4, clock_ghz=1.0,
        cube_macs_per_cycle=16 * 16 * 16, vector_bytes_per_cycle=256,
        l0a_kb=64, l0b_kb=64, l0c_kb=256, l1_kb=1024, ub_kb=256, hbm_gb_s=1200.0),
    # Ascend 910B (split architecture: cube cores and vector cores, 1:2).
    # - 24 cube cores, 48 vector cores, 6 AI CPU cores, 1800 MHz, L0A 64 KB, L0B 64 KB,
    #   L0C 128 KB, L1 512 KB, UB 192 KB: CANN platform config Ascend910B2C.ini; the
    #   24|48 core split is also in the ATC --aicore_num documentation.
    # - cube 16x16x16 (cube_m/n/k_size=16 in the same file); 256 B/cycle vector width
    #   (vec_calc_size=128 fp16 lanes, as on 910).
    # - HBM2e 64 GB; 1.6 TB/s is the commonly quoted figure, not found in a vendor
    #   document: treat it as an assumption.
    "ascend910b": Hardware(
        "ascend910b", ai_cores=24, vector_cores=48, aicpu_cores=6, clock_ghz=1.8,
        cube_macs_per_cycle=16 * 16 * 16, vector_bytes_per_cycle=256,
        l0a_kb=64, l0b_kb=64, l0c_kb=128, l1_kb=512, ub_kb=192, hbm_gb_s=1600.0),
}
DEFAULT_HARDWARE = HARDWARE["ascend910"]


@dataclass(frozen=True)
class Estimate:
    pool: str          # core group: ai_core, vector_core or ai_cpu
    block_dim: int     # cores the task's tiles can use
    cube_flops: int
    vector_ops: int
    bytes_moved: int
    time_us: float


def _numel(value) -> int:
    n = 1
    for d in value.type.get_shape():
        n *= d
    return n


def _conv_work(op: ge.Conv2dOp) -> tuple[int, int, int]:
    """(FLOPs, M, N) of the implicit GEMM: M = output pixels, N = output channels."""
    oc, icg, kh, kw = op.weight.type.get_shape()
    return 2 * _numel(op.output) * icg * kh * kw, _numel(op.output) // oc, oc


def _matmul_work(op: ge.MatMulOp) -> tuple[int, int, int]:
    n = op.output.type.get_shape()[-1]
    return 2 * _numel(op.output) * op.lhs.type.get_shape()[-1], _numel(op.output) // n, n


def _linear_work(op: ge.LinearOp) -> tuple[int, int, int]:
    n = op.output.type.get_shape()[-1]
    return 2 * _numel(op.output) * op.weight.type.get_shape()[1], _numel(op.output) // n, n


# Cube ops: (FLOPs, M, N) of their matrix product. Any other op counts one vector op
# per output element.
CUBE_WORK: dict[type[Operation], Callable[[Operation], tuple[int, int, int]]] = {
    ge.Conv2dOp: _conv_work,
    ge.MatMulOp: _matmul_work,
    ge.LinearOp: _linear_work,
}


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def cube_tiles(m: int, n: int, hw: Hardware) -> int:
    """Output tiles of an M x N product: fp32 accumulators in half of L0C per tile."""
    fractals = _ceil(m, FRACTAL) * _ceil(n, FRACTAL)
    per_tile = max(1, hw.l0c_kb * KB // 2 // (FRACTAL * FRACTAL * 4))
    return _ceil(fractals, per_tile)


def vector_tiles(nbytes: int, hw: Hardware) -> int:
    """Chunks of half the Unified Buffer (the other half is the next chunk in flight)."""
    return _ceil(nbytes, hw.ub_kb * KB // 2)


def estimate_ops(ops: list[Operation], unit: str, bytes_moved: int,
                 hw: Hardware = DEFAULT_HARDWARE) -> Estimate:
    """Roofline estimate of running `ops` as one kernel on `unit`."""
    cube_flops = vector_ops = tiles = 0
    for op in ops:
        work = CUBE_WORK.get(type(op))
        if work is not None:
            flops, m, n = work(op)
            cube_flops += flops
            tiles = max(tiles, cube_tiles(m, n, hw))
        else:
            vector_ops += sum(_numel(r) for r in op.results)
    pool = hw.pool_of(unit)
    cores = hw.pool_size(pool)
    block_dim = max(1, min(cores, tiles or vector_tiles(bytes_moved, hw)))
    cycles_per_us = hw.clock_ghz * 1e3
    cube_us = cube_flops / (block_dim * hw.cube_macs_per_cycle * 2 * cycles_per_us
                            * hw.cube_efficiency)
    # fp32 elements per cycle through the vector unit.
    vector_us = vector_ops / (block_dim * hw.vector_bytes_per_cycle / 4 * cycles_per_us
                              * hw.vector_efficiency)
    memory_us = bytes_moved / (hw.hbm_gb_s * 1e3 * block_dim / cores)  # GB/s -> bytes/us
    time = hw.launch_us + max(cube_us, vector_us, memory_us)
    return Estimate(pool, block_dim, cube_flops, vector_ops, bytes_moved, time)


def estimate(task: ascend.TaskOp, hw: Hardware = DEFAULT_HARDWARE) -> Estimate:
    ops = [op for op in task.body.block.ops if not isinstance(op, ge.YieldOp)]
    moved = sum(ascend.nbytes(v.type) for v in (*task.ins, *task.outs))
    return estimate_ops(ops, task.unit.data, moved, hw)


def task_time_us(task: ascend.TaskOp, hw: Hardware = DEFAULT_HARDWARE) -> float:
    return estimate(task, hw).time_us
