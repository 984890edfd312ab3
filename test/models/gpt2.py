"""A GPT-2-style decoder: token + learned position embeddings, 2 pre-norm layers with a
causal mask (one by hand with masked_fill, one through scaled_dot_product_attention),
tanh GELU, final LayerNorm and an LM head tied to the token embedding."""

import torch
from torch import nn
from torch.nn import functional as F

from test.models.transformer import PreNormBlock, randomize_layer_norm


class GPT2(nn.Module):
    def __init__(self, vocab=100, dim=32, heads=4, max_len=32):
        super().__init__()
        self.wte = nn.Embedding(vocab, dim)
        self.wpe = nn.Embedding(max_len, dim)
        self.blocks = nn.ModuleList([
            PreNormBlock(dim, heads, "tanh", causal=True, sdpa=False, max_len=max_len),
            PreNormBlock(dim, heads, "tanh", causal=True, sdpa=True)])
        self.ln_f = nn.LayerNorm(dim)

    def forward(self, idx):
        t = idx.shape[1]
        x = self.wte(idx) + self.wpe(torch.arange(0, t, dtype=torch.long, device=idx.device))
        for block in self.blocks:
            x = block(x)
        return F.linear(self.ln_f(x), self.wte.weight)


def make():
    torch.manual_seed(0)
    return randomize_layer_norm(GPT2()).eval(), (torch.randint(0, 100, (2, 10)),)
