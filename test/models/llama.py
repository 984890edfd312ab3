"""A Llama-style decoder for generation, with its KV cache as explicit tensors.

Rotary position embeddings, grouped-query attention, RMSNorm and a gated SiLU
MLP, as in Llama, Qwen2 and Mistral. Two entry points share the weights, so
each compiles once with a dynamic sequence length:

    prefill(ids, pos)          -> logits, k_0, v_0, k_1, v_1, ...
    decode(ids, pos, *cache)   -> logits, the cache with this step appended

`pos` holds each token's position (what HF calls position_ids); the rotary
tables are constants indexed by it, so no op needs a symbolic start.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn


@dataclass(frozen=True)
class Config:
    vocab: int = 128
    dim: int = 64
    layers: int = 2
    heads: int = 4
    kv_heads: int = 2
    hidden: int = 128
    max_positions: int = 128
    eps: float = 1e-6
    theta: float = 10000.0

    @property
    def head_dim(self) -> int:
        return self.dim // self.heads


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(dim))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat([-x[..., half:], x[..., :half]], dim=-1)


class Attention(nn.Module):
    def __init__(self, c: Config):
        super().__init__()
        self.c = c
        self.q = nn.Linear(c.dim, c.heads * c.head_dim, bias=False)
        self.k = nn.Linear(c.dim, c.kv_heads * c.head_dim, bias=False)
        self.v = nn.Linear(c.dim, c.kv_heads * c.head_dim, bias=False)
        self.o = nn.Linear(c.heads * c.head_dim, c.dim, bias=False)

    def forward(self, x, cos, sin, mask, past_k=None, past_v=None):
        c = self.c
        b, t = x.shape[0], x.shape[1]
        q = self.q(x).view(b, t, c.heads, c.head_dim).transpose(1, 2)
        k = self.k(x).view(b, t, c.kv_heads, c.head_dim).transpose(1, 2)
        v = self.v(x).view(b, t, c.kv_heads, c.head_dim).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        if past_k is not None:
            k = torch.cat([past_k, k], dim=2)
            v = torch.cat([past_v, v], dim=2)
        # grouped-query attention: each key/value head serves heads / kv_heads queries
        rep = c.heads // c.kv_heads
        kr = torch.repeat_interleave(k, rep, dim=1)
        vr = torch.repeat_interleave(v, rep, dim=1)
        scores = q @ kr.transpose(-1, -2) / c.head_dim ** 0.5
        if mask is not None:
            scores = scores.masked_fill(mask, float("-inf"))
        out = torch.softmax(scores, dim=-1) @ vr
        return self.o(out.transpose(1, 2).reshape(b, t, c.dim)), k, v


class Block(nn.Module):
    def __init__(self, c: Config):
        super().__init__()
        self.attn_norm = RMSNorm(c.dim, c.eps)
        self.attn = Attention(c)
        self.mlp_norm = RMSNorm(c.dim, c.eps)
        self.gate = nn.Linear(c.dim, c.hidden, bias=False)
        self.up = nn.Linear(c.dim, c.hidden, bias=False)
        self.down = nn.Linear(c.hidden, c.dim, bias=False)

    def forward(self, x, cos, sin, mask, past_k=None, past_v=None):
        h, k, v = self.attn(self.attn_norm(x), cos, sin, mask, past_k, past_v)
        x = x + h
        y = self.mlp_norm(x)
        return x + self.down(F.silu(self.gate(y)) * self.up(y)), k, v


class Decoder(nn.Module):
    def __init__(self, c: Config = Config()):
        super().__init__()
        self.c = c
        self.embed = nn.Embedding(c.vocab, c.dim)
        self.blocks = nn.ModuleList(Block(c) for _ in range(c.layers))
        self.norm = RMSNorm(c.dim, c.eps)
        self.head = nn.Linear(c.dim, c.vocab, bias=False)
        inv = 1.0 / c.theta ** (torch.arange(0, c.head_dim, 2).float() / c.head_dim)
        angles = torch.outer(torch.arange(c.max_positions).float(), inv)
        angles = torch.cat([angles, angles], dim=-1)
        self.register_buffer("cos_table", angles.cos(), persistent=False)
        self.register_buffer("sin_table", angles.sin(), persistent=False)

    def run(self, ids, pos, cache=None):
        x = self.embed(ids)
        cos = self.cos_table[pos][:, None]  # [b, 1, t, head_dim]
        sin = self.sin_table[pos][:, None]
        mask = None
        if cache is None:  # prefill: causal over the prompt
            t = torch.arange(ids.shape[1])
            mask = t[None, :] > t[:, None]
        new_cache = []
        for i, block in enumerate(self.blocks):
            past = (cache[2 * i], cache[2 * i + 1]) if cache is not None else (None, None)
            x, k, v = block(x, cos, sin, mask, *past)
            new_cache += [k, v]
        return (self.head(self.norm(x)), *new_cache)


class Prefill(nn.Module):
    def __init__(self, decoder: Decoder):
        super().__init__()
        self.decoder = decoder

    def forward(self, ids, pos):
        return self.decoder.run(ids, pos)


class Decode(nn.Module):
    def __init__(self, decoder: Decoder):
        super().__init__()
        self.decoder = decoder

    def forward(self, ids, pos, *cache):
        return self.decoder.run(ids, pos, list(cache))


def make_decoder(seed: int = 0) -> Decoder:
    torch.manual_seed(seed)
    return Decoder().eval()


def prefill_example(decoder: Decoder, prompt_len: int = 8, batch: int = 1):
    """Inputs and torch.export dynamic shapes for the prefill graph."""
    ids = torch.randint(0, decoder.c.vocab, (batch, prompt_len))
    pos = torch.arange(prompt_len)[None].expand(batch, prompt_len).contiguous()
    seq = torch.export.Dim("seq", min=2, max=decoder.c.max_positions - 1)
    return (ids, pos), ({1: seq}, {1: seq})


def decode_example(decoder: Decoder, past_len: int = 8, batch: int = 1):
    """Inputs and dynamic shapes for the decode graph: one token, a cache of any length."""
    c = decoder.c
    ids = torch.randint(0, c.vocab, (batch, 1))
    pos = torch.full((batch, 1), past_len)
    cache = [torch.randn(batch, c.kv_heads, past_len, c.head_dim) for _ in range(2 * c.layers)]
    past = torch.export.Dim.DYNAMIC
    return (ids, pos, *cache), (None, None, tuple({2: past} for _ in cache))


@torch.no_grad()
def generate_eager(decoder: Decoder, prompt: torch.Tensor, steps: int) -> list[int]:
    """Greedy generation in eager mode: the reference, token for token."""
    pos = torch.arange(prompt.shape[1])[None]
    logits, *cache = decoder.run(prompt, pos)
    tokens = [int(logits[0, -1].argmax())]
    for step in range(steps - 1):
        ids = torch.tensor([[tokens[-1]]])
        pos = torch.tensor([[prompt.shape[1] + step]])
        logits, *cache = decoder.run(ids, pos, cache)
        tokens.append(int(logits[0, -1].argmax()))
    return tokens
