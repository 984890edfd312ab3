"""The property tests catch real bugs: deliberately broken passes fail them.

Each test swaps one pass of the registry for a broken variant defined here
(production code has no hooks for this), runs the property of
test_fuzz_pipelines.py on derandomized random graphs, and asserts that it
reports the bug. Shrinking is off: finding the bug is the point, not the
smallest example.
"""

from dataclasses import dataclass

from hypothesis import HealthCheck, Phase, given, settings
from xdsl.dialects import func
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, f64, i64
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

from ge_dialect import ascend, ge
from lowering.ge_to_ascend import LowerToAscendPass
from passes.planning.task_graph import lowered_graphs
from passes.fold_batch_norm import FoldBatchNormIntoLayer, FoldBatchNormPass
from passes.memory_reuse import MemoryReusePass, plan_graph, write_plan
from passes.op_fusion import OpFusionPass, fuse
from test.fuzz.check import Mismatch, available_passes, check_graph
from test.fuzz.graphs import graphs


def first_failure(pipeline: str, broken: dict, max_examples: int = 150) -> BaseException | None:
    """Run the property with passes replaced by `broken`; the failure it reports, if any."""
    passes = {**available_passes(), **broken}

    @settings(max_examples=max_examples, derandomize=True, database=None, deadline=None,
              phases=[Phase.generate], report_multiple_bugs=False,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.filter_too_much])
    @given(graph=graphs())
    def prop(graph):
        check_graph(graph, pipeline, passes=passes)

    try:
        prop()
    except Exception as e:  # noqa: BLE001 - whatever the property reports is the answer
        return e
    return None


def run_patterns(module, *patterns: RewritePattern) -> None:
    PatternRewriteWalker(GreedyRewritePatternApplier(list(patterns), dce_enabled=False),
                         apply_recursively=False).rewrite_module(module)


# --------------------------------------------------------------------------
# fold-batch-norm that drops epsilon


class FoldIgnoringEpsilon(FoldBatchNormIntoLayer):
    """The bug: folds with s = gamma / sqrt(var), as if epsilon were 0."""

    def match_and_rewrite(self, op, rewriter: PatternRewriter):
        if not isinstance(op, ge.BatchNormOp):
            return
        epsilon = op.epsilon
        op.properties["epsilon"] = FloatAttr(0.0, f64)
        super().match_and_rewrite(op, rewriter)
        if op.parent is not None:  # not folded: leave the batch norm as it was
            op.properties["epsilon"] = epsilon


@dataclass(frozen=True)
class FoldBatchNormWithoutEpsilon(FoldBatchNormPass):
    def apply(self, ctx, op):
        run_patterns(op, FoldIgnoringEpsilon())


def test_fold_batch_norm_that_drops_epsilon_is_caught():
    error = first_failure("fold-batch-norm",
                          {"fold-batch-norm": lambda: FoldBatchNormWithoutEpsilon})
    assert isinstance(error, Mismatch), error
    assert "after 'fold-batch-norm'" in str(error) and "differs by up to" in str(error)


# --------------------------------------------------------------------------
# op-fusion that ignores a second use of a value


class FuseIgnoringOtherUses(RewritePattern):
    """The bug: x -> relu is fused even when x has other users, and those
    users are handed the group's result, relu(x), instead of x."""

    def match_and_rewrite(self, op, rewriter: PatternRewriter):
        if not isinstance(op, ge.ReluOp) or not isinstance(op.parent_op(), func.FuncOp):
            return
        producer = op.input.owner
        if not isinstance(producer, ge.Conv2dOp | ge.AddOp | ge.MulOp):
            return
        rewriter.replace_uses_with_if(producer.output, op.output,
                                      lambda use: use.operation is not op)
        fuse(rewriter, "broken_relu", [producer, op])


@dataclass(frozen=True)
class FusionIgnoringOtherUses(OpFusionPass):
    def apply(self, ctx, op):
        run_patterns(op, FuseIgnoringOtherUses())


def test_op_fusion_that_ignores_a_second_use_is_caught():
    # Only a fused producer with a second use shows it: more examples than the others.
    error = first_failure("op-fusion", {"op-fusion": lambda: FusionIgnoringOtherUses},
                          max_examples=400)
    # Caught either as wrong numbers or as a crash of the graph the bug left
    # behind (a use now precedes its redirected definition); both fail the property.
    assert error is not None


# --------------------------------------------------------------------------
# lower-to-ascend whose memory plan overlaps live buffers


@dataclass(frozen=True)
class LowerWithOverlappingBuffers(LowerToAscendPass):
    """The bug: every buffer at offset 0, so each task overwrites values still live."""

    def apply(self, ctx, op):
        super().apply(ctx, op)
        for buffer in op.walk():
            if isinstance(buffer, ascend.BufferOp):
                buffer.properties["offset"] = IntegerAttr(0, i64)


def test_lowering_with_overlapping_buffers_is_caught():
    error = first_failure("lower-to-ascend",
                          {"lower-to-ascend": lambda: LowerWithOverlappingBuffers})
    assert isinstance(error, Mismatch), error
    # The plan verifier names it before the executor computes wrong numbers.
    assert "device plan after pass 'lower-to-ascend' is broken" in str(error)
    assert "overlap but may be live at once" in str(error)


# --------------------------------------------------------------------------
# memory-reuse that plans lifetimes as if there were one stream


@dataclass(frozen=True)
class ReuseIgnoringStreams(MemoryReusePass):
    """The bug: lifetimes over program order, so a buffer of one stream may take
    the bytes of a buffer that another stream is still using. The host runs
    tasks in program order, so only the plan verifier can see it."""

    def apply(self, ctx, op):
        for graph in lowered_graphs(op, self.name):
            graph.preds = [[t - 1] if t else [] for t in range(len(graph.tasks))]
            write_plan(graph, plan_graph(graph, self.strategy, self.in_place))


def test_memory_reuse_that_ignores_streams_is_caught():
    # Only graphs with concurrent branches show it: more examples than the others.
    error = first_failure("ge-O3,lower-to-ascend,task-parallel,memory-reuse",
                          {"memory-reuse": lambda: ReuseIgnoringStreams}, max_examples=500)
    assert isinstance(error, Mismatch), error
    assert "device plan after pass 'memory-reuse' is broken" in str(error)
    # Two buffers share bytes while both are in use: across streams with no
    # order between their tasks, or within one task that is not in place.
    assert ("no stream order or event path" in str(error)
            or "uses both, and is not an elementwise task writing in place" in str(error))
