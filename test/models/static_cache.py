"""A decode step into a preallocated KV cache, written as HF's StaticCache does:
the cache is a module buffer, updated in place with `index_copy_` (keys) and
`index_put_` (values, `cache[:, :, pos] = v`), then attended over with a mask
of the positions written so far.

    ge-import test/models/static_cache.py:make
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class StaticCacheAttention(nn.Module):
    """One attention layer decoding one token; `key_cache`/`value_cache` persist."""

    def __init__(self, dim: int = 8, heads: int = 2, max_len: int = 4):
        super().__init__()
        self.heads, self.head_dim, self.max_len = heads, dim // heads, max_len
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.register_buffer("key_cache", torch.zeros(1, heads, max_len, dim // heads))
        self.register_buffer("value_cache", torch.zeros(1, heads, max_len, dim // heads))

    def forward(self, x: torch.Tensor, cache_position: torch.Tensor) -> torch.Tensor:
        q, k, v = self.qkv(x).view(1, 1, 3, self.heads, self.head_dim).transpose(1, 3).unbind(2)
        self.key_cache.index_copy_(2, cache_position, k)
        self.value_cache[:, :, cache_position] = v
        mask = (torch.arange(self.max_len) <= cache_position).view(1, 1, 1, -1)
        attn = F.scaled_dot_product_attention(q, self.key_cache, self.value_cache, attn_mask=mask)
        return self.out(attn.transpose(1, 2).reshape(1, 1, -1))


def make():
    torch.manual_seed(0)
    return StaticCacheAttention().eval(), (torch.randn(1, 1, 8), torch.tensor([0]))
