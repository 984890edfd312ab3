"""Small models with parallel branches, for the stream and memory planners.

Only ops the importer has today (conv2d, relu, add, max_pool2d, ...): the
Inception-style block sums its branches instead of concatenating them.
"""

import torch
from torch import nn

from test.models.common import randomize_batch_norm


def conv_bn_relu(cin: int, cout: int, k: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, k, padding=k // 2, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU())


class InceptionBlock(nn.Module):
    """Four parallel branches (1x1; 1x1 -> 3x3; 1x1 -> 5x5; maxpool -> 1x1), summed."""

    def __init__(self, cin: int = 16, cout: int = 16):
        super().__init__()
        self.b1 = conv_bn_relu(cin, cout, 1)
        self.b3 = nn.Sequential(conv_bn_relu(cin, 8, 1), conv_bn_relu(8, cout, 3))
        self.b5 = nn.Sequential(conv_bn_relu(cin, 4, 1), conv_bn_relu(4, cout, 5))
        self.pool = nn.Sequential(nn.MaxPool2d(3, stride=1, padding=1), conv_bn_relu(cin, cout, 1))

    def forward(self, x):
        return self.b1(x) + self.b3(x) + self.b5(x) + self.pool(x)


class InceptionNet(nn.Module):
    """Stem conv, two Inception blocks, global pool, classifier."""

    def __init__(self, width: int = 16, num_classes: int = 10):
        super().__init__()
        self.stem = conv_bn_relu(3, width, 3)
        self.block1 = InceptionBlock(width, width)
        self.block2 = InceptionBlock(width, width)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(width, num_classes)

    def forward(self, x):
        x = self.block2(self.block1(self.stem(x)))
        return self.fc(torch.flatten(self.pool(x), 1))


class TwoTowers(nn.Module):
    """Two wide-then-narrow towers, written so that program order keeps both wide
    tensors alive at once; finishing one tower first halves the peak."""

    def __init__(self, cin: int = 4, wide: int = 64, narrow: int = 4):
        super().__init__()
        self.a1 = nn.Conv2d(cin, wide, 3, padding=1)
        self.b1 = nn.Conv2d(cin, wide, 3, padding=1)
        self.a2 = nn.Conv2d(wide, narrow, 1)
        self.b2 = nn.Conv2d(wide, narrow, 1)

    def forward(self, x):
        a = torch.relu(self.a1(x))
        b = torch.relu(self.b1(x))
        return self.a2(a) + self.b2(b)


class SplitHeads(nn.Module):
    """Attention-shaped block with its heads split into separate ops: per head,
    scores = relu(q k^T) and out = scores v, heads summed. ReLU stands in for
    softmax and the caller passes x^T beside x (no transpose op yet), so it
    uses only matmul, linear, relu and add."""

    def __init__(self, dim: int = 32, heads: int = 4, head_dim: int = 16):
        super().__init__()
        self.q = nn.ModuleList(nn.Linear(dim, head_dim) for _ in range(heads))
        self.v = nn.ModuleList(nn.Linear(dim, head_dim) for _ in range(heads))
        self.k_t = nn.ParameterList(nn.Parameter(torch.randn(head_dim, dim) / dim**0.5)
                                    for _ in range(heads))

    def forward(self, x, x_t):
        out = None
        for q, v, k_t in zip(self.q, self.v, self.k_t):
            scores = torch.relu(torch.matmul(q(x), torch.matmul(k_t, x_t)))
            head = torch.matmul(scores, v(x))
            out = head if out is None else out + head
        return out


def make_split_heads():
    """(model, example_inputs): SplitHeads on 8 tokens of width 32, with x^T."""
    torch.manual_seed(0)
    x = torch.randn(8, 32)
    return SplitHeads().eval(), (x, x.t().contiguous())


def make():
    """(model, example_inputs): InceptionNet on one 3x8x8 image. At this size each
    branch's convolution has fewer 16x16 output tiles than the chip has cores, so
    branches on separate streams really overlap in the simulation."""
    torch.manual_seed(0)
    model = randomize_batch_norm(InceptionNet()).eval()
    return model, (torch.randn(1, 3, 8, 8),)


def make_two_towers():
    """(model, example_inputs): TwoTowers on a 1x4x32x32 input (wide tensors 256 KB each)."""
    torch.manual_seed(0)
    return TwoTowers().eval(), (torch.randn(1, 4, 32, 32),)
