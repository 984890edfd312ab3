"""task-parallel: spread independent tasks over streams, synchronized by events.

GE's TaskParallelPass / logical stream allocation in one pass: tasks that do
not depend on each other (residual branches, Inception branches, split
attention heads) go to different streams so they can share the AI Cores;
`ascend.record_event` / `ascend.wait_event` pairs order the cross-stream
dependences that remain after transitive reduction.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64

from ge_dialect import ascend
from passes.base import AscendPass
from passes.pipelines import DEFAULT_MAX_STREAMS
from passes.planning import streams as stream_plan
from passes.planning.task_graph import FunctionGraph, dependences, lowered_graphs
from target import cost_model, scheduler
from target.hardware import DEFAULT_CHIP, HARDWARE, Hardware


def simulated_makespan(graph: FunctionGraph, estimates: list[cost_model.Estimate],
                       stream_of: list[int], edges: list[tuple[int, int]],
                       hw: Hardware) -> float:
    preds = stream_plan.stream_preds(stream_of, edges)
    jobs = [scheduler.Job(t.name, e.pool, e.block_dim, e.time_us, s, tuple(p))
            for t, e, s, p in zip(graph.tasks, estimates, stream_of, preds)]
    return scheduler.makespan(scheduler.simulate(jobs, hw.pools(), hw.event_us))


def write_streams(graph: FunctionGraph, stream_of: list[int],
                  edges: list[tuple[int, int]]) -> None:
    """Set each task's stream; replace all events by one record/wait pair per edge."""
    block = graph.fn.body.block
    for op in list(block.ops):
        if isinstance(op, ascend.RecordEventOp | ascend.WaitEventOp):
            block.erase_op(op)
    for task, s in zip(graph.tasks, stream_of):
        task.op.properties["stream"] = IntegerAttr(s, i64)
    for event, (u, t) in reversed(list(enumerate(edges))):
        # Reversed: records inserted right after a task end up in event-id order.
        block.insert_op_after(ascend.RecordEventOp(event, stream_of[u]), graph.tasks[u].op)
    for event, (u, t) in enumerate(edges):
        block.insert_op_before(ascend.WaitEventOp(event, stream_of[t]), graph.tasks[t].op)


@dataclass(frozen=True)
class TaskParallelPass(AscendPass):
    """Assign tasks to at most `max-streams` streams and insert the events they need.

    Streams are chosen by list scheduling on the cost model's estimates for
    `hardware`; the result is kept only if the simulated device time beats
    one stream. Dependences come from the buffers' bytes, so an arena that
    memory-reuse already planned stays correct (a reused buffer's new writer
    waits for the old readers). `max-streams=1` is ge.enableSingleStream;
    `max-streams` mirrors ge.streamMaxParallelNum. Functions that are not
    lowered (no `ascend.arena_size`) are left alone.
    """

    name = "task-parallel"
    plans = True
    max_streams: int = DEFAULT_MAX_STREAMS
    hardware: str = DEFAULT_CHIP

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.max_streams < 1:
            raise ValueError(f"task-parallel: max-streams must be >= 1, got {self.max_streams}")
        if self.hardware not in HARDWARE:
            raise ValueError(f"task-parallel: hardware must be one of "
                             f"{', '.join(HARDWARE)}, got '{self.hardware}'")
        hw = HARDWARE[self.hardware]
        for graph in lowered_graphs(op, self.name):
            deps = dependences(graph, physical=True)
            estimates = [cost_model.estimate(t.op, hw) for t in graph.tasks]
            single = [0] * len(graph.tasks)
            streams = stream_plan.assign_streams(
                deps, [e.time_us for e in estimates], self.max_streams, hw.event_us)
            edges = stream_plan.event_edges(deps, streams)
            if (streams != single and simulated_makespan(graph, estimates, streams, edges, hw)
                    >= simulated_makespan(graph, estimates, single, [], hw)):
                streams, edges = single, []
            write_streams(graph, streams, edges)
