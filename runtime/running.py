"""Running a loaded function on the host: one replica's task runners and run loop.

A `Replica` is a loaded function (its own arena and views) with one runner
per task (runtime/host/runners.py: a specialized call writing straight into
its arena views, or the generic op-by-op body). `run` copies inputs in,
calls the runners in host order and copies outputs out; the executable
(runtime/executor.py) keeps a pool of replicas so that calls in flight at
once each get their own.

Dynamic shapes: a graph with `?` dims runs each call in a gear
(runtime/gears.py: the listed gears, else the next power of two of each
dynamic dim) and keeps one plan per gear, at most `plan_cache_size` of them
(runtime/plan_cache.py). The first run in a gear first runs the task bodies
once at the gear's shapes (inputs zero-padded copies) to learn each
`?`-shaped buffer's largest size in the gear and the shapes the simulated
device schedules at; then one arena holds every buffer at a fixed offset.
A run at a shape new to its gear runs the task bodies with those buffers on
the host heap and moves the results into views of the arena at their
actual shapes; later runs at that shape bind the same views and run as a
static graph does. Nothing is recompiled, and no shape gets an arena of its
own. A run whose buffer shapes differ from the ones its views were made for
(a data-dependent shape) is an error. Tasks with no `?`-shaped buffer (a
decode step's linears, norms and MLP, beside attention over a growing
cache) keep one view per buffer, so they run their fast runners (built at
load as in a static graph), and so does a task with static outputs whose
runner takes its `?`-shaped inputs at any size (attention of one query
over a dynamic cache); the others run their bodies. The `?`-shaped outputs are the
exception: they stay the fresh tensors their tasks computed and go to the
caller as they are, so a decode step's new KV cache (a concatenation, new
at every length) is neither copied into an arena nor copied out again.

Pipeline stages: a function cut by pipeline-partition receives buffers
(`ascend.recv`) before its first task and sends buffers (`ascend.send`)
after its last one, through its `transport`: an object with `recv(tensor,
peer, tag)` (fill `tensor`) and `send(tensor, peer, tag)` (done with
`tensor` when it returns, or copies it).

Host order: tasks run in program order by default. Any order that respects
streams and events is legal on the device, and the memory plan must hold
for all of them; `set_host_order` runs the simulated timeline's order or
any other legal order, so tests can check that.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable

import torch
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue

from ge_dialect import ge
from ge_dialect.ascend import CUBE_OPS
from runtime import kernels
from runtime.host import bf16, cache_row, runners
from runtime.host import onednn as dnnl
from runtime.gears import Shapes
from runtime.loading import LoadedFunction, Options, Task
from runtime.plan_cache import GearPlan, PlanCache, nbytes
from runtime.sim.device import Plan, SimulatedDevice
from target.cost_model import static_shape


class ExecutionError(RuntimeError):
    """A run went wrong in a way the graph's types did not foresee."""


class Replica(LoadedFunction):
    """A loaded function with its task runners: runs one call at a time."""

    def __init__(self, module: ModuleOp, func_name: str, options: Options,
                 weights: list[torch.Tensor] | None = None):
        super().__init__(module, func_name, options, weights)
        self.transport = None
        self.workspace = dnnl.Workspace()  # scratch the task runners share
        try:
            self.runners = self._runners()
        except dnnl.OneDNNError:
            if not self._blocked:
                raise
            # oneDNN declined a primitive on a blocked buffer: lay them all out NHWC
            self.view_buffers(blocked=False)
            self.runners = self._runners()
        self.direct_outputs = self._direct_outputs()
        self.plans = PlanCache(self.options.plan_cache_size)  # a dynamic graph's, per gear
        self.plan: Plan | None = None  # the device schedule of the last run
        self.gear_plan: GearPlan | None = None  # a dynamic graph's last run's
        self._arg_shapes = [t.get_shape() for t in self.arg_types]
        # A dynamic graph's `?`-shaped outputs stay where their task computed them:
        # fresh tensors each run, returned as they are (`_returned`), no room in a
        # gear's arena (a decode step's new KV cache would be copied twice).
        self._heap_outputs = {s for s, _ in self.dynamic} & set(self.outputs)
        self._held = {w.untyped_storage().data_ptr() for s in self.weight_slots
                      if isinstance(w := self.values[s], torch.Tensor)}
        self._held.add(self.arena.untyped_storage().data_ptr())
        self.last_host_ms = self.last_kernel_ms = 0.0
        self.last_shapes: tuple[list, list] | None = None  # a dynamic graph's last run's

    def simulate_on(self, device: SimulatedDevice) -> None:
        """Plan on `device` (the executable's, shared by its replicas), then
        run in program order."""
        self.device = device
        self.plan = None if self.is_dynamic else device.static_plan()
        self.set_host_order("program")

    @property
    def slots(self) -> list:
        if self.plan is None:
            raise ExecutionError("this graph has dynamic shapes: its device schedule exists "
                                 "once it has run at some input shape")
        return self.plan.slots

    def _direct_outputs(self) -> dict[int, Callable]:
        """Results a task can write straight into the tensor `run` returns
        (output index -> the task runner's `retarget`), instead of `run`
        copying them out of the arena: a contiguous buffer written by one
        task with a `retarget` (runtime/host/runners.py) and read by none, returned once,
        with the prepared loop (the others restore nothing)."""
        if not self.options.prepared_loop or self.is_dynamic:
            return {}
        readers = {s for t in self.tasks for s in t.ins}
        writers: dict[int, list] = {}
        for t, runner in zip(self.tasks, self.runners):
            for s in t.outs:
                writers.setdefault(s, []).append(runner)
        static = {s for s, _ in self._buffers}
        direct = {}
        for i, s in enumerate(self.outputs):
            runners = writers.get(s, [])
            if (s in static and s not in readers and self.outputs.count(s) == 1
                    and len(runners) == 1 and hasattr(runners[0], "retarget")
                    and self.values[s].is_contiguous()):
                direct[i] = runners[0].retarget
        return direct

    def _runners(self) -> list[runners.Runner]:
        """One runner per task, in program order, so that a task knows whether
        the runner writing its input holds a ReLU's values (`writes_relu`)."""
        relu: set[int] = set()
        made = []
        static = self._static_tasks()
        sized = self._sized_outputs(static)
        self.fast_tasks = set(static)  # a dynamic graph's tasks that run their runners
        with dnnl.prepacking(self.requested.prepack if static else self.options.prepack):
            for i, task in enumerate(self.tasks):
                relu_input = bool(task.ins) and task.ins[0] in relu
                runner = self._runner(task, relu_input,
                                      self.requested if i in static | sized else self.options)
                if i in sized and not getattr(runner, "any_length", False):
                    runner = self._runner(task, relu_input, self.options)
                elif i in sized:
                    self.fast_tasks.add(i)
                if getattr(runner, "writes_relu", False):
                    relu.update(task.outs)
                made.append(runner)
        return made

    def _static_tasks(self) -> set[int]:
        """A dynamic graph's tasks whose every input and output has a static
        shape (a decode step's linears, norms and MLP beside the attention
        over a growing cache): their buffers keep one view, so they run the
        fast runners a static graph's tasks do, built with the options asked
        for. None in a static graph (all its tasks run so anyway)."""
        if not self.is_dynamic:
            return set()
        n = len(self.arg_types)
        dynamic = {s for s, _ in self.dynamic} | {
            i for i, t in enumerate(self.arg_types) if not t.has_static_shape()}
        return {i for i, t in enumerate(self.tasks)
                if not dynamic & {*t.ins, *t.outs} and not any(s < n for s in t.outs)}

    def _sized_outputs(self, static: set[int]) -> set[int]:
        """A dynamic graph's tasks but `static` whose outputs have static shapes
        (attention of one query over a growing cache): they run their fast
        runner where it takes any length (`any_length`, the C loop of
        runtime/host/row_attention.py), else their body."""
        if not self.is_dynamic:
            return set()
        n = len(self.arg_types)
        dynamic = {s for s, _ in self.dynamic}
        return {i for i, t in enumerate(self.tasks)
                if i not in static and not dynamic & set(t.outs)
                and not any(s < n for s in t.outs)}

    def _runner(self, task: Task, relu_input: bool = False,
                options: Options | None = None) -> runners.Runner:
        """The task as one call over its inputs, writing its output view(s)."""
        o = options or self.options
        if any(s < len(self.arg_types) for s in task.outs):
            # an in-place update of a graph input (ge.scatter_update, ge.assign):
            # its kernel writes the caller's tensor it is given; nothing to copy.
            # One op over the task's inputs in order is its kernel, called directly.
            steps = task.body.steps
            if len(steps) == 1 and steps[0][1] == list(range(len(task.ins))):
                kernel = steps[0][0]
                scatter = [op for op in task.op.body.block.ops
                           if isinstance(op, ge.ScatterUpdateOp)]

                def update(*args):
                    kernel(*args)

                def bind(args):
                    """A KV cache's one-row update as a C copy where it is one
                    (runtime/host/cache_row.py), else the kernel on its arguments."""
                    row = (cache_row.writer(*args, scatter[0].dim.value.data)
                           if scatter and o.algorithms else None)
                    return row or functools.partial(kernel, *args)
                update.bind = bind
                return update

            def update_body(*args, body=task.body):
                body(*args)
            update_body.__name__ = "update"
            return update_body
        outs = [self.values[s] for s in task.outs]
        if o.zero_copy:
            fast = runners.specialize(task.op.body.block, task.body,
                                      [self.values[s] for s in task.ins],
                                      [s in self.weight_slots for s in task.ins], outs,
                                      o.algorithms, o.primitives,
                                      relu_input, self.workspace)
            if fast is not None:
                return fast
        body = task.body

        def generic(*args):
            for out, r in zip(outs, body(*args)):
                out.copy_(r)
        sixteen = {str(op.results[0].type.element_type) for op in task.op.body.walk()
                   if isinstance(op, CUBE_OPS)} & {"bf16", "f16"}
        if sixteen:  # which kernels its 16-bit matrix ops run on (runtime/host/bf16.py)
            generic.path = bf16.generic_path(kernels.torch_dtype(sixteen.pop()))
        return generic

    def set_host_order(self, order: str | list[int]) -> None:
        """Run tasks on the host in `order`: "program", "timeline" (by simulated
        start time) or a list of task indices that respects streams and events."""
        if order == "program":
            order = list(range(len(self.tasks)))
        elif order == "timeline":
            order = sorted(range(len(self.tasks)), key=lambda i: (self.slots[i].start, i))
        position = {t: i for i, t in enumerate(order)}
        if sorted(position) != list(range(len(self.tasks))):
            raise ValueError("a host order must list every task index exactly once")
        for t, preds in enumerate(self.preds):
            late = [p for p in preds if position[p] > position[t]]
            if late:
                raise ValueError(f"host order runs '{self.tasks[t].name}' before "
                                 f"'{self.tasks[late[0]].name}', which it waits for")
        self.host_order = list(order)
        self._steps = [(self.tasks[i].body, self.tasks[i].ins, self.tasks[i].outs,
                        self.runners[i] if i in self.fast_tasks else None) for i in order]
        # The prepared loop: each task's argument list built once; graph inputs
        # are patched into it at the start of every run. A runner with a
        # `bare` call (a oneDNN primitive bound at load) is that call, no arguments.
        self._prepared = [(self.runners[i].bare, []) if hasattr(self.runners[i], "bare")
                          else (self.runners[i], [self.values[s] for s in self.tasks[i].ins])
                          for i in order]
        self._input_uses = [(args, k, s) for (_, args), i in zip(self._prepared, order)
                            if args
                            for k, s in enumerate(self.tasks[i].ins) if s < len(self.arg_types)]

    def _run(self, inputs: tuple) -> list[torch.Tensor]:
        """One run on this replica's arena; its caller holds the replica."""
        clock = time.perf_counter
        start = clock()
        values = self.values
        for i, x in enumerate(inputs):
            values[i] = x
        # Results written straight into the tensors returned (`_direct_outputs`):
        # new ones each run, and the arena view again afterwards, so that no
        # runner is left pointing at a tensor the caller may free.
        direct = {i: torch.empty_like(values[self.outputs[i]]) for i in self.direct_outputs}
        for i, tensor in direct.items():
            self.direct_outputs[i](tensor)
        if self.recvs or self.sends:
            self._check_transport()
        for s, peer, tag in self.recvs:
            self._receive(values[s], peer, tag)
        with torch.no_grad():
            if self.options.prepared_loop and not self.is_dynamic:
                try:
                    in_kernels = self._run_prepared(inputs)
                finally:
                    for i in direct:
                        self.direct_outputs[i](values[self.outputs[i]])
            elif not self.is_dynamic:
                in_kernels = self._run_listed(values)
            else:
                in_kernels = self._run_dynamic(values, inputs)
        for s, peer, tag in self.sends:
            self.transport.send(values[s].contiguous(), peer, tag)
        # Results leave in the caller's (contiguous) layout, whatever the arena's.
        outputs = [direct[i] if i in direct else self._returned(i, s, inputs)
                   for i, s in enumerate(self.outputs)]
        for s in self._heap_outputs:  # the caller's now
            values[s] = None
        for i in range(len(inputs)):
            values[i] = None
        if self.is_dynamic:
            self.last_shapes = ([tuple(x.shape) for x in inputs], [tuple(o.shape) for o in outputs])
        self.last_host_ms = (clock() - start) * 1e3
        self.last_kernel_ms = in_kernels * 1e3
        return outputs

    def _returned(self, i: int, s: int, inputs: tuple) -> torch.Tensor:
        """Output `i` (value slot `s`) as the caller gets it: a copy, or the
        tensor itself where it is a heap result of this run that nothing else
        holds (a `?`-shaped output: not a view of an input, a weight or an
        arena; returned once; contiguous)."""
        value = self.values[s]
        if (s in self._heap_outputs and value.is_contiguous() and s not in self.outputs[:i]
                and not self._aliases_held(value, inputs)):
            return value
        return value.clone(memory_format=torch.contiguous_format)

    def _aliases_held(self, value: torch.Tensor, inputs: tuple) -> bool:
        ptr = value.untyped_storage().data_ptr()
        held = ptr in self._held or (
            self.gear_plan is not None and ptr == self.gear_plan.arena.data_ptr())
        return held or any(isinstance(x, torch.Tensor) and x.untyped_storage().data_ptr() == ptr
                           for x in inputs)

    def _check_transport(self) -> None:
        if self.transport is None:
            raise ExecutionError(
                f"this function is pipeline stage {self.stage}: it receives or sends "
                "buffers, so it runs with its transport set (npu_graph.pipeline_parallel "
                "runs every stage)")

    def _receive(self, view: torch.Tensor, peer: int, tag: int) -> None:
        if view.is_contiguous():
            self.transport.recv(view, peer, tag)
            return
        staging = torch.empty(view.shape, dtype=view.dtype)
        self.transport.recv(staging, peer, tag)
        view.copy_(staging)

    def _run_prepared(self, inputs) -> float:
        """Run the prepared task calls in host order; return the seconds in kernels."""
        for args, k, i in self._input_uses:
            args[k] = inputs[i]
        clock, in_kernels = time.perf_counter, 0.0
        for run, args in self._prepared:
            t0 = clock()
            run(*args)
            in_kernels += clock() - t0
        for args, k, _ in self._input_uses:  # do not keep the caller's tensors alive
            args[k] = None
        return in_kernels

    def _run_listed(self, values: list) -> float:
        """The same calls, with each task's argument list built at run time."""
        clock, in_kernels = time.perf_counter, 0.0
        for i in self.host_order:
            args = [values[s] for s in self.tasks[i].ins]
            t0 = clock()
            self.runners[i](*args)
            in_kernels += clock() - t0
        return in_kernels

    def _run_dynamic(self, values: list, inputs: tuple) -> float:
        """A dynamic graph's run: on its gear's plan, made if there is none yet
        (see the module docstring)."""
        shapes = tuple(tuple(x.shape) for x in inputs)
        gear = self.options.gears.gear(shapes, self._arg_shapes)
        plan = self.plans.get(gear)
        views = plan.views_at(shapes) if plan is not None else None
        if views is not None:
            for s in self._heap_outputs:
                values[s] = None  # computed afresh, never into the last run's output
            for s, view in views:
                values[s] = view
            in_kernels = self._run_tasks(values, check_shapes=True)
        else:
            probe = self._probe(gear, inputs) if plan is None and gear != shapes else None
            for s, _ in self.dynamic:
                values[s] = None
            record = {} if plan is None and probe is None else None
            in_kernels = self._run_tasks(values, shapes=record)
            if plan is None:
                plan = self._plan_gear(*(probe or (self._known_shapes(values, record),
                                                   self._dynamic_sizes(values))))
                plan = plan if plan.fits(values) else plan.grown(values)
                self.plans.put(gear, plan)
            elif not plan.fits(values):  # a buffer larger than at the gear's shapes
                plan = plan.grown(values)
                self.plans.put(gear, plan)
            plan.bind(shapes, values)
        self.gear_plan, self.plan = plan, plan.schedule
        return in_kernels

    def _run_tasks(self, values: list, check_shapes: bool = False,
                   shapes: dict | None = None) -> float:
        """Run the task bodies in host order, copying results into their views
        (the dynamic-shape path), the static tasks' runners writing theirs;
        return the seconds spent in kernels."""
        clock, in_kernels = time.perf_counter, 0.0
        for body, ins, outs, runner in self._steps:
            args = [values[s] for s in ins]
            t0 = clock()
            if runner is not None:
                runner(*args)
                in_kernels += clock() - t0
                continue
            # Results are computed before any copy, so a task may write in place.
            results = body.run(args, shapes) if shapes is not None else body(*args)
            for s, r in zip(outs, results):
                out = values[s]
                if out is None:  # a dynamic buffer not planned yet: keep the result
                    values[s] = r
                    continue
                if check_shapes and out.shape != r.shape:
                    raise ExecutionError(
                        f"a task produced shape {tuple(r.shape)} where the plan for these "
                        f"input shapes has {tuple(out.shape)}: a data-dependent shape, which "
                        "the per-shape memory plan cannot hold")
                out.copy_(r)
            in_kernels += clock() - t0
        return in_kernels

    def _probe(self, gear: Shapes, inputs: tuple) -> tuple[dict, dict] | None:
        """Every value's shape and each `?`-shaped buffer's size at the gear's
        shapes, from a run on zero-padded copies of the inputs (so that no
        in-place update reaches the caller's tensors); None if that run fails:
        the gear's shapes are made up, and some graph may not accept them
        (its plan then sizes buffers by the runs it sees)."""
        values = list(self.values)
        for i, (x, shape) in enumerate(zip(inputs, gear)):
            padded = x.new_zeros(shape)
            padded[tuple(slice(0, n) for n in x.shape)] = x
            values[i] = padded
        for s, _ in self.dynamic:
            values[s] = None
        shapes: dict[SSAValue, tuple] = {}
        try:
            self._run_tasks(values, shapes=shapes)
        except Exception:  # noqa: BLE001 - any failure only means: no probe
            return None
        return self._known_shapes(values, shapes), self._dynamic_sizes(values)

    def _known_shapes(self, values: list, shapes: dict) -> dict:
        """`shapes` (a run's, by SSA value) with the graph inputs' and buffers'."""
        for value, s in self.value_slots.items():
            if value not in shapes and values[s] is not None:
                shapes[value] = tuple(values[s].shape)
        return shapes

    def _dynamic_sizes(self, values: list) -> dict[int, int]:
        """The room each `?`-shaped buffer needs in a gear's arena (outputs none)."""
        return {s: nbytes(values[s]) for s, _ in self.dynamic if s not in self._heap_outputs}

    def _plan_gear(self, shapes: dict, sizes: dict[int, int]) -> GearPlan:
        """A gear's plan: the device schedule at `shapes`, room for `sizes`."""
        def shape_of(v):
            return shapes.get(v) or static_shape(v)

        return GearPlan(self.device.schedule(self.device.estimates_at(shape_of)), sizes)
