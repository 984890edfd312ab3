"""A BERT-style encoder: token, position and segment embeddings, 2 post-norm layers
with a padding mask, exact GELU, and a tanh pooler."""

import torch
from torch import nn

from test.models.transformer import FeedForward, SelfAttention, randomize_layer_norm


class EncoderLayer(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.attn = SelfAttention(dim, heads)
        self.ln1, self.ln2 = nn.LayerNorm(dim, eps=1e-12), nn.LayerNorm(dim, eps=1e-12)
        self.mlp = FeedForward(dim, 4 * dim)

    def forward(self, x, mask):
        x = self.ln1(x + self.attn(x, mask))
        return self.ln2(x + self.mlp(x))


class Bert(nn.Module):
    def __init__(self, vocab=100, dim=32, heads=4, layers=2, max_len=32):
        super().__init__()
        self.tokens = nn.Embedding(vocab, dim)
        self.positions = nn.Embedding(max_len, dim)
        self.segments = nn.Embedding(2, dim)
        self.ln = nn.LayerNorm(dim, eps=1e-12)
        self.layers = nn.ModuleList(EncoderLayer(dim, heads) for _ in range(layers))
        self.pooler = nn.Linear(dim, dim)

    def forward(self, input_ids, attention_mask):
        t = input_ids.shape[1]
        positions = torch.arange(t, device=input_ids.device)
        x = self.tokens(input_ids) + self.positions(positions) + self.segments(
            torch.zeros_like(input_ids))
        x = self.ln(x)
        # [B, T] of 1 (keep) / 0 (pad) -> additive [B, 1, 1, T]
        mask = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * -10000.0
        for layer in self.layers:
            x = layer(x, mask)
        return x, torch.tanh(self.pooler(x[:, 0]))


def make():
    torch.manual_seed(0)
    model = randomize_layer_norm(Bert()).eval()
    ids = torch.randint(0, 100, (2, 12))
    mask = torch.ones(2, 12, dtype=torch.int64)
    mask[1, 9:] = 0
    return model, (ids, mask)
