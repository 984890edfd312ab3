"""A VGG-style net: 3x3 conv + ReLU stacks with max pooling, adaptive avg pool to 2x2,
and a dropout classifier (VGG-11 layout at 1/8 width on 32x32 images)."""

import torch
from torch import nn

CONFIG = [8, "M", 16, "M", 32, 32, "M", 64, 64, "M"]


class VGG(nn.Module):
    def __init__(self, classes: int = 10):
        super().__init__()
        layers, cin = [], 3
        for v in CONFIG:
            if v == "M":
                layers.append(nn.MaxPool2d(2))
            else:
                layers += [nn.Conv2d(cin, v, 3, padding=1), nn.ReLU()]
                cin = v
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d((2, 2))
        self.classifier = nn.Sequential(nn.Linear(cin * 4, 64), nn.ReLU(), nn.Dropout(),
                                        nn.Linear(64, classes))

    def forward(self, x):
        return self.classifier(torch.flatten(self.avgpool(self.features(x)), 1))


def make():
    torch.manual_seed(0)
    return VGG().eval(), (torch.randn(2, 3, 32, 32),)
