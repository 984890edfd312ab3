"""A multilayer perceptron: Linear -> ReLU -> Dropout -> Linear -> GELU -> Linear."""

import torch
from torch import nn


class MLP(nn.Sequential):
    def __init__(self, features: int = 32, hidden: int = 64, classes: int = 10):
        super().__init__(nn.Linear(features, hidden), nn.ReLU(), nn.Dropout(0.1),
                         nn.Linear(hidden, hidden), nn.GELU(), nn.Linear(hidden, classes))


def make():
    torch.manual_seed(0)
    return MLP().eval(), (torch.randn(4, 32),)
