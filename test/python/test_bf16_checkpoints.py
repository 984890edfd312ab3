"""bf16 and fp16 checkpoints import with their own weights and run against
eager in the same dtype (bf16's tolerance: 2e-2 relative)."""

import pytest
import torch
from transformers import LlamaConfig, LlamaForCausalLM

from npu_graph import NpuGraph


class Logits(torch.nn.Module):
    """A causal LM's prefill logits, without the cache."""

    def __init__(self, lm):
        super().__init__()
        self.lm = lm

    def forward(self, input_ids):
        return self.lm(input_ids=input_ids, use_cache=False).logits


def tiny_llama(dtype):
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=128, hidden_size=64, intermediate_size=128,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                         max_position_embeddings=64)
    return LlamaForCausalLM(config).eval().to(dtype)


def relative(got, want):
    return ((got.float() - want.float()).abs().max() / want.float().abs().max()).item()


def test_bf16_llama_prefill_within_bf16_tolerance():
    model = Logits(tiny_llama(torch.bfloat16))
    ids = torch.randint(0, 128, (1, 8), generator=torch.Generator().manual_seed(1))
    graph = NpuGraph(model, input_spec=(ids,))
    assert "xbf16>" in graph.to_mlir()  # the weights stay bf16
    out = graph.optimize()(ids)
    with torch.no_grad():
        want = model(ids)
    assert out.dtype == torch.bfloat16
    assert relative(out, want) < 2e-2


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_16_bit_mlp_matches_eager(dtype):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Embedding(32, 16), torch.nn.Linear(16, 32),
                                torch.nn.SiLU(), torch.nn.Linear(32, 8)).eval().to(dtype)
    ids = torch.randint(0, 32, (2, 5))
    out = NpuGraph(model, input_spec=(ids,)).optimize()(ids)
    with torch.no_grad():
        want = model(ids)
    assert out.dtype == dtype and relative(out, want) < 2e-2
