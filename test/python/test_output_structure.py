"""A compiled graph returns what eager returns: dicts, nested tuples and
namedtuples come back in the same structure (lowering/output_tree.py), through
optimization, lowering, the executor API and a `.npu` file."""

import collections

import pytest
import torch

from npu_graph import GraphExecutor, NpuGraph
from npu_graph.artifact import load

Pair = collections.namedtuple("Pair", "low high")


class DictOut(torch.nn.Module):
    def forward(self, x):
        return {"a": torch.relu(x), "b": x * 2}


class NestedOut(torch.nn.Module):
    def forward(self, x):
        return x + 1, (x * 3, [x - 1, {"deep": x.sum(dim=1)}])


class NamedOut(torch.nn.Module):
    def forward(self, x):
        return Pair(x.amin(dim=1), x.amax(dim=1))


class PlainOut(torch.nn.Module):
    def forward(self, x):
        return x + 1, x * 2


def same_structure(got, want):
    if isinstance(want, torch.Tensor):
        assert isinstance(got, torch.Tensor)
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)
        return
    assert type(got) is type(want), (type(got), type(want))
    if isinstance(want, dict):
        assert list(got) == list(want)
        for k in want:
            same_structure(got[k], want[k])
    else:
        assert len(got) == len(want)
        for g, w in zip(got, want):
            same_structure(g, w)


@pytest.mark.parametrize("model", [DictOut(), NestedOut(), NamedOut(), PlainOut()],
                         ids=lambda m: type(m).__name__)
def test_outputs_keep_eager_s_structure(model, tmp_path):
    x = torch.randn(2, 5)
    with torch.no_grad():
        want = model(x)
    optimized = NpuGraph(model, input_spec=(x,)).optimize()
    same_structure(optimized(x), want)
    executor = GraphExecutor()
    executor.load_graph(optimized)
    same_structure(executor.run(input_data=x), want)
    same_structure(executor.run_async(input_data=x).result(timeout=60), want)
    path = str(tmp_path / "graph.npu")
    optimized.save(path)
    same_structure(load(path)(x), want)


def test_dict_outputs_can_be_indexed_by_key():
    x = torch.randn(3, 4)
    out = NpuGraph(DictOut(), input_spec=(x,)).optimize()(x)
    torch.testing.assert_close(out["b"], x * 2)


def test_a_plain_tuple_keeps_no_structure_attribute():
    x = torch.randn(2, 5)
    assert "ge.output_tree" not in str(NpuGraph(PlainOut(), input_spec=(x,)))
    assert "ge.output_tree" in str(NpuGraph(DictOut(), input_spec=(x,)))


def test_a_hugging_face_model_output_comes_back_as_its_class(tmp_path):
    """BERT returns a ModelOutput (an OrderedDict subclass read by attribute,
    key and position); the compiled graph and its `.npu` file return one too."""
    pytest.importorskip("transformers")
    from test.models import hf

    model, inputs = hf.bert()
    model.eval()
    with torch.no_grad():
        want = model(*inputs)
    optimized = NpuGraph(model, input_spec=inputs).optimize()
    path = str(tmp_path / "bert.npu")
    optimized.save(path)
    for got in (optimized(*inputs), load(path)(*inputs)):
        same_structure(got, want)
        torch.testing.assert_close(got.last_hidden_state, want.last_hidden_state,
                                   rtol=1e-4, atol=1e-4)
        torch.testing.assert_close(got[1], want.pooler_output, rtol=1e-4, atol=1e-4)
