"""The GE article's example: Conv2d(3, 64, 3, padding=1) -> BatchNorm2d(64) -> ReLU."""

from collections import OrderedDict

import torch
from torch import nn

from test.models.common import randomize_batch_norm


class ConvBnRelu(nn.Sequential):
    def __init__(self, in_channels: int = 3, out_channels: int = 64):
        super().__init__(OrderedDict(
            conv=nn.Conv2d(in_channels, out_channels, 3, padding=1),
            bn=nn.BatchNorm2d(out_channels),
            relu=nn.ReLU(),
        ))


def make():
    """(model, example_inputs): the article's model on a 1x3x224x224 image."""
    torch.manual_seed(0)
    model = randomize_batch_norm(ConvBnRelu()).eval()
    return model, (torch.randn(1, 3, 224, 224),)
