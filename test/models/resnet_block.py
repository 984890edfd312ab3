"""ResNet BasicBlock (with a downsample branch) and a tiny ResNet built from it."""

import torch
from torch import nn

from test.models.common import randomize_batch_norm


def conv3x3(in_channels: int, out_channels: int, stride: int = 1) -> nn.Conv2d:
    return nn.Conv2d(in_channels, out_channels, 3, stride=stride, padding=1, bias=False)


def shortcut(in_channels: int, out_channels: int, stride: int) -> nn.Module | None:
    """The projection (1x1 conv + BN) a residual block needs when its shape changes."""
    if stride == 1 and in_channels == out_channels:
        return None
    return nn.Sequential(nn.Conv2d(in_channels, out_channels, 1, stride=stride, bias=False),
                         nn.BatchNorm2d(out_channels))


class BasicBlock(nn.Module):
    """relu(bn2(conv2(relu(bn1(conv1(x))))) + downsample(x)), as in torchvision."""

    def __init__(self, in_channels: int, out_channels: int, stride: int = 1):
        super().__init__()
        self.conv1 = conv3x3(in_channels, out_channels, stride)
        self.bn1 = nn.BatchNorm2d(out_channels)
        self.relu = nn.ReLU()
        self.conv2 = conv3x3(out_channels, out_channels)
        self.bn2 = nn.BatchNorm2d(out_channels)
        self.downsample = shortcut(in_channels, out_channels, stride)

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + identity)


class TinyResNet(nn.Module):
    """Stem (conv7x7 s2, bn, relu, maxpool3x3 s2), two basic blocks, avgpool, fc."""

    def __init__(self, num_classes: int = 10, width: int = 16):
        super().__init__()
        self.conv1 = nn.Conv2d(3, width, 7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2d(3, stride=2, padding=1)
        self.layer1 = BasicBlock(width, width)
        self.layer2 = BasicBlock(width, 2 * width, stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(2 * width, num_classes)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer2(self.layer1(x))
        x = torch.flatten(self.avgpool(x), 1)
        return self.fc(x)


def make():
    """(model, example_inputs): a BasicBlock 8 -> 16 channels, stride 2 (downsample branch)."""
    torch.manual_seed(0)
    model = randomize_batch_norm(BasicBlock(8, 16, stride=2)).eval()
    return model, (torch.randn(2, 8, 16, 16),)


def make_tiny_resnet():
    """(model, example_inputs): TinyResNet on 2x3x32x32 images."""
    torch.manual_seed(0)
    model = randomize_batch_norm(TinyResNet()).eval()
    return model, (torch.randn(2, 3, 32, 32),)
