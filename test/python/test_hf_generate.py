"""Hugging Face generate(), unmodified, through torch.compile(backend="ge"):
greedy tokens equal eager's for seven decoders with the dynamic and the static
cache, the compiled graphs really run (a fallback to eager fails), the static
cache is updated in place, bf16 generates with each cache, and the graphs
dump as ge-opt input.

The matrix generates 16 new tokens per case; GE_LONG_TESTS=1 runs the full 64."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import torch._dynamo
import transformers as hf
from transformers import LlamaConfig, LlamaForCausalLM
from xdsl.parser import Parser

import npu_graph
from ge_dialect import make_context
from npu_graph import get_npu_backend

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::UserWarning")

NEW_TOKENS = 8
MATRIX_TOKENS = 64 if os.environ.get("GE_LONG_TESTS") == "1" else 16
VOCAB = 128


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def tiny_llama(dtype=torch.float32):
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=VOCAB, hidden_size=64, intermediate_size=128,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                         max_position_embeddings=128)
    return LlamaForCausalLM(config).eval().to(dtype)


# Tiny configs (hidden 32, one layer, 4 heads): compile time is what a case costs.
_ATTENTION = dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64,
                  num_hidden_layers=1, num_attention_heads=4, max_position_embeddings=128)
DECODERS = {
    "llama": lambda: hf.LlamaForCausalLM(hf.LlamaConfig(num_key_value_heads=2, **_ATTENTION)),
    "qwen2": lambda: hf.Qwen2ForCausalLM(hf.Qwen2Config(num_key_value_heads=2, **_ATTENTION)),
    # Mistral as configured by default: a sliding window (4096) the cache stays below
    "mistral": lambda: hf.MistralForCausalLM(hf.MistralConfig(num_key_value_heads=2,
                                                              **_ATTENTION)),
    "gpt2": lambda: hf.GPT2LMHeadModel(hf.GPT2Config(vocab_size=VOCAB, n_embd=32, n_layer=1,
                                                     n_head=4, n_positions=128)),
    "phi": lambda: hf.PhiForCausalLM(hf.PhiConfig(**_ATTENTION)),
    "opt": lambda: hf.OPTForCausalLM(hf.OPTConfig(
        vocab_size=VOCAB, hidden_size=32, ffn_dim=64, num_hidden_layers=1,
        num_attention_heads=4, max_position_embeddings=128, word_embed_proj_dim=32)),
    "gemma": lambda: hf.GemmaForCausalLM(hf.GemmaConfig(num_key_value_heads=2, head_dim=8,
                                                        **_ATTENTION)),
}
CACHES = {"dynamic": {}, "static": {"cache_implementation": "static"}}

PROMPT = torch.randint(0, VOCAB, (1, 6), generator=torch.Generator().manual_seed(1))


def generate_both(model, config=None, compile_options=None, **options):
    """Eager's tokens, then the compiled forward's, and the backend's reports."""
    options = {"max_new_tokens": NEW_TOKENS, "do_sample": False, **options}
    with torch.no_grad():
        want = model.generate(PROMPT, **options)
    backend = get_npu_backend(compiler_config=config)
    model.forward = torch.compile(model.forward, backend=backend, **(compile_options or {}))
    with torch.no_grad():
        got = model.generate(PROMPT, **options)
    return got, want, list(backend.reports)


def _described(reports) -> str:
    return "\n".join(r.line() for r in reports)


@pytest.mark.parametrize("cache", sorted(CACHES))
@pytest.mark.parametrize("name", sorted(DECODERS))
def test_generate_through_the_backend_equals_eager(name, cache):
    torch.manual_seed(0)
    model = DECODERS[name]().eval()
    got, want, reports = generate_both(model, max_new_tokens=MATRIX_TOKENS,
                                       min_new_tokens=MATRIX_TOKENS, **CACHES[cache])
    assert torch.equal(got, want), _described(reports)
    # every forward call (the prompt, then one per new token but the last) ran
    # compiled GE code: a silent fallback to eager fails here
    assert sum(r.calls for r in reports) >= MATRIX_TOKENS, _described(reports)
    # the model's graphs compile; only Mistral's 17-op sliding-window test
    # (`cumulative_length >= window`, data-dependent) runs in eager
    eager = [r for r in reports if r.status == "eager" and r.nodes > 20]
    assert not eager, _described(reports)
    if cache == "static":  # the cache tensors are written in place by the graph
        assert any(r.updates for r in reports), _described(reports)


def test_the_static_cache_decode_graph_writes_the_callers_cache_in_place():
    """One graph for every decode step, updating HF's StaticCache tensors with
    ge.scatter_update: the same tensors, no copy of the cache per call."""
    model = tiny_llama()
    got, want, reports = generate_both(model, cache_implementation="static")
    assert torch.equal(got, want)
    assert [r.status for r in reports] == ["compiled"] * 2
    decode = reports[1]
    # keys and values of two layers (scatter_update), two counters (assign)
    assert decode.updates == 6 and decode.calls == NEW_TOKENS - 1, decode.line()


def test_reduce_overhead_replays_the_static_cache_graphs():
    model = tiny_llama()
    config = npu_graph.CompilerConfig(mode="reduce-overhead")
    got, want, reports = generate_both(model, config, {"dynamic": False},
                                       cache_implementation="static")
    assert torch.equal(got, want), _described(reports)
    assert [(r.status, r.replayed) for r in reports] == [("compiled", True)] * 2
    # a second generate() makes a new cache: the replay binds it, same tokens
    with torch.no_grad():
        again = model.generate(PROMPT, max_new_tokens=NEW_TOKENS, do_sample=False,
                               cache_implementation="static")
    assert torch.equal(again, want)
    assert reports[1].calls == 2 * (NEW_TOKENS - 1)


BF16_CACHES = {"none": {"use_cache": False}, **CACHES}


@pytest.mark.parametrize("cache", sorted(BF16_CACHES))
def test_bf16_generates(cache):
    """A bf16 checkpoint, with each cache: the prefill logits within bf16's
    tolerance of eager bf16's (2e-2 relative), and the greedy tokens equal."""
    got, want, reports = generate_both(tiny_llama(torch.bfloat16), output_logits=True,
                                       return_dict_in_generate=True, **BF16_CACHES[cache])
    assert torch.equal(got.sequences, want.sequences), _described(reports)
    prefill, eager = got.logits[0].float(), want.logits[0].float()
    assert ((prefill - eager).abs().max() / eager.abs().max()).item() < 2e-2
    # the prompt's graph, the first step's, and (but for the static cache's
    # fixed shapes) one with a symbolic length for the later steps: all GE code
    assert all(r.status == "compiled" for r in reports), _described(reports)
    assert len(reports) <= (2 if cache == "static" else 3), _described(reports)
    assert sum(r.calls for r in reports) == NEW_TOKENS, _described(reports)


def test_graph_dump_path_writes_each_graph_for_ge_opt(tmp_path):
    """CompilerConfig.graph_dump_path (TorchAir's debug.graph_dump.path): the
    imported GE IR of each graph, as text the parser reads back, the decode
    graph with its in-place cache updates."""
    dump = tmp_path / "graphs"
    config = npu_graph.CompilerConfig(graph_dump_path=str(dump))
    got, want, reports = generate_both(tiny_llama(), config, cache_implementation="static")
    assert torch.equal(got, want)
    assert sorted(p.name for p in dump.iterdir()) == ["ge_graph_0.mlir", "ge_graph_1.mlir"]
    decode = Parser(make_context(), (dump / "ge_graph_1.mlir").read_text()).parse_module()
    names = [op.name for op in decode.walk()]
    # keys and values of two layers, and the two layers' position counters
    assert names.count("ge.scatter_update") == 4 and names.count("ge.assign") == 2


def test_the_example_runs():
    example = Path(__file__).parents[2] / "examples" / "hf_generate.py"
    r = subprocess.run([sys.executable, str(example), "--tokens", "1", "--cache", "none"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 tokens match eager token for token" in r.stdout
    assert "ge graph 0: 172 ops, compiled whole" in r.stderr


LONG_TOKENS = 1000
RSS_FROM = 10  # the token after which compiles and first allocations are done
RSS_SLACK_MB = 50


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


class _RssStreamer(hf.generation.streamers.BaseStreamer):
    """Reads this process's RSS after the RSS_FROM-th new token and the last."""

    def __init__(self):
        self.tokens, self.rss = -1, {}

    def put(self, value):
        self.tokens += 1  # the first put is the prompt
        if self.tokens in (RSS_FROM, LONG_TOKENS):
            self.rss[self.tokens] = _rss_mb()

    def end(self):
        pass


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="RSS read from /proc")
@pytest.mark.parametrize("cache", sorted(CACHES))
def test_a_thousand_tokens_keep_memory_flat(cache):
    """1000 tokens of generate() through the backend: RSS grows by less than
    50 MB between the 10th token and the last beyond what the KV cache itself
    grows by (a static cache holds its full length from the start), and the
    tokens equal eager's. A runtime that kept something per token (a plan per
    shape, a copy of the cache) grows by far more over 990 steps."""
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=VOCAB, hidden_size=64, intermediate_size=128,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                         max_position_embeddings=LONG_TOKENS + 64)
    model = LlamaForCausalLM(config).eval()
    options = {"max_new_tokens": LONG_TOKENS, "min_new_tokens": LONG_TOKENS,
               "do_sample": False, **CACHES[cache]}
    with torch.no_grad():
        want = model.generate(PROMPT, **options)
    mode = "reduce-overhead" if cache == "static" else "max-autotune"
    backend = get_npu_backend(compiler_config=npu_graph.CompilerConfig(mode=mode))
    model.forward = torch.compile(model.forward, backend=backend,
                                  dynamic=False if cache == "static" else None)
    streamer = _RssStreamer()
    with torch.no_grad():
        got = model.generate(PROMPT, streamer=streamer, **options)
    assert torch.equal(got, want), _described(backend.reports)
    assert sum(r.calls for r in backend.reports) >= LONG_TOKENS, _described(backend.reports)
    head_dim = config.hidden_size // config.num_attention_heads
    per_token = 2 * config.num_hidden_layers * config.num_key_value_heads * head_dim * 4
    kv_mb = 0 if cache == "static" else per_token * (LONG_TOKENS - RSS_FROM) / 2**20
    growth = streamer.rss[LONG_TOKENS] - streamer.rss[RSS_FROM]
    assert growth < kv_mb + RSS_SLACK_MB, (growth, kv_mb, streamer.rss)
