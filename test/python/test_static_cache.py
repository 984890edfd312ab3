"""In-place updates of graph inputs and buffers: a static KV cache.

A decode step that writes each token's keys and values into a preallocated
cache (index_copy_, index_put_, copy_) runs against eager step after step,
with the cache updated in place: the module's buffers (or the caller's
tensors) are the ones written, with no copy of the cache per call, and the
memory plan never places a temporary in them."""

import pytest
import torch
from torch import nn

import npu_graph
from ge_dialect import STATE_BUFFERS, ascend, find_func, plan_verifier
from test.models.static_cache import make

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::UserWarning")


def _twin(model: nn.Module) -> nn.Module:
    twin = type(model)().eval()
    twin.load_state_dict(model.state_dict())
    return twin


def _cache_writers(module) -> dict[str, str]:
    """Lowered tasks that write a graph argument: task name -> argument name."""
    fn = find_func(module)
    args = set(fn.body.block.args)
    return {op.task_name.data: v.name_hint for op in fn.walk()
            if isinstance(op, ascend.TaskOp) for v in op.outs if v in args}


def test_static_cache_decode_matches_eager_and_updates_the_buffers_in_place():
    model, example = make()
    eager = _twin(model)
    graph = npu_graph.NpuGraph(model, input_spec=example)
    assert find_func(graph.module).attributes[STATE_BUFFERS].data[0].data == "key_cache"
    compiled = graph.optimize()
    writers = _cache_writers(compiled.module)
    assert sorted(writers.values()) == ["key_cache", "value_cache"]
    assert all(name.startswith("scatter_update") for name in writers)
    assert plan_verifier.check_module(compiled.module) == []
    keys = model.key_cache.data_ptr()
    torch.manual_seed(3)
    for step in range(4):  # the whole cache, twice over every position
        x, pos = torch.randn(1, 1, 8), torch.tensor([step])
        got = compiled(x, pos)
        with torch.no_grad():
            want = eager(x, pos)
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)
        torch.testing.assert_close(model.key_cache, eager.key_cache, rtol=1e-4, atol=1e-4)
        torch.testing.assert_close(model.value_cache, eager.value_cache, rtol=1e-4, atol=1e-4)
    assert model.key_cache.data_ptr() == keys
    assert model.key_cache[:, :, 3].abs().sum() > 0


class UpdatesItsInput(nn.Module):
    """The cache is the caller's tensor: cache[:, pos] = x, then read."""

    def forward(self, x, pos, cache):
        cache.index_copy_(1, pos, x)
        return cache.sum(1)


def test_a_callers_cache_is_written_in_place():
    cache = torch.zeros(2, 6, 4)
    x, pos = torch.randn(2, 1, 4), torch.tensor([2])
    compiled = npu_graph.NpuGraph(UpdatesItsInput(), input_spec=(x, pos, cache.clone())).optimize()
    expected_cache = cache.clone().index_copy_(1, pos, x)
    got = compiled(x, pos, cache)
    torch.testing.assert_close(cache, expected_cache)
    torch.testing.assert_close(got, expected_cache.sum(1))
    x2 = torch.randn(2, 1, 4)
    compiled(x2, torch.tensor([5]), cache)
    torch.testing.assert_close(cache[:, 5:6], x2)
    torch.testing.assert_close(cache[:, 2:3], x)


class ReadsBeforeUpdate(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("cache", torch.zeros(4, 3))

    def forward(self, x, pos):
        before = self.cache * 2
        self.cache.index_copy_(0, pos, x)
        return before + self.cache


def test_an_update_after_a_read_of_the_old_contents_takes_the_functional_form():
    """In-place, the old contents would be gone before their reader runs; the
    core ATen form computes the new contents apart and assigns them last."""
    model = ReadsBeforeUpdate()
    eager = ReadsBeforeUpdate()
    x, pos = torch.randn(1, 3), torch.tensor([1])
    graph = npu_graph.NpuGraph(model, input_spec=(x, pos))
    assert "ge.assign" in graph.to_mlir() and "ge.scatter_update" not in graph.to_mlir()
    compiled = graph.optimize()
    for step in range(2):
        x, pos = torch.randn(1, 3), torch.tensor([step + 1])
        torch.testing.assert_close(compiled(x, pos), eager(x, pos))
        torch.testing.assert_close(model.cache, eager.cache)


def test_hf_static_cache_export_decodes_in_place_like_eager():
    """HF's own export recipe: TorchExportableModuleWithStaticCache keeps the
    cache in buffers and writes them with index_copy_ at cache_position."""
    transformers = pytest.importorskip("transformers")
    from transformers.integrations.executorch import TorchExportableModuleWithStaticCache

    torch.manual_seed(0)
    config = transformers.LlamaConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2,
                                      num_attention_heads=4, num_key_value_heads=2,
                                      intermediate_size=64, max_position_embeddings=64)
    model = transformers.LlamaForCausalLM(config).eval()
    model.generation_config.cache_implementation = "static"
    wrapped = TorchExportableModuleWithStaticCache(model, batch_size=1, max_cache_len=8)
    eager = TorchExportableModuleWithStaticCache(model, batch_size=1, max_cache_len=8)
    compiled = npu_graph.NpuGraph(
        wrapped, input_spec=(torch.tensor([[1]]), None, torch.tensor([0]))).optimize()
    assert "ge.scatter_update" in str(npu_graph.NpuGraph(
        wrapped, input_spec=(torch.tensor([[1]]), None, torch.tensor([0]))).to_mlir())
    keys = wrapped.key_cache_0.data_ptr()
    for step, token in enumerate([5, 17, 42, 7]):
        ids, pos = torch.tensor([[token]]), torch.tensor([step])
        got = compiled(ids, None, pos)
        with torch.no_grad():
            want = eager(ids, cache_position=pos)
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)
        for name in ("key_cache_0", "value_cache_1"):
            torch.testing.assert_close(getattr(wrapped, name), getattr(eager, name),
                                       rtol=1e-4, atol=1e-4)
    assert wrapped.key_cache_0.data_ptr() == keys
