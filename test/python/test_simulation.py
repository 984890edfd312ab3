"""The device simulation: cost model, discrete-event scheduler, stats, trace."""

import json

import pytest
import torch

from ge_dialect import ascend
from npu_graph.compiler import import_model, lower, optimize, plan_device
from target.hardware import HARDWARE
from runtime.executor import Executable, LoadError
from target.scheduler import Job, simulate, utilization
from test.models import branchy

AI_CORES = {"ai_core": 32}


def job(name, cores, us, stream, preds=()):
    return Job(name, "ai_core", cores, us, stream, tuple(preds))


def test_jobs_that_fit_share_the_cores_and_jobs_that_do_not_wait():
    small = [job("a", 16, 10.0, 0), job("b", 16, 10.0, 1)]
    assert [(s.start, s.end) for s in simulate(small, AI_CORES)] == [(0, 10), (0, 10)]
    big = [job("a", 32, 10.0, 0), job("b", 32, 10.0, 1)]
    assert [(s.start, s.end) for s in simulate(big, AI_CORES)] == [(0, 10), (10, 20)]
    assert utilization(big, simulate(big, AI_CORES), AI_CORES) == {"ai_core": 1.0}


def test_streams_run_in_order_and_events_add_their_latency():
    jobs = [job("a", 1, 10.0, 0), job("b", 1, 5.0, 0, [0]), job("c", 1, 5.0, 1, [0])]
    slots = simulate(jobs, AI_CORES, event_us=1.0)
    assert (slots[1].start, slots[2].start) == (10.0, 11.0)


def test_a_job_wider_than_its_core_group_is_reported():
    with pytest.raises(ValueError, match="deadlocks: a never run"):
        simulate([job("a", 64, 1.0, 0)], AI_CORES)


def test_hardware_table_matches_the_advertised_peaks():
    for name, advertised in (("ascend910", 256), ("ascend910b", 354)):
        hw = HARDWARE[name]
        peak_tflops = hw.ai_cores * hw.cube_macs_per_cycle * 2 * hw.clock_ghz / 1e3
        assert peak_tflops == pytest.approx(advertised, rel=0.03)


def test_a_cube_task_uses_one_core_per_16x16_output_tile(inception):
    executable, _, _, module = inception
    ops = [op for op in module.walk() if isinstance(op, ascend.TaskOp)]
    convs = [(task, conv) for task, op in zip(executable.tasks, ops)
             for conv in op.body.block.ops if conv.name == "ge.conv2d"]
    assert convs
    for task, conv in convs:
        n, c, h, w = conv.output.type.get_shape()
        tiles = -(-(n * h * w) // 16) * -(-c // 16)
        assert task.estimate.block_dim == min(32, tiles)
        # Fewer tiles than cores: the branches leave room for each other.
        assert task.estimate.block_dim < 32


@pytest.fixture(scope="module")
def inception():
    """(executable, model, inputs, Ascend module) of the Inception test model."""
    model, inputs = branchy.make()
    module = plan_device(lower(optimize(import_model(model, inputs))))
    executable = Executable(module)
    executable.run(*inputs)
    return executable, model, inputs, module


def test_stats_report_device_and_host_time_memory_throughput_and_tasks(inception):
    executable, model, inputs, _ = inception
    stats = executable.stats
    for key in ("execution_time", "host_time", "host_overhead_ms", "memory_usage",
                "memory_lower_bound", "memory_naive", "throughput", "num_tasks", "tasks",
                "utilization"):
        assert key in stats
    assert stats["memory_lower_bound"] <= stats["memory_usage"] < stats["memory_naive"]
    assert stats["memory_usage"] == executable.arena.numel() / 2**20
    assert 0 <= stats["host_overhead_ms"] < stats["host_time"]
    assert stats["throughput"] == pytest.approx(1 / (stats["execution_time"] / 1e3))
    assert all(0 <= u <= 1 for u in stats["utilization"].values())
    assert stats["utilization"]["ai_core"] > 0
    tasks = stats["tasks"]
    assert len(tasks) == stats["num_tasks"]
    assert stats["execution_time"] == pytest.approx(max(t["end"] for t in tasks))
    # Every task starts after what it waits for (stream order and events) ends.
    for t, j in zip(tasks, executable.jobs):
        assert all(tasks[p]["end"] <= t["start"] for p in j.preds)
    assert {"name", "unit", "stream", "core_group", "block_dim", "start", "time"} <= set(tasks[0])


def test_chrome_trace_is_valid_json_with_stream_and_core_group_tracks(inception, tmp_path):
    executable, _, _, _ = inception
    path = tmp_path / "trace.json"
    executable.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    events = trace["traceEvents"]
    assert isinstance(events, list) and events
    for e in events:
        assert {"ph", "name", "pid"} <= set(e)
        assert e["ph"] in ("M", "X", "C")
    spans = [e for e in events if e["ph"] == "X"]
    assert len(spans) == executable.stats["num_tasks"]
    for e in spans:
        assert e["dur"] > 0 and e["ts"] >= 0 and isinstance(e["tid"], int)
    threads = {e["tid"]: e["args"]["name"] for e in events
               if e["ph"] == "M" and e["name"] == "thread_name"}
    streams = {t["stream"] for t in executable.stats["tasks"]}
    assert threads == {s: f"stream {s}" for s in streams}
    counters = {e["name"] for e in events if e["ph"] == "C"}
    assert counters == {"AI Core busy cores (of 32)"}
    busy = [e["args"]["cores"] for e in events if e["ph"] == "C"]
    assert max(busy) <= 32 and busy[-1] == 0


def test_host_order_must_respect_streams_and_events(inception):
    executable, model, inputs, _ = inception
    backwards = list(reversed(range(len(executable.tasks))))
    with pytest.raises(ValueError, match="which it waits for"):
        executable.set_host_order(backwards)
    executable.set_host_order("timeline")
    with torch.no_grad():
        torch.testing.assert_close(executable.run(*inputs)[0], model(*inputs),
                                   rtol=1e-4, atol=1e-4)
    executable.set_host_order("program")


def test_a_wait_without_a_record_is_a_load_error():
    model, inputs = branchy.make_two_towers()
    module = lower(optimize(import_model(model, inputs)))
    fn = module.ops.first
    fn.body.block.insert_op_before(ascend.WaitEventOp(7, 0), fn.body.block.last_op)
    with pytest.raises(LoadError, match="wait_event 7 on stream 0 comes before any"):
        Executable(module)
