"""The one pipeline builder: levels, flags, options, ordering rules and defaults.

Everything that decides which passes run, with which options and in which
order, is here; `ge-opt`, the `npu_graph` API and the benchmarks only run
what it returns (with passes.driver.runner.run_pipeline).

- `Pipeline`: what the builder returns, a compile from GE IR to planned
  Ascend IR in three stages, each a ge-opt pipeline string: `ge` (the
  GE-level passes), `lowering` and `device` (streams, events, the memory
  plan); `spec()` joins them into one.
- `LEVELS`: `ge-O0` .. `ge-O3`, each a pass (GeO<n>Pass below) that runs a
  fixed list of GE-level passes, verifying the IR after each one. Any stage
  can be switched off by name, ours or the article's:

      ge-opt model.mlir -p 'ge-O3{disable=op-fusion,ConstantFoldingPass}'

- `build_pipeline(passes, **flags)`: the article's `optimize(...)` call (its
  `enable_*` keywords, a `passes=[...]` list, or both).
- `session_pipeline(options, ge=..., precision_mode=...)`: a GE level (or
  any GE-level pipeline) with GE-style session options, as
  `npu_graph.compiler.compile_model` takes them.
- `precision_passes(mode, hardware)`: what a precision mode adds.
- `device_passes(...)`: the Ascend-level passes.
- `through_device(pipeline)`, `pipeline_parallel_passes(stages)`: a GE
  pipeline taken to planned IR (ge-bisect, ge-fuzz); the cut into pipeline
  stages, then each stage's plan.

The ordering rules, each stated once:
1. GE-level passes, then `lower-to-ascend`, then Ascend-level passes. A
   pass says which it is with its `level` (passes/base.py: GEPass,
   AscendPass, and "lowering" for lower-to-ascend).
2. `precision-mode` runs after op-fusion (a cast between a conv and its BN or
   ReLU would hide both from fusion), then canonicalize, cse and dce cancel
   its cast pairs, then hardware-mapping runs again so its annotations
   describe the new ops.
3. Streams before the memory plan, as GE does, so reuse keeps all their
   parallelism; with memory planning (a budget, or the smallest peak), the
   memory plan first, so tasks can still be reordered.
4. `pipeline-partition` (model parallel) before both: each stage then gets
   its own streams and its own arena (`pipeline_parallel_passes`).
5. Static and dynamic graphs are planned alike: the device stage runs on
   every lowered graph. In a graph with `?` dims it plans the streams and the
   static buffers; the executor places the `ascend.dyn_buffer`s per input
   shape when it runs.
6. `fold-quantized` opens ge-O2 and ge-O3: an imported QDQ model's matrix
   ops fold into int8 cube ops before canonicalize folds the dequantizes of
   their constant weights into float constants (on a graph without QDQ it
   changes nothing).
7. `quantize-weights` (`weight_quant="int8"`) runs after constant-fold,
   which makes the weights constants, and before op-fusion, whose linear
   rules are for float weights.

`layout-transform` (NC1HWC0) is not in a level: the host runtime's 5-D
kernels unpack to NCHW, so it costs host time until they are native; run it
before op-fusion to get it (NC1HWC0_PIPELINE).
`fusion-report=FILE` on a level is passed on to op-fusion (`ge-opt --fusion-report`).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline

from passes import ARTICLE_NAMES, canonical_name, get_all_passes
from passes.base import GEPass
from passes.driver.runner import run_pipeline
from passes.quantize_weights import DEFAULT_GROUP_SIZE
from target.hardware import DEFAULT_CHIP

DEFAULT_LEVEL = "ge-O3"
DEFAULT_MAX_STREAMS = 4  # GE's ge.streamMaxParallelNum default here
LOWERING = "lower-to-ascend"
WEIGHT_QUANT = ("int8",)  # Flags.weight_quant: the weight types quantize-weights writes

LEVELS: dict[str, tuple[str, ...]] = {
    "ge-O0": (),
    "ge-O1": ("canonicalize", "cse", "dce"),
    "ge-O2": ("fold-quantized", "canonicalize", "constant-fold", "fold-batch-norm", "cse", "dce"),
    "ge-O3": ("fold-quantized", "canonicalize", "constant-fold", "fold-batch-norm", "cse",
              "merge-parallel-linears", "op-fusion", "dce", "hardware-mapping"),
}

# Static quantization (npu_graph.quantize): the float graph calibration observes
# (constants folded, BatchNorm in the convs, as AMCT calibrates), then QDQ,
# residuals read as int8 where they are quantized anyway, then each QDQ conv /
# linear folded into one int8 cube op.
CALIBRATION_LEVEL = "ge-O2"
QUANTIZE_STATIC = "quantize-static,cse,quantize-residuals,fold-quantized,dce"

# ge-O3 with the activations in NC1HWC0 from the first conv to the last.
NC1HWC0_PIPELINE = ("ge-O3{disable=op-fusion,hardware-mapping},layout-transform,cse,op-fusion,dce,"
                    "hardware-mapping")

# runtime/gears.py's MERGE_POLICIES (passes do not import the runtime; a test keeps them equal)
GEARS_MERGE_POLICIES = ("zip", "product")

# GE session options (ge_api_types.h spells them so) and ours, as session_pipeline reads them.
SESSION_OPTIONS = ("ge.streamMaxParallelNum", "ge.enableSingleStream",
                   "ge.exec.disableReuseMemory", "ge.exec.precision_mode",
                   "memory_limit_mb", "enable_memory_planning")


@dataclass(frozen=True)
class Pipeline:
    """A compile from GE IR to planned Ascend IR: one ge-opt pipeline per stage.

    Each stage may be empty. `spec()` is the whole compile as one pipeline,
    what `ge-opt -p` reproduces; `stages()` lets a caller run (or time) the
    stages one by one."""

    ge: str
    lowering: str = LOWERING
    device: str = ""

    def stages(self) -> tuple[tuple[str, str], ...]:
        return (("ge", self.ge), ("lowering", self.lowering), ("device", self.device))

    def spec(self) -> str:
        return ",".join(spec for _, spec in self.stages() if spec)


def article_alias(cls: type[ModulePass], alias: str) -> type[ModulePass]:
    """`cls` under the article's name, so `-p OpFusionPass{...}` parses as op-fusion."""
    return dataclass(frozen=True)(
        type(alias, (cls,), {"name": alias, "__doc__": f"Alias of {cls.name}."}))


def check_pass_names(names, known) -> list[str]:
    """Our names for `names`; an unknown one is an error that lists the valid ones."""
    result = [canonical_name(n) for n in names]
    unknown = [n for n, c in zip(names, result) if c not in known]
    if unknown:
        raise ValueError(f"unknown pass name(s) {', '.join(map(repr, unknown))}; known: "
                         f"{', '.join(sorted(known))} (or the article's "
                         f"{', '.join(ARTICLE_NAMES)})")
    return result


def level_of(name: str) -> str:
    """"ge", "lowering" or "ascend": the IR the registered pass `name` works on."""
    return getattr(get_all_passes()[name](), "level", "ge")


def precision_passes(mode: str, hardware: str | None) -> list[str]:
    """A precision mode after the GE-level passes (rule 2); `hardware` is the chip
    to map again for, None if the graph was not mapped."""
    remap = ([] if hardware is None else ["hardware-mapping"] if hardware == DEFAULT_CHIP
             else [f"hardware-mapping{{hardware={hardware}}}"])
    return [f"precision-mode{{mode={mode}}}", "canonicalize", "cse", "dce", *remap]


def with_weight_quant(ge_level: list[str], dtype: str, group_size: int) -> list[str]:
    """`ge_level` with `quantize-weights` where it sees constant float weights:
    after constant folding and before op-fusion (rule 7). A level in the list
    is spelled out as its stages so the pass can sit inside it."""
    names = []
    for name in ge_level:
        base, _, options = name.partition("{")
        if base in LEVELS:
            off = set(options.rstrip("}").removeprefix("disable=").split(",")) if options else set()
            names += [s for s in LEVELS[base] if s not in off]
        else:
            names.append(name)
    quantize = f"quantize-weights{{dtype={dtype} group-size={group_size}}}"
    at = next((i for i, n in enumerate(names) if n in ("op-fusion", "hardware-mapping")),
              len(names))
    return [*names[:at], quantize, *names[at:]]


def mapped_chip(ge: str) -> str | None:
    """The chip the GE-level pipeline `ge` maps the graph for last, None if it does not map."""
    chip = None
    for p in PassPipeline.parse_spec(get_all_passes(), ge).passes:
        if canonical_name(p.name) == "hardware-mapping":
            chip = p.hardware
        elif isinstance(p, OptLevelPass) and "hardware-mapping" in p.stages():
            chip = DEFAULT_CHIP
    return chip


def _memory_reuse(memory_limit_mb: float | None, minimize_peak: bool,
                  strategy: str = "auto") -> str:
    options = [f"strategy={strategy}"] if strategy != "auto" else []
    if memory_limit_mb is not None:
        options.append(f"memory-limit-mb={memory_limit_mb:g}")
    elif minimize_peak:
        options.append("reorder=true")
    return f"memory-reuse{{{' '.join(options)}}}" if options else "memory-reuse"


def device_passes(max_streams: int = DEFAULT_MAX_STREAMS, memory_limit_mb: float | None = None,
                  *, task_parallel: bool = True, memory_reuse: bool = True,
                  minimize_peak: bool = False, strategy: str = "auto") -> list[str]:
    """The Ascend-level passes (rule 3); `memory_limit_mb` is a budget for the
    plan, `minimize_peak` plans for the smallest peak without one, `strategy`
    is memory-reuse's placement strategy."""
    parallel = [f"task-parallel{{max-streams={max_streams}}}"] if task_parallel else []
    if not memory_reuse:
        return parallel
    reuse = _memory_reuse(memory_limit_mb, minimize_peak, strategy)
    if memory_limit_mb is not None or minimize_peak:
        return [reuse, *parallel]
    return [*parallel, reuse]


def through_device(pipeline: str) -> str:
    """`pipeline`, then lowering and the device plan (rule 1) unless it lowers
    itself: what ge-bisect and ge-fuzz check, so lowered and planned IR are
    run, not only GE IR."""
    passes = PassPipeline.parse_spec(get_all_passes(), pipeline).passes
    if any(getattr(p, "level", "ge") != "ge" for p in passes):
        return pipeline
    return Pipeline(pipeline, device=",".join(device_passes())).spec()


def pipeline_parallel_passes(stages: int, max_streams: int = DEFAULT_MAX_STREAMS) -> str:
    """Lowered (or planned) Ascend IR -> `stages` planned pipeline stages: the cut
    first, then each stage's streams and arena (rule 3) on its own."""
    return ",".join([f"pipeline-partition{{stages={stages}}}",
                     *device_passes(max_streams)])


def _on(value) -> bool:
    return str(value).lower() in ("true", "1")


def session_pipeline(options: dict | None = None, *, ge: str = DEFAULT_LEVEL,
                     precision_mode: str | None = None) -> Pipeline:
    """The compile for GE-style session options, after the GE-level pipeline `ge`.

    `ge.streamMaxParallelNum` caps the streams, `ge.enableSingleStream` sets
    the cap to 1, `ge.exec.disableReuseMemory` leaves every buffer its own
    bytes (no memory-reuse), `ge.exec.precision_mode` is `precision_mode`
    (GE's force_fp32, allow_fp32_to_fp16, allow_mix_precision, ...: rule 2,
    mapping again for the chip `ge` maps for). `memory_limit_mb` (with
    `enable_memory_planning`, on by default when a limit is given) is a
    budget for the memory plan. A bad option is a ValueError naming it.
    """
    opts = dict(options or {})
    single = _on(opts.pop("ge.enableSingleStream", False))
    streams = 1 if single else int(opts.pop("ge.streamMaxParallelNum", DEFAULT_MAX_STREAMS))
    reuse = not _on(opts.pop("ge.exec.disableReuseMemory", False))
    mode = opts.pop("ge.exec.precision_mode", None)
    limit = opts.pop("memory_limit_mb", None)
    planning = opts.pop("enable_memory_planning", limit is not None)
    if opts:
        raise ValueError(f"unknown option(s) {', '.join(sorted(opts))}; known: "
                         f"{', '.join(SESSION_OPTIONS)}")
    if mode is not None and precision_mode is not None and mode != precision_mode:
        raise ValueError(f"precision_mode={precision_mode!r} and ge.exec.precision_mode="
                         f"{mode!r} disagree; give one")
    if planning and not reuse:
        raise ValueError("memory planning (memory_limit_mb, enable_memory_planning) is a mode "
                         "of memory reuse, which ge.exec.disableReuseMemory turns off")
    mode = precision_mode or mode
    if mode is not None:
        ge = ",".join(filter(None, [ge, *precision_passes(mode, mapped_chip(ge))]))
    return Pipeline(ge, device=",".join(device_passes(
        streams, limit if planning else None, memory_reuse=reuse)))


@dataclass
class Flags:
    """The keywords of the article's `optimize(...)`; each `enable_*` switches one pass."""

    enable_op_fusion: bool = True
    enable_memory_reuse: bool = True
    enable_task_parallel: bool = True
    enable_hardware_mapping: bool = True
    enable_constant_folding: bool = True
    enable_dead_code_elimination: bool = True
    enable_memory_planning: bool = False
    memory_limit_mb: float | None = None
    precision_mode: str | None = None
    weight_quant: str | None = None
    # inputs per int8 scale along a weight's channel (CANN's antiquant_group_size; 0: one
    # scale per channel)
    weight_quant_group_size: int = DEFAULT_GROUP_SIZE
    max_streams: int = DEFAULT_MAX_STREAMS
    # The runtime's, for a graph with dynamic dims (no pass reads them): the plans it
    # keeps per replica (None: runtime/plan_cache.py's default) and how the gears of
    # several dims combine (TorchAir's inference_config.dynamic_gears_merge_policy).
    plan_cache_size: int | None = None
    dynamic_gears_merge_policy: str = "zip"

    def __post_init__(self):
        size = self.plan_cache_size
        if size is not None and (not isinstance(size, int) or isinstance(size, bool) or size < 1):
            raise ValueError(f"plan_cache_size must be an integer >= 1 (the plans a dynamic "
                             f"graph keeps), got {size!r}")
        if self.dynamic_gears_merge_policy not in GEARS_MERGE_POLICIES:
            raise ValueError(f"dynamic_gears_merge_policy is {self.dynamic_gears_merge_policy!r}"
                             f"; allowed: {', '.join(GEARS_MERGE_POLICIES)}")

    @classmethod
    def parse(cls, keywords: dict) -> Flags:
        known = [f.name for f in fields(cls)]
        bad = sorted(set(keywords) - set(known))
        if bad:
            raise ValueError(f"unknown optimize() keyword(s) {', '.join(bad)}; known: "
                             f"{', '.join(known)}")
        flags = cls(**keywords)
        g = flags.weight_quant_group_size
        if isinstance(g, bool) or not isinstance(g, int) or g < 0:
            raise ValueError(f"weight_quant_group_size must be an integer >= 0 (0: one scale "
                             f"per output channel), got {g!r}")
        if flags.weight_quant not in (None, *WEIGHT_QUANT):
            raise ValueError(f"weight_quant={flags.weight_quant!r} is not supported; allowed: "
                             f"{', '.join(WEIGHT_QUANT)} (or None: float weights)")
        return flags

    def switched_off(self) -> set[str]:
        off = {"op-fusion": self.enable_op_fusion, "memory-reuse": self.enable_memory_reuse,
               "task-parallel": self.enable_task_parallel,
               "hardware-mapping": self.enable_hardware_mapping,
               "constant-fold": self.enable_constant_folding,
               "dce": self.enable_dead_code_elimination}
        return {name for name, on in off.items() if not on}

    def planning(self) -> bool:
        """Memory planning (GE's): within `memory_limit_mb` if given, else for the
        smallest peak. It is a mode of memory-reuse, so that must be on."""
        planning = self.enable_memory_planning or self.memory_limit_mb is not None
        if planning and not self.enable_memory_reuse:
            raise ValueError("memory planning is a mode of the memory-reuse pass "
                             "(MemoryReusePass); enable it to plan memory")
        if self.memory_limit_mb is not None and not self.memory_limit_mb > 0:
            raise ValueError(f"memory_limit_mb must be > 0, got {self.memory_limit_mb}")
        return planning


def _with_options(name: str, flags: Flags, planning: bool) -> str:
    if name == "task-parallel":
        return f"{name}{{max-streams={flags.max_streams}}}"
    if name == "memory-reuse":
        return _memory_reuse(flags.memory_limit_mb, planning)
    return name


def build_pipeline(passes: list[str] | None = None, **keywords) -> Pipeline:
    """The compile for an article-style call; a bad name or flag is a ValueError.

    Without `passes`, the default level and `device_passes`; with them, the
    given passes in the given order (levels get the switches as `disable=`),
    split by rule 1 around `lower-to-ascend`."""
    flags = Flags.parse(keywords)
    off = flags.switched_off()
    planning = flags.planning()
    if passes is None:
        ge_level = [n for n in LEVELS[DEFAULT_LEVEL] if n not in off]
        device = device_passes(flags.max_streams, flags.memory_limit_mb,
                               task_parallel="task-parallel" not in off,
                               memory_reuse="memory-reuse" not in off, minimize_peak=planning)
    else:
        names = [n for n in check_pass_names(list(passes), set(get_all_passes()))
                 if n not in off]
        if planning and "memory-reuse" not in names:
            raise ValueError("memory planning is a mode of the memory-reuse pass "
                             "(MemoryReusePass); enable it to plan memory")
        ge_level = [f"{n}{{disable={','.join(sorted(off))}}}" if n in LEVELS and off else n
                    for n in names if level_of(n) == "ge"]
        device = [_with_options(n, flags, planning) for n in names if level_of(n) == "ascend"]
    if flags.weight_quant is not None:
        ge_level = with_weight_quant(ge_level, flags.weight_quant,
                                     flags.weight_quant_group_size)
    if flags.precision_mode is not None:
        mapped = "hardware-mapping" in ge_level
        ge_level = [n for n in ge_level if n != "hardware-mapping"]
        ge_level += precision_passes(flags.precision_mode, DEFAULT_CHIP if mapped else None)
    return Pipeline(",".join(ge_level), device=",".join(device))


@dataclass(frozen=True)
class OptLevelPass(GEPass):
    """Base of the ge-O<n> passes: run STAGES minus `disable`."""

    STAGES: ClassVar[tuple[str, ...]] = ()
    disable: tuple[str, ...] = ()
    fusion_report: str | None = None

    def __post_init__(self):
        # Checked when the pipeline is built: a bad name is a user error up front.
        # Resolving the stages' classes imports their modules (constant-fold
        # brings in torch) now, so --timing counts that as start-up, not as a pass.
        registry = get_all_passes()
        for name in self.stages():
            registry[name]()

    def stages(self) -> list[str]:
        known = set(get_all_passes()) | set(ARTICLE_NAMES.values())
        off = set(check_pass_names(self.disable, known))
        return [s for s in self.STAGES if s not in off]

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        registry = get_all_passes()
        run_pipeline(op, [registry[name]()(report=self.fusion_report) if name == "op-fusion"
                          else registry[name]()() for name in self.stages()], ctx=ctx)


@dataclass(frozen=True)
class GeO0Pass(OptLevelPass):
    """ge-O0: no optimization; the imported graph as is."""

    name = "ge-O0"
    STAGES = LEVELS["ge-O0"]


@dataclass(frozen=True)
class GeO1Pass(OptLevelPass):
    """ge-O1: cleanups only (canonicalize, cse, dce)."""

    name = "ge-O1"
    STAGES = LEVELS["ge-O1"]


@dataclass(frozen=True)
class GeO2Pass(OptLevelPass):
    """ge-O2: ge-O1 plus constant folding and BatchNorm folding."""

    name = "ge-O2"
    STAGES = LEVELS["ge-O2"]


@dataclass(frozen=True)
class GeO3Pass(OptLevelPass):
    """ge-O3: ge-O2 plus merging parallel linears and operator fusion, then
    hardware-mapping's unit and cost annotations."""

    name = "ge-O3"
    STAGES = LEVELS["ge-O3"]
