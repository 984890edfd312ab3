"""A ViT: 8x8 patches by a strided conv, a class token, learned position embeddings,
2 pre-norm encoder layers, and a head on the class token."""

import torch
from torch import nn

from test.models.transformer import PreNormBlock, randomize_layer_norm


class ViT(nn.Module):
    def __init__(self, image=32, patch=8, dim=32, heads=4, layers=2, classes=10):
        super().__init__()
        self.patch = nn.Conv2d(3, dim, patch, stride=patch)
        n = (image // patch) ** 2
        self.cls = nn.Parameter(torch.randn(1, 1, dim) * 0.02)
        self.pos = nn.Parameter(torch.randn(1, n + 1, dim) * 0.02)
        self.blocks = nn.Sequential(*[PreNormBlock(dim, heads, sdpa=True)
                                      for _ in range(layers)])
        self.ln = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.pos
        x = self.ln(self.blocks(x))
        return self.head(x[:, 0])


def make():
    torch.manual_seed(0)
    return randomize_layer_norm(ViT()).eval(), (torch.randn(2, 3, 32, 32),)
