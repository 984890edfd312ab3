"""Hugging Face generate(), unmodified, through torch.compile(backend="ge"):
greedy tokens equal eager's with the default (dynamic) cache, and without a
cache in bf16; the static cache runs in eager, and the report says why."""

import subprocess
import sys
from pathlib import Path

import pytest
import torch
import torch._dynamo
from transformers import LlamaConfig, LlamaForCausalLM

from npu_graph import get_npu_backend

NEW_TOKENS = 8


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def tiny_llama(dtype=torch.float32):
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=128, hidden_size=64, intermediate_size=128,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                         max_position_embeddings=64)
    return LlamaForCausalLM(config).eval().to(dtype)


PROMPT = torch.randint(0, 128, (1, 6), generator=torch.Generator().manual_seed(1))


def generate_both(model, **options):
    """Eager's tokens, then the compiled forward's, and the backend's reports."""
    options = dict(max_new_tokens=NEW_TOKENS, do_sample=False, **options)
    with torch.no_grad():
        want = model.generate(PROMPT, **options)
    backend = get_npu_backend()
    model.forward = torch.compile(model.forward, backend=backend)
    with torch.no_grad():
        got = model.generate(PROMPT, **options)
    return got, want, list(backend.reports)


def test_generate_with_the_dynamic_cache():
    got, want, reports = generate_both(tiny_llama())
    assert torch.equal(got, want)
    # prefill, the first decode step, then one graph for every longer cache
    assert [r.status for r in reports] == ["compiled"] * 3


def test_generate_with_the_static_cache_runs_in_eager_and_says_why():
    got, want, reports = generate_both(tiny_llama(), cache_implementation="static")
    assert torch.equal(got, want)
    assert reports and all(r.status == "eager" and "USER_INPUT_MUTATION" in r.reason
                           for r in reports)


def test_bf16_generate_without_a_cache():
    """A bf16 checkpoint: the prefill logits within bf16's tolerance of eager
    bf16's (2e-2 relative), and the greedy tokens equal."""
    got, want, reports = generate_both(tiny_llama(torch.bfloat16), use_cache=False,
                                       output_logits=True, return_dict_in_generate=True)
    assert torch.equal(got.sequences, want.sequences)
    prefill, eager = got.logits[0].float(), want.logits[0].float()
    assert ((prefill - eager).abs().max() / eager.abs().max()).item() < 2e-2
    # the prompt's graph, then one with a symbolic length for every longer one
    assert [r.status for r in reports] == ["compiled"] * 2


def test_the_example_runs():
    example = Path(__file__).parents[2] / "examples" / "hf_generate.py"
    r = subprocess.run([sys.executable, str(example), "--tokens", "1", "--cache", "none"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 tokens match eager token for token" in r.stdout
    assert "ge graph 0: 172 ops, compiled whole" in r.stderr
