"""Models with data-dependent control flow: torch.cond and a while_loop."""

import torch
from torch import nn
from torch._higher_order_ops import while_loop


class CondModel(nn.Module):
    """Bright inputs (positive sum) go through a conv + ReLU, dark ones through a
    scale-and-shift; both branches keep the shape."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 3, padding=1)
        self.scale = nn.Parameter(torch.randn(4, 1, 1))

    def forward(self, x):
        def bright(x):
            return torch.relu(self.conv(x))

        def dark(x):
            return x * self.scale - 1.0

        y = torch.cond(x.sum() > 0, bright, dark, (x,))
        return y + 1.0


class WhileModel(nn.Module):
    """Apply a linear layer + tanh `n` times (n is a tensor input)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x, n):
        def cond(i, y):
            return i < n

        def body(i, y):
            return i + 1, torch.tanh(self.fc(y))

        _, y = while_loop(cond, body, (torch.zeros((), dtype=torch.int64), x.clone()))
        return y


def make_cond():
    torch.manual_seed(0)
    return CondModel().eval(), (torch.randn(1, 4, 8, 8).abs(),)


def make_while():
    torch.manual_seed(0)
    return WhileModel().eval(), (torch.randn(2, 8), torch.tensor(3))
