"""ResNet-18 (BasicBlock [2, 2, 2, 2]) and ResNet-50 (Bottleneck [3, 4, 6, 3]), the
torchvision architectures written out here (torchvision is not a dependency)."""

import torch
from torch import nn

from test.models.common import randomize_batch_norm
from test.models.resnet_block import BasicBlock, shortcut


class Bottleneck(nn.Module):
    """1x1 reduce, 3x3 (stride here, as torchvision v1.5), 1x1 expand x4, plus shortcut."""

    expansion = 4

    def __init__(self, in_channels: int, width: int, stride: int = 1):
        super().__init__()
        out_channels = width * self.expansion
        self.conv1 = nn.Conv2d(in_channels, width, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, stride=stride, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, out_channels, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(out_channels)
        self.relu = nn.ReLU()
        self.downsample = shortcut(in_channels, out_channels, stride)

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        return self.relu(out + identity)


class ResNet(nn.Module):
    """Stem, four stages of `layers[i]` blocks (widths w, 2w, 4w, 8w), avgpool, fc."""

    def __init__(self, block, layers, width: int = 64, num_classes: int = 1000):
        super().__init__()
        self.conv1 = nn.Conv2d(3, width, 7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2d(3, stride=2, padding=1)
        expansion = getattr(block, "expansion", 1)
        channels, stages = width, []
        for i, n in enumerate(layers):
            stage_width = width * 2**i
            blocks = []
            for j in range(n):
                stride = 2 if i > 0 and j == 0 else 1
                blocks.append(block(channels, stage_width, stride))
                channels = stage_width * expansion
            stages.append(nn.Sequential(*blocks))
        self.layer1, self.layer2, self.layer3, self.layer4 = stages
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(channels, num_classes)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


def make_resnet18():
    """ResNet-18 at a quarter of the width on 64x64 images (the full depth)."""
    torch.manual_seed(0)
    model = randomize_batch_norm(ResNet(BasicBlock, [2, 2, 2, 2], width=16,
                                        num_classes=10)).eval()
    return model, (torch.randn(1, 3, 64, 64),)


def make_resnet50():
    """The real ResNet-50: Bottleneck [3, 4, 6, 3], width 64, 1000 classes, 1x3x224x224."""
    torch.manual_seed(0)
    model = randomize_batch_norm(ResNet(Bottleneck, [3, 4, 6, 3])).eval()
    return model, (torch.randn(1, 3, 224, 224),)
