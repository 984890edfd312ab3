"""A simulated timeline of several cards: pipeline stages (GPipe) and data parallel.

Plain IR and plain data in, plain data out, like target/scheduler.py. Each card's
stage is simulated on its own (its tasks, streams and events, as one card's
timeline); this module then places micro-batches on the cards and the
transfers between them on the card-to-card link:

- pipeline (GPipe, forward only): card k computes micro-batch m once it has
  finished m-1 and every buffer m needs has arrived; each `ascend.send` of m
  leaves when its card finishes m, and takes `cost_model.transfer_us` at the
  link's bandwidth plus its latency (HCCS figures in the hardware table).
  A card's sends go out one at a time on its link (full duplex: receiving
  does not slow sending). Results go back to the host from the last card.
- data parallel: every card computes its share of the batch at once; the
  shares' results are gathered on card 0 over the link.

Per card: compute time (its stage's timeline, times the micro-batches),
communication time (its link busy sending or receiving), bubble time (the
run's span minus compute: idle waiting on others) and arena size.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import func

from ge_dialect import ascend
from target import cost_model, scheduler
from target.hardware import Hardware


@dataclass
class Stage:
    """One card's program, simulated alone."""

    name: str
    jobs: list[scheduler.Job]
    slots: list[scheduler.Slot]
    arena_bytes: int
    sends: list[tuple[int, int, int]]   # (peer, tag, bytes)
    recvs: list[tuple[int, int, int]]

    @property
    def compute_us(self) -> float:
        return scheduler.makespan(self.slots)


def stage_of_function(fn: func.FuncOp, hw: Hardware) -> Stage:
    """A lowered function (a stage, or a whole graph) simulated on one card."""
    ops = list(fn.body.block.ops)
    tasks = [o for o in ops if isinstance(o, ascend.TaskOp)]
    preds = ascend.task_predecessors(ops)
    estimates = [cost_model.estimate(t, hw) for t in tasks]
    jobs = [scheduler.Job(t.task_name.data, e.pool, e.block_dim, e.time_us,
                          t.stream.value.data, tuple(p))
            for t, e, p in zip(tasks, estimates, preds)]
    slots = scheduler.simulate(jobs, hw.pools(), hw.event_us)
    comm = {ascend.SendOp: [], ascend.RecvOp: []}
    for o in ops:
        if isinstance(o, ascend.SendOp | ascend.RecvOp):
            comm[type(o)].append((o.peer.value.data, o.tag.value.data, ascend.nbytes(o.buffer.type)))
    return Stage(fn.sym_name.data, jobs, slots, ascend.arena_size(fn) or 0,
                 comm[ascend.SendOp], comm[ascend.RecvOp])


@dataclass
class Span:
    card: int
    name: str
    start: float
    end: float
    track: str                 # "compute" or "communication"
    args: dict = field(default_factory=dict)


@dataclass
class Timeline:
    cards: int
    spans: list[Span]
    arena_bytes: list[int]
    samples: int               # batch items the timeline processes
    stages: list[Stage]
    mode: str

    @property
    def makespan_us(self) -> float:
        return max((s.end for s in self.spans), default=0.0)

    def per_card(self) -> list[dict]:
        """Compute, communication and bubble time (ms) and arena size (MB) per card."""
        span = self.makespan_us
        rows = []
        for k in range(self.cards):
            compute = sum(s.end - s.start for s in self.spans
                          if s.card == k and s.track == "compute")
            comm = sum(s.end - s.start for s in self.spans
                       if s.card == k and s.track == "communication")
            rows.append({"card": k, "compute_ms": compute / 1e3,
                         "communication_ms": comm / 1e3,
                         "bubble_ms": (span - compute) / 1e3,
                         "arena_mb": self.arena_bytes[k] / 2**20})
        return rows

    def stats(self) -> dict:
        span = self.makespan_us
        return {"mode": self.mode, "cards": self.cards, "execution_time": span / 1e3,
                "throughput": self.samples / (span / 1e6) if span else 0.0,
                "per_card": self.per_card()}

    def chrome_trace(self) -> dict:
        """One process row per card, with a compute track and a communication track;
        each micro-batch's stage run is one event, its tasks nested under it."""
        events = []
        for k in range(self.cards):
            events.append({"ph": "M", "name": "process_name", "pid": k + 1, "tid": 0,
                           "args": {"name": f"card {k}"}})
            for tid, name in ((0, "compute"), (1, "communication")):
                events.append({"ph": "M", "name": "thread_name", "pid": k + 1, "tid": tid,
                               "args": {"name": name}})
        for s in self.spans:
            events.append({"ph": "X", "name": s.name, "cat": s.track, "pid": s.card + 1,
                           "tid": 0 if s.track == "compute" else 1, "ts": s.start,
                           "dur": s.end - s.start, "args": s.args})
            if s.track == "compute" and "micro_batch" in s.args:
                stage = self.stages[s.card]
                for job, slot in zip(stage.jobs, stage.slots):
                    events.append({"ph": "X", "name": job.name, "cat": "task",
                                   "pid": s.card + 1, "tid": 0, "ts": s.start + slot.start,
                                   "dur": slot.end - slot.start,
                                   "args": {"stream": job.stream, "block_dim": job.cores}})
        return {"traceEvents": events, "displayTimeUnit": "ns",
                "otherData": {"mode": self.mode, **{k: v for k, v in self.stats().items()
                                                    if k != "per_card"}}}


def simulate_pipeline(stages: list[Stage], micro_batches: int, micro_batch_size: int,
                      hw: Hardware) -> Timeline:
    """GPipe forward: `micro_batches` micro-batches through the stages, card k = stage k."""
    if micro_batches < 1:
        raise ValueError(f"micro_batches must be >= 1, got {micro_batches}")
    n = len(stages)
    sends_of = [sorted(s.sends, key=lambda x: x[1]) for s in stages]
    arrive: dict[tuple[int, int], float] = {}   # (tag, micro-batch) -> arrival time
    card_free = [0.0] * n
    link_free = [0.0] * n
    spans: list[Span] = []
    for m in range(micro_batches):
        for k, stage in enumerate(stages):
            ready = max([card_free[k]] + [arrive[(tag, m)] for _, tag, _ in stage.recvs])
            end = ready + stage.compute_us
            spans.append(Span(k, f"{stage.name} micro-batch {m}", ready, end, "compute",
                              {"micro_batch": m}))
            card_free[k] = end
            for peer, tag, nbytes in sends_of[k]:
                start = max(end, link_free[k])
                done = start + cost_model.transfer_us(nbytes, hw.link_gb_s, hw.link_latency_us)
                link_free[k] = done
                arrive[(tag, m)] = done
                args = {"bytes": nbytes, "tag": tag, "micro_batch": m}
                spans.append(Span(k, f"send {nbytes} B to card {peer}", start, done,
                                  "communication", {**args, "peer": peer}))
                spans.append(Span(peer, f"recv {nbytes} B from card {k}", start, done,
                                  "communication", {**args, "peer": k}))
    return Timeline(n, spans, [s.arena_bytes for s in stages],
                    micro_batches * micro_batch_size, stages, "pipeline")


def simulate_data_parallel(stage: Stage, cards: int, share: int, output_bytes: int,
                           hw: Hardware) -> Timeline:
    """`cards` cards each computing a share of `share` items; results gathered on card 0."""
    spans = []
    for k in range(cards):
        spans.append(Span(k, f"{stage.name} share {k}", 0.0, stage.compute_us, "compute",
                          {"micro_batch": 0}))
    for k in range(1, cards):
        start = stage.compute_us
        done = start + cost_model.transfer_us(output_bytes, hw.link_gb_s, hw.link_latency_us)
        spans.append(Span(k, f"send {output_bytes} B to card 0", start, done, "communication",
                          {"bytes": output_bytes, "peer": 0}))
        spans.append(Span(0, f"recv {output_bytes} B from card {k}", start, done,
                          "communication", {"bytes": output_bytes, "peer": k}))
    return Timeline(cards, spans, [stage.arena_bytes] * cards, cards * share,
                    [stage] * cards, "data parallel")
