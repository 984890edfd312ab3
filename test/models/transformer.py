"""Attention and MLP blocks shared by the zoo's BERT, GPT-2 and ViT models."""

import math

import torch
from torch import nn
from torch.nn import functional as F


class SelfAttention(nn.Module):
    """Multi-head self-attention, computed by hand (`sdpa=False`) or with
    F.scaled_dot_product_attention, which torch.export decomposes to the same ops."""

    def __init__(self, dim: int, heads: int, causal: bool = False, sdpa: bool = False,
                 max_len: int = 64):
        super().__init__()
        self.heads, self.causal, self.sdpa = heads, causal, sdpa
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        if causal and not sdpa:
            self.register_buffer("mask", torch.tril(torch.ones(max_len, max_len))
                                 .view(1, 1, max_len, max_len))

    def forward(self, x, additive_mask=None):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        q, k, v = (y.view(b, t, self.heads, c // self.heads).transpose(1, 2) for y in (q, k, v))
        if self.sdpa:
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=additive_mask,
                                               is_causal=self.causal)
        else:
            att = (q @ k.transpose(-2, -1)) / math.sqrt(k.size(-1))
            if self.causal:
                att = att.masked_fill(self.mask[:, :, :t, :t] == 0, float("-inf"))
            if additive_mask is not None:
                att = att + additive_mask
            y = F.softmax(att, dim=-1) @ v
        return self.proj(y.transpose(1, 2).reshape(b, t, c))


class FeedForward(nn.Sequential):
    def __init__(self, dim: int, hidden: int, approximate: str = "none"):
        super().__init__(nn.Linear(dim, hidden), nn.GELU(approximate=approximate),
                         nn.Linear(hidden, dim), nn.Dropout(0.1))


class PreNormBlock(nn.Module):
    """x + attn(ln(x)), then x + mlp(ln(x)) (GPT-2, ViT)."""

    def __init__(self, dim, heads, approximate="none", **attention):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = SelfAttention(dim, heads, **attention)
        self.mlp = FeedForward(dim, 4 * dim, approximate)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


def randomize_layer_norm(model: nn.Module) -> nn.Module:
    """Fresh LayerNorms are the identity affine map; make them not so (seed first)."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.LayerNorm):
                m.weight.uniform_(0.5, 1.5)
                m.bias.normal_(0.0, 0.2)
    return model
