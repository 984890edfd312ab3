"""The chips the compiler targets: one table of hardware figures, each with its source.

Every figure a pass, lowering or the simulated device reads about a chip
(core counts by unit group, clock, cube and vector throughput, on-chip buffer
sizes, HBM, PCIe and card-to-card bandwidth) lives here, so compiler and
simulation cannot disagree. The few figures that are our assumptions, not
vendor figures, say so.
"""

from __future__ import annotations

from dataclasses import dataclass

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
