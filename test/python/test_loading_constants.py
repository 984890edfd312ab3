"""Weights in memory once: loaded weights are tensors over their constants'
bytes, equal weights of several graphs share one copy (a model's parameter
where there is one: runtime/weight_pool.py, the backend's pool), and
oneDNN's decode-step linears read the weight where it is, with no
prepacked copy (runtime/host/onednn.py PLAIN_WEIGHT_ROWS)."""

import gc

import numpy as np
import pytest
import torch
import torch._dynamo
from torch import nn

from ge_dialect import ascend
from npu_graph import get_npu_backend
from npu_graph.compiler import import_model, lower, optimize, plan_device
from runtime.executor import Executable
from runtime.host import onednn
from runtime.running import Replica
from runtime.weight_pool import MIN_SHARED_BYTES, WeightPool

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::UserWarning")


class MLP(nn.Module):
    """Two linears of 128 KB weights (shared) and biases under 64 KB (each graph's own)."""

    def __init__(self):
        super().__init__()
        self.up, self.down = nn.Linear(256, 128), nn.Linear(128, 256)

    def forward(self, x):
        return self.down(torch.relu(self.up(x)))


def lowered(model, x):
    return plan_device(lower(optimize(import_model(model, (x,)), "ge-O3")))


def weight_ptrs(exe) -> list[int]:
    return [exe.values[s].data_ptr() for s in sorted(exe.weight_slots)]


def big(exe) -> list[torch.Tensor]:
    return [exe.values[s] for s in sorted(exe.weight_slots)
            if exe.values[s].numel() * exe.values[s].element_size() >= MIN_SHARED_BYTES]


def test_loaded_weights_are_the_constants_own_bytes():
    torch.manual_seed(0)
    model, x = MLP().eval(), torch.randn(2, 256)
    module = lowered(model, x)
    exe = Executable(module)
    constants = [op.value for op in module.walk() if isinstance(op, ascend.WeightOp)]
    assert weight_ptrs(exe) == [np.frombuffer(c.data.data, np.uint8).ctypes.data
                                for c in constants]
    with torch.no_grad():
        torch.testing.assert_close(exe.run(x)[0], model(x), rtol=1e-4, atol=1e-4)


def test_a_weight_two_graphs_use_is_stored_once_as_the_parameter():
    torch.manual_seed(0)
    model = MLP().eval()
    pool = WeightPool()
    for p in model.parameters():
        pool.add(p)
    inputs = [torch.randn(1, 256), torch.randn(4, 256)]
    modules = [lowered(model, x) for x in inputs]
    assert [pool.share(m) for m in modules] == [2, 2]  # the two big weights, not the biases
    exes = [Executable(m) for m in modules]
    params = {model.up.weight.data_ptr(), model.down.weight.data_ptr()}
    for exe, x in zip(exes, inputs):
        assert {t.data_ptr() for t in big(exe)} == params
        with torch.no_grad():
            torch.testing.assert_close(exe.run(x)[0], model(x), rtol=1e-4, atol=1e-4)
    # the small biases stay each graph's own bytes
    biases = [set(weight_ptrs(exe)) - params for exe in exes]
    assert biases[0] and not biases[0] & biases[1]


def test_a_shared_constant_still_verifies_prints_and_hashes_as_its_bytes():
    torch.manual_seed(0)
    model, x = MLP().eval(), torch.randn(1, 256)
    module, copy = lowered(model, x), lowered(model, x)
    pool = WeightPool()
    pool.add(model.up.weight)
    assert pool.share(module) == 1
    module.verify()
    assert str(module) == str(copy)  # the same values printed
    shared = [op.value for op in module.walk() if isinstance(op, ascend.WeightOp)]
    own = [op.value for op in copy.walk() if isinstance(op, ascend.WeightOp)]
    assert any(isinstance(a.data.data, memoryview) for a in shared)
    assert shared == own and [hash(a) for a in shared] == [hash(a) for a in own]


def test_graphs_without_parameters_share_their_first_copy():
    """Equal constants of two graphs: the second points at the first's bytes;
    a different constant of the same shape stays apart."""
    torch.manual_seed(0)
    model, other = MLP().eval(), MLP().eval()
    x = torch.randn(3, 256)
    pool = WeightPool()
    first, second, third = lowered(model, x), lowered(model, x), lowered(other, x)
    assert [pool.share(m) for m in (first, second, third)] == [0, 2, 0]
    a, b, c = (Executable(m) for m in (first, second, third))
    assert [t.data_ptr() for t in big(a)] == [t.data_ptr() for t in big(b)]
    assert not {t.data_ptr() for t in big(a)} & {t.data_ptr() for t in big(c)}
    del a
    gc.collect()
    with torch.no_grad():  # the first graph gone, the second still has its weights
        torch.testing.assert_close(b.run(x)[0], model(x), rtol=1e-4, atol=1e-4)
        torch.testing.assert_close(c.run(x)[0], other(x), rtol=1e-4, atol=1e-4)


def test_the_backend_loads_no_copy_of_the_parameters():
    """torch.compile at two shapes (two graphs): every large weight either
    graph loaded is a parameter's own memory."""
    torch._dynamo.reset()
    torch.manual_seed(0)
    model = MLP().eval()
    compiled = torch.compile(model, backend=get_npu_backend(), dynamic=False)
    with torch.no_grad():
        for rows in (1, 4):
            x = torch.randn(rows, 256)
            torch.testing.assert_close(compiled(x), model(x), rtol=1e-4, atol=1e-4)
    gc.collect()
    params = {model.up.weight.data_ptr(), model.down.weight.data_ptr()}
    replicas = [r for r in gc.get_objects() if isinstance(r, Replica)
                and {t.data_ptr() for t in big(r)} & params]
    assert len(replicas) >= 2
    assert all({t.data_ptr() for t in big(r)} == params for r in replicas)
    torch._dynamo.reset()


@pytest.mark.skipif(not onednn.available(), reason="no oneDNN library (onednn-cpu-gomp)")
@pytest.mark.parametrize("rows, prepack, plain", [(1, True, True), (2, True, True),
                                                  (8, True, False), (8, False, True)])
def test_linears_of_few_rows_read_the_weight_where_it_is(rows, prepack, plain):
    torch.manual_seed(0)
    x, w, b = torch.randn(rows, 256), torch.randn(512, 256), torch.randn(512)
    out = torch.empty(rows, 512)
    with onednn.prepacking(prepack):
        linear = onednn.linear(x, w, b, out)
    kept = {t.data_ptr() for t in linear._keep}
    assert (w.data_ptr() in kept) == plain
    linear()
    torch.testing.assert_close(out, x @ w.T + b, rtol=1e-4, atol=1e-4)


def test_the_weight_pool_forgets_dead_tensors():
    """The pool's index holds only live tensors: nothing grows with the
    weights a long-lived backend has seen."""
    from runtime.weight_pool import WeightPool

    pool = WeightPool()
    weights = [torch.randn(256, 128) for _ in range(3)]  # 128 KB each
    for w in weights:
        pool.add(w)
    assert len(pool._index) == 3
    del w
    weights.pop()
    assert len(pool._index) == 2
    weights.clear()
    assert not pool._index
