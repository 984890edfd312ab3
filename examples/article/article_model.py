"""The GE article's model, shared by its snippets: Conv2d -> BatchNorm2d -> ReLU.

The BatchNorm gets trained-looking statistics, so folding it does real work.
"""

import torch
from torch import nn


class ArticleModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 64, kernel_size=3, padding=1)
        self.bn = nn.BatchNorm2d(64)
        self.relu = nn.ReLU()

    def forward(self, x):
        return self.relu(self.bn(self.conv(x)))


def make() -> tuple[nn.Module, torch.Tensor]:
    """(model in eval mode, a 1x3x224x224 input), seeded."""
    torch.manual_seed(0)
    model = ArticleModel().eval()
    with torch.no_grad():
        model.bn.running_mean.uniform_(-0.5, 0.5)
        model.bn.running_var.uniform_(0.5, 2.0)
    return model, torch.randn(1, 3, 224, 224)
