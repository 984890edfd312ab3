"""The decode step's fast path against eager: Hugging Face Llama over its
static cache, one token at a time, with attention's q, k and v projections
merged into one linear (merge-parallel-linears + op-fusion's split_heads),
grouped-query attention reading the cache's KV heads as they are, and the
RMSNorm, rotary and gated-MLP runners; and merged biased projections (BERT's
query, key and value) alone."""

import pytest
import torch
from torch import nn

import npu_graph
from npu_graph.compiler import compile_model
from runtime.host import onednn as dnnl
from runtime.host import row_attention
from runtime.replay import Replay

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::UserWarning")

# ge-O3 (with merge-parallel-linears before op-fusion), lowered and planned
PASSES = ["canonicalize", "constant-fold", "fold-batch-norm", "cse", "merge-parallel-linears",
          "op-fusion", "dce", "hardware-mapping", "lower-to-ascend", "task-parallel",
          "memory-reuse"]


def _tiny_llama():
    """(compiled decode step, its static-cache module, eager's): a tiny HF Llama."""
    transformers = pytest.importorskip("transformers")
    from transformers.integrations.executorch import TorchExportableModuleWithStaticCache

    torch.manual_seed(0)
    config = transformers.LlamaConfig(vocab_size=100, hidden_size=64, num_hidden_layers=2,
                                      num_attention_heads=4, num_key_value_heads=2,
                                      intermediate_size=96, max_position_embeddings=64)
    model = transformers.LlamaForCausalLM(config).eval()
    model.generation_config.cache_implementation = "static"
    ours = TorchExportableModuleWithStaticCache(model, batch_size=1, max_cache_len=8)
    eager = TorchExportableModuleWithStaticCache(model, batch_size=1, max_cache_len=8)
    compiled = npu_graph.NpuGraph(
        ours, input_spec=(torch.tensor([[1]]), None, torch.tensor([0]))).optimize(
        passes=PASSES)
    return compiled, ours, eager


def test_llama_decode_steps_take_the_fast_path_and_match_eager():
    compiled, ours, eager = _tiny_llama()
    exe = compiled.executable
    names = [t.name for t in exe.tasks]
    runners = {t.name: r.__name__ for t, r in zip(exe.tasks, exe.runners)}
    # per layer: one q/k/v linear and three splits; no repeat of the KV heads
    assert sum(n.startswith("split_heads") for n in names) == 3 * 2, names
    assert not any(n.startswith("expand") for n in names), names
    assert {runners[n] for n in names if n.startswith("split_heads")} == {"copy_views"}
    for kind, runner in (("rms_norm", "rms_norm"), ("rotary_embedding", "rotary"),
                         ("gated_mlp", "gated_mlp")):
        assert {runners[n] for n in names if n.startswith(kind)} == {runner}, runners
    if dnnl.available():  # silu and the product are the linears' post-ops: one bound call
        assert all(hasattr(r, "bare") for t, r in zip(exe.tasks, exe.runners)
                   if t.name.startswith("gated_mlp"))
    grouped = [r for r in exe.runners if getattr(r, "groups", 1) == 2]
    assert len(grouped) == 2, runners
    if row_attention.library() is not None:  # the C loop reads the cache where it is
        assert all(r.row_loop for r in grouped)
    for step, token in enumerate([5, 17, 42, 7, 9, 3, 60, 1, 2]):  # past the cache's end too
        ids, pos = torch.tensor([[token]]), torch.tensor([step % 8])
        got = compiled(ids, None, pos)
        with torch.no_grad():
            want = eager(ids, cache_position=pos)
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)
        torch.testing.assert_close(ours.key_cache_1, eager.key_cache_1, rtol=1e-4, atol=1e-4)


def test_a_captured_replay_binds_attention_and_cache_updates_and_matches_eager():
    """In a replay the cache tensors are fixed: attention over them and their
    in-place updates become calls with no arguments (`bind`)."""
    compiled, ours, eager = _tiny_llama()
    replay = Replay(compiled.executable)
    kinds = {}
    for step, token in enumerate([5, 17, 42, 7, 9, 3, 60, 1, 2]):
        ids, pos = torch.tensor([[token]]), torch.tensor([step % 8])
        (got,) = replay.run(ids, pos, *compiled.state)
        if not kinds:
            exe = replay.replica
            for i, (_, args) in zip(exe.host_order, replay.steps):
                kinds.setdefault(exe.tasks[i].name.split("_")[0], []).append(args)
        with torch.no_grad():
            want = eager(ids, cache_position=pos)
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)
        torch.testing.assert_close(ours.key_cache_1, eager.key_cache_1, rtol=1e-4, atol=1e-4)
    assert kinds["scatter"] == [[]] * 4, kinds  # k and v of two layers
    if row_attention.library() is not None:
        assert kinds["attention"] == [[]] * 2, kinds


class BiasedHeads(nn.Module):
    """BERT-style query, key and value projections with biases (one
    without), split into heads and attended over."""

    def __init__(self):
        super().__init__()
        self.q, self.k, self.v = nn.Linear(16, 16), nn.Linear(16, 16, bias=False), nn.Linear(16, 16)

    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = (p(x).view(b, t, 2, 8).transpose(1, 2) for p in (self.q, self.k, self.v))
        return torch.softmax(q @ k.transpose(2, 3) * 0.3, -1) @ v, k * 2.0


def test_merged_biased_projections_match_eager():
    torch.manual_seed(0)
    model = BiasedHeads().eval()
    x = torch.randn(2, 5, 16)
    exe = compile_model(model, (x,), ",".join(PASSES[:-3]))
    linears = [t.name for t in exe.tasks if "linear" in t.name or "matmul" in t.name]
    assert len(linears) == 1, [t.name for t in exe.tasks]
    for trial in range(2):
        x = torch.randn(2, 5, 16) * (trial + 1)
        got = exe.run(x)
        with torch.no_grad():
            want = model(x)
        for g, w in zip(got, want):
            torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-4)
