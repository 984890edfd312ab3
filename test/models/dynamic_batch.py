"""A small CNN exported with a dynamic batch dimension: `dynamic_shapes` on the model
is what torch.export takes, and the zoo's tools pass it on."""

import torch
from torch import nn
from torch.export import Dim

from test.models.common import randomize_batch_norm


class DynamicBatchNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8),
                                      nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(8, 16, 3),
                                      nn.Hardswish())
        self.fc = nn.Linear(16, 5)
        self.dynamic_shapes = ({0: Dim("batch", min=1, max=64)},)

    def forward(self, x):
        x = self.features(x).mean(dim=(2, 3))
        return torch.softmax(self.fc(x), dim=-1)


def make():
    torch.manual_seed(0)
    return randomize_batch_norm(DynamicBatchNet()).eval(), (torch.randn(2, 3, 16, 16),)
