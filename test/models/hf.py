"""Hugging Face transformers architectures, built from small configs with random
weights (no hub access): the models users bring, written by someone else.

`HF_ZOO` maps a name to a factory returning `(model, example_inputs)`, seeded.
Each model is wrapped so its outputs are plain tensors: the last hidden state,
and for decoders the key and value tensors of the cache they build by default.
"""

from __future__ import annotations

import torch
from torch import nn

VOCAB = 100
SEQ = 16
BATCH = 2


class LastHiddenState(nn.Module):
    """model(*inputs).last_hidden_state, plus the cache's keys and values if any."""

    def __init__(self, model: nn.Module, with_cache: bool = False):
        super().__init__()
        self.model = model
        self.with_cache = with_cache

    def forward(self, *inputs):
        out = self.model(*inputs)
        if not self.with_cache:
            return out.last_hidden_state
        cache = [t for layer in out.past_key_values.layers for t in (layer.keys, layer.values)]
        return (out.last_hidden_state, *cache)


def _ids(low: int = 0) -> torch.Tensor:
    return torch.randint(low, VOCAB, (BATCH, SEQ))


def _encoder_config(cls, **extra):
    return cls(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
               intermediate_size=64, max_position_embeddings=64, **extra)


def bert():
    """BertModel called without token_type_ids (HF gathers buffered zeros)."""
    import transformers as T
    return T.BertModel(_encoder_config(T.BertConfig)), (_ids(),)


def roberta():
    """RobertaModel: position ids from a cumulative sum over the padding mask."""
    import transformers as T
    config = _encoder_config(T.RobertaConfig, pad_token_id=1)
    return T.RobertaModel(config), (_ids(low=2),)


def distilbert():
    import transformers as T
    config = T.DistilBertConfig(vocab_size=VOCAB, dim=32, n_layers=2, n_heads=4, hidden_dim=64,
                                max_position_embeddings=64)
    return T.DistilBertModel(config), (_ids(),)


def gpt2():
    """GPT2Model with its default DynamicCache, whose keys and values are outputs."""
    import transformers as T
    config = T.GPT2Config(vocab_size=VOCAB, n_embd=32, n_layer=2, n_head=4, n_positions=64,
                          bos_token_id=0, eos_token_id=0)
    return T.GPT2Model(config), (_ids(),)


def llama():
    """A Llama decoder: rotary embeddings, grouped-query attention (4 query heads
    share 2 key/value heads), RMSNorm and a gated SiLU MLP."""
    import transformers as T
    config = T.LlamaConfig(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2,
                           num_attention_heads=4, num_key_value_heads=2, intermediate_size=64,
                           max_position_embeddings=64)
    return T.LlamaModel(config), (_ids(),)


def t5_encoder():
    """T5's encoder: RMS-style layer norm and relative position buckets."""
    import transformers as T
    config = T.T5Config(vocab_size=VOCAB, d_model=32, d_kv=8, d_ff=64, num_layers=2,
                        num_heads=4)
    return T.T5EncoderModel(config), (_ids(),)


def vit():
    import transformers as T
    config = T.ViTConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                         intermediate_size=64, image_size=32, patch_size=8)
    return T.ViTModel(config), (torch.randn(BATCH, 3, 32, 32),)


def swin():
    """Swin: shifted windows, padding, and a relative position bias read by
    advanced indexing."""
    import transformers as T
    config = T.SwinConfig(image_size=32, patch_size=4, embed_dim=16, depths=[1, 1],
                          num_heads=[2, 2], window_size=4)
    return T.SwinModel(config), (torch.randn(BATCH, 3, 32, 32),)


def convnext():
    import transformers as T
    config = T.ConvNextConfig(num_stages=2, hidden_sizes=[8, 16], depths=[1, 1], image_size=32)
    return T.ConvNextModel(config), (torch.randn(BATCH, 3, 32, 32),)


def wav2vec2():
    """wav2vec2: a 1-D convolutional feature encoder, then a transformer whose
    positional convolution carries a weight norm."""
    import transformers as T
    config = T.Wav2Vec2Config(hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                              intermediate_size=64, conv_dim=(16, 16), conv_stride=(5, 2),
                              conv_kernel=(10, 3), num_conv_pos_embeddings=16,
                              num_conv_pos_embedding_groups=4)
    return T.Wav2Vec2Model(config), (torch.randn(BATCH, 800),)


_FACTORIES = {
    "bert": bert, "roberta": roberta, "distilbert": distilbert, "gpt2": gpt2, "llama": llama,
    "t5_encoder": t5_encoder, "vit": vit, "swin": swin, "convnext": convnext,
    "wav2vec2": wav2vec2,
}
WITH_CACHE = {"gpt2"}


def make(name: str):
    """The named architecture, seeded, in eval mode, wrapped to return tensors."""
    torch.manual_seed(0)
    model, inputs = _FACTORIES[name]()
    return LastHiddenState(model.eval(), with_cache=name in WITH_CACHE).eval(), inputs


HF_ZOO = {name: (lambda name=name: make(name)) for name in _FACTORIES}
