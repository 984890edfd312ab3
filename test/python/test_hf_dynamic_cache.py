"""Hugging Face decoders exported with a `DynamicCache` as HF builds it: the
cache goes in and out of the graph as a pytree of tensors, the past length is
symbolic (torch.export `Dim`), and HF's own position ids and causal mask are
computed in the graph from it (tensor + SymInt, sym_max, a slice with a
symbolic start). One compiled graph serves two past lengths, checked against
eager: logits and every new cache tensor. No position_ids or mask inputs."""

import copy

import pytest
import torch
from torch.export import Dim

import npu_graph
from lowering.torch_to_ge import GEImportError, import_module
from runtime.host import row_attention

transformers = pytest.importorskip("transformers")
pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::UserWarning")

VOCAB = 100
SMALL = dict(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
             intermediate_size=64, max_position_embeddings=64, bos_token_id=0,
             eos_token_id=0)


def _decoder(name: str):
    T = transformers
    configs = {
        "llama": lambda: T.LlamaForCausalLM(T.LlamaConfig(num_key_value_heads=2, **SMALL)),
        "qwen2": lambda: T.Qwen2ForCausalLM(T.Qwen2Config(num_key_value_heads=2, **SMALL)),
        "mistral": lambda: T.MistralForCausalLM(T.MistralConfig(num_key_value_heads=2,
                                                                 **SMALL)),
        "phi": lambda: T.PhiForCausalLM(T.PhiConfig(**SMALL)),
        "gemma": lambda: T.GemmaForCausalLM(T.GemmaConfig(num_key_value_heads=2, head_dim=8,
                                                          **SMALL)),
        "gpt2": lambda: T.GPT2LMHeadModel(T.GPT2Config(
            vocab_size=VOCAB, n_embd=32, n_layer=2, n_head=4, n_positions=64,
            bos_token_id=0, eos_token_id=0)),
        "opt": lambda: T.OPTForCausalLM(T.OPTConfig(
            vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, ffn_dim=64,
            num_attention_heads=4, max_position_embeddings=64, word_embed_proj_dim=32,
            bos_token_id=0, eos_token_id=0, pad_token_id=1)),
    }
    torch.manual_seed(0)
    return configs[name]().eval()


class DecodeStep(torch.nn.Module):
    """One decode step as HF runs it: new ids and the cache in, logits and the grown cache out."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, ids, cache):
        out = self.model(input_ids=ids, past_key_values=cache, use_cache=True)
        return out.logits, out.past_key_values


def _cache(model, length: int):
    with torch.no_grad():
        return model(torch.randint(0, VOCAB, (1, length)), use_cache=True).past_key_values


def _tensors(cache) -> list[torch.Tensor]:
    return [t for layer in cache.layers for t in (layer.keys, layer.values)]


@pytest.mark.parametrize("name", ["llama", "qwen2", "mistral", "gpt2", "phi", "opt", "gemma"])
def test_decode_with_dynamic_cache_matches_eager_at_two_past_lengths(name):
    model = _decoder(name)
    layers = model.config.num_hidden_layers
    ids = torch.randint(0, VOCAB, (1, 1))
    # transformers flattens a DynamicCache into its key tensors, then its values
    past = Dim.DYNAMIC
    dynamic = {"ids": None, "cache": [[{2: past}] * layers] * 2}
    graph = npu_graph.NpuGraph(DecodeStep(model), input_spec=(ids, _cache(model, 5)),
                               dynamic_shapes=dynamic)
    text = graph.to_mlir()
    assert "ge.dim" in text  # the past length is read from the cache at run time
    compiled = graph.optimize()
    replica = compiled.executable._new_replica()
    if name == "llama" and row_attention.library() is not None:
        # attention over the growing cache runs the C loop, the projections their runners
        fast = {replica.tasks[i].name.split("_")[0] for i in replica.fast_tasks}
        assert {"attention", "linear", "rms"} <= fast, fast
    for length in (5, 11):
        cache = _cache(model, length)
        ids = torch.randint(0, VOCAB, (1, 1))
        logits, new_cache = compiled(ids, copy.deepcopy(cache))
        with torch.no_grad():
            expected = model(input_ids=ids, past_key_values=copy.deepcopy(cache),
                             use_cache=True)
        assert type(new_cache).__name__ == "DynamicCache"
        torch.testing.assert_close(logits, expected.logits, rtol=1e-4, atol=1e-4)
        got, want = _tensors(new_cache), _tensors(expected.past_key_values)
        assert len(got) == len(want) and got[0].shape[2] == length + 1
        for g, e in zip(got, want):
            torch.testing.assert_close(g, e, rtol=1e-4, atol=1e-4)


def test_default_causal_lm_imports_with_its_cache_as_outputs():
    """LlamaForCausalLM as configured by default returns a DynamicCache; its
    tensors become graph outputs and the structure comes back."""
    model = _decoder("llama")
    ids = torch.randint(0, VOCAB, (1, 5))
    module = import_module(model, (ids,))
    outputs = module.ops.first.function_type.outputs.data
    assert len(outputs) == 1 + 2 * model.config.num_hidden_layers


class ReturnsStaticCache(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, ids):
        cache = transformers.StaticCache(config=self.model.config, max_cache_len=16)
        return self.model(ids, past_key_values=cache, use_cache=True)


def test_a_cache_torch_export_cannot_flatten_names_the_fixes():
    with pytest.raises(GEImportError) as info:
        import_module(ReturnsStaticCache(_decoder("llama")), (torch.randint(0, VOCAB, (1, 5)),))
    msg = str(info.value)
    assert "returns a StaticCache" in msg
    assert 'backend="ge"' in msg and "use_cache=False" in msg
    assert "not a known type" not in msg


def test_a_sliding_window_cache_warns_where_the_graph_stops_being_valid():
    T = transformers
    torch.manual_seed(0)
    model = T.MistralForCausalLM(T.MistralConfig(num_key_value_heads=2, sliding_window=8,
                                                 **SMALL)).eval()
    ids = torch.randint(0, VOCAB, (1, 1))
    with pytest.warns(RuntimeWarning, match="sliding-window layers \\(window 8\\)"):
        import_module(DecodeStep(model), (ids, _cache(model, 5)))
