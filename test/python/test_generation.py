"""Generation with a KV cache: a Llama-style decoder compiled once for prefill and
once for decode (dynamic sequence lengths, the cache as explicit inputs and
outputs) generates the same 32 greedy tokens as eager PyTorch."""

import pytest
import torch

from examples.generate import compile_phases, generate
from test.models.llama import generate_eager, make_decoder

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::UserWarning")


@pytest.fixture(scope="module")
def phases():
    decoder = make_decoder()
    return decoder, *compile_phases(decoder)


def test_32_greedy_tokens_match_eager(phases):
    decoder, prefill, decode = phases
    torch.manual_seed(1)
    prompt = torch.randint(0, decoder.c.vocab, (1, 8))
    tokens, _, device = generate(prefill, decode, prompt, 32)
    assert tokens == generate_eager(decoder, prompt, 32)
    assert all(t > 0 for t in device)


def test_decode_logits_and_cache_match_eager_at_another_length(phases):
    """The decode graph is one graph for every cache length; check one it was
    not traced at, logits and the grown cache both."""
    decoder, _, decode = phases
    c = decoder.c
    torch.manual_seed(2)
    cache = [torch.randn(1, c.kv_heads, 13, c.head_dim) for _ in range(2 * c.layers)]
    ids, pos = torch.tensor([[5]]), torch.tensor([[13]])
    got = decode(ids, pos, *cache)
    with torch.no_grad():
        expected = decoder.run(ids, pos, cache)
    assert [tuple(t.shape) for t in got] == [tuple(t.shape) for t in expected]
    assert got[1].shape[2] == 14
    for g, e in zip(got, expected):
        torch.testing.assert_close(g, e, rtol=1e-4, atol=1e-4)
