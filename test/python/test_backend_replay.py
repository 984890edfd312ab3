"""Captured replay (runtime/replay.py, the "reduce-overhead" mode): a static
graph bound once, then replayed with inputs copied in; every requirement of a
replay is checked, so a call that breaks one raises instead of answering wrong."""

import pytest
import torch
from torch import nn

import npu_graph
from runtime.replay import Replay, ReplayError

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::UserWarning")


class Decode(nn.Module):
    """One decode step over a cache the caller owns: cache[:, pos] = x @ w, then read."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.proj = nn.Linear(4, 4)

    def forward(self, x, pos, cache):
        cache.index_copy_(1, pos, self.proj(x))
        return cache.sum(1).relu()


def _replay():
    model = Decode().eval()
    example = (torch.randn(2, 1, 4), torch.tensor([0]), torch.zeros(2, 6, 4))
    compiled = npu_graph.NpuGraph(model, input_spec=example).optimize()
    return model, Replay(compiled.executable)


def test_replay_matches_eager_and_updates_the_captured_cache_in_place():
    model, replay = _replay()
    cache, expected = torch.zeros(2, 6, 4), torch.zeros(2, 6, 4)
    first = None
    for step in range(6):
        x, pos = torch.randn(2, 1, 4), torch.tensor([step])
        got = replay.run(x, pos, cache)
        with torch.no_grad():
            want = model(x, pos, expected)
        torch.testing.assert_close(got[0], want, rtol=1e-4, atol=1e-4)
        torch.testing.assert_close(cache, expected, rtol=1e-4, atol=1e-4)
        first = got[0] if first is None else first
        assert got[0] is first  # the same output tensor, overwritten by each replay
    assert replay.replays == 6


def test_inputs_are_copied_so_their_strides_may_differ():
    model, replay = _replay()
    cache = torch.zeros(2, 6, 4)
    x = torch.randn(4, 1, 2).transpose(0, 2)  # shape (2, 1, 4), not contiguous
    got = replay.run(x, torch.tensor([1]), cache)
    with torch.no_grad():
        want = model(x, torch.tensor([1]), torch.zeros(2, 6, 4))
    torch.testing.assert_close(got[0], want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("bad, message", [
    ((torch.randn(3, 1, 4), torch.tensor([0])), "captured with"),       # shape
    ((torch.randn(2, 1, 4).double(), torch.tensor([0])), "dtype"),      # dtype
])
def test_a_new_shape_or_dtype_is_refused(bad, message):
    _, replay = _replay()
    cache = torch.zeros(2, 6, 4)
    replay.run(torch.randn(2, 1, 4), torch.tensor([0]), cache)
    with pytest.raises(ReplayError, match=message):
        replay.run(*bad, cache)


def test_another_cache_tensor_is_refused_until_rebound():
    model, replay = _replay()
    cache = torch.zeros(2, 6, 4)
    replay.run(torch.randn(2, 1, 4), torch.tensor([0]), cache)
    other = torch.zeros(2, 6, 4)
    x = torch.randn(2, 1, 4)
    with pytest.raises(ReplayError, match="different tensor from the captured one"):
        replay.run(x, torch.tensor([2]), other)
    assert other.abs().sum() == 0  # nothing was written before the refusal
    strided = torch.zeros(2, 4, 6).transpose(1, 2)  # same shape, other strides
    with pytest.raises(ReplayError, match="different tensor"):
        replay.run(x, torch.tensor([2]), strided)
    replay.rebind((x, torch.tensor([2]), other))
    got = replay.run(x, torch.tensor([2]), other)
    expected = torch.zeros(2, 6, 4)
    with torch.no_grad():
        want = model(x, torch.tensor([2]), expected)
    torch.testing.assert_close(got[0], want, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(other, expected, rtol=1e-4, atol=1e-4)


def test_a_dynamic_graph_cannot_be_captured():
    model = nn.Linear(4, 4).eval()
    graph = npu_graph.NpuGraph(model, input_spec=(torch.randn(2, 4),),
                               dynamic_shapes=({0: torch.export.Dim("batch")},))
    with pytest.raises(ReplayError, match="static shapes"):
        Replay(graph.optimize().executable)


def test_reduce_overhead_backend_replays_and_clones_its_outputs():
    torch._dynamo.reset()
    model = Decode().eval()
    config = npu_graph.CompilerConfig(mode="reduce-overhead")
    backend = npu_graph.get_npu_backend(compiler_config=config)
    compiled = torch.compile(model, backend=backend, dynamic=False)
    cache, expected = torch.zeros(2, 6, 4), torch.zeros(2, 6, 4)
    outs = []
    with torch.no_grad():
        for step in range(3):
            x, pos = torch.randn(2, 1, 4), torch.tensor([step])
            outs.append(compiled(x, pos, cache))
            want = model(x, pos, expected)
            torch.testing.assert_close(outs[-1], want, rtol=1e-4, atol=1e-4)
            torch.testing.assert_close(cache, expected, rtol=1e-4, atol=1e-4)
    assert outs[0] is not outs[1]  # kept outputs are not overwritten by later replays
    assert not torch.equal(outs[0], outs[2])
    report = backend.reports[0]
    assert report.replayed and report.calls == 3 and report.updates == 1, report.line()
    torch._dynamo.reset()


class Positions(nn.Module):
    """A static cache's write positions: a counter the caller owns plus an
    arange (HF's cumulative_length), one small integer add per layer."""

    def forward(self, x, length):
        positions = torch.arange(x.shape[1]) + length
        return x * 2.0, positions


def test_a_one_op_task_on_graph_inputs_is_bound_as_its_out_call():
    model = Positions().eval()
    example = (torch.randn(1, 3, 4), torch.tensor(5))
    compiled = npu_graph.NpuGraph(model, input_spec=example).optimize()
    replay = Replay(compiled.executable)
    for length in (5, 9, 0, 130):
        x = torch.randn(1, 3, 4)
        got = replay.run(x, torch.tensor(length))
        want = model(x, torch.tensor(length))
        torch.testing.assert_close(got[0], want[0])
        assert torch.equal(got[1], want[1]), (got[1], want[1])
    r = replay.replica
    bound = [(r.tasks[i].name, args) for i, (_, args) in zip(r.host_order, replay.steps)]
    adds = [args for name, args in bound if name.startswith("add")]
    assert adds == [[]], bound  # the add reads the copied-in counter, bound at capture
