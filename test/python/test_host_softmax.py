"""runtime/host/softmax.py: the attention's softmax over score rows as one C loop."""

import pytest
import torch

from runtime.host import softmax as host_softmax

pytestmark = pytest.mark.skipif(host_softmax.library() is None, reason="no C compiler")

FILL = torch.finfo(torch.float32).min


def scores(shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=g) * 4
    x[..., -3:] = FILL  # masked keys, as BERT's additive mask makes them
    return x


@pytest.mark.parametrize("shape", [(1, 12, 128, 128), (2, 3, 5, 17), (1, 1, 1, 1)])
def test_in_place_matches_torch(shape):
    x = scores(shape) if shape[-1] > 3 else torch.randn(shape)
    want = torch.softmax(x, -1)
    host_softmax.rows(list(shape), probabilities=False)(x)
    torch.testing.assert_close(x, want, rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("shape", [(1, 12, 128, 128), (2, 3, 5, 17)])
def test_bf16_probabilities_are_the_fp32_softmax_rounded_once(shape):
    x = scores(shape, seed=1)
    want = torch.softmax(x, -1)
    p = torch.empty(shape, dtype=torch.bfloat16)
    host_softmax.rows(list(shape), probabilities=True)(x, p)
    rounded = want.to(torch.bfloat16)
    # exp within 2e-7 of torch's: a value at a rounding tie's edge may go the other way
    assert (p != rounded).float().mean() < 1e-3
    torch.testing.assert_close(p.float(), want, rtol=2 ** -8, atol=1e-9)
    torch.testing.assert_close(x / x.sum(-1, keepdim=True), want, rtol=2e-6, atol=1e-7)


def test_rows_the_body_makes_nan_come_out_nan():
    """Every key masked with -inf, or a NaN score: torch's softmax gives a NaN
    row there, and so does the loop; -inf in part of a row is an exp of 0."""
    x = torch.randn(4, 8)
    x[0] = float("-inf")
    x[1, 3] = float("nan")
    x[2, :5] = float("-inf")
    x[3, 2] = float("inf")
    want = torch.softmax(x, -1)
    for probabilities in (False, True):
        y = x.clone()
        p = torch.empty(4, 8, dtype=torch.bfloat16)
        host_softmax.rows([4, 8], probabilities)(y, p)
        got = p.float() if probabilities else y
        assert torch.equal(got.isnan(), want.isnan()), (got, want)
        torch.testing.assert_close(got[2], want[2], rtol=1e-2 if probabilities else 1e-6,
                                   atol=1e-7)


def test_bert_shaped_attention_runs_the_loop(monkeypatch):
    """The oneDNN attention of an encoder takes its softmax from the loop."""
    from runtime.host import onednn
    from test.python.test_host_attention import Encoder, encoder_inputs
    from npu_graph.compiler import compile_model

    if not onednn.available():
        pytest.skip("oneDNN's library is not installed")
    calls = []
    rows = host_softmax.rows

    def counted(shape, probabilities):
        loop = rows(shape, probabilities)
        calls.append((list(shape), probabilities))
        return loop
    monkeypatch.setattr(host_softmax, "rows", counted)
    torch.manual_seed(0)
    model = Encoder(merge=True).eval()
    executable = compile_model(model, encoder_inputs(0))
    assert calls == [([2, 4, 16, 16], False)]
    inputs = encoder_inputs(1, masked=5)
    (got,) = executable.run(*inputs)
    torch.testing.assert_close(got, model(*inputs), rtol=1e-5, atol=1e-5)
