"""MobileNetV2 (inverted residuals, depthwise convs, ReLU6) and a MobileNetV3-small
style net (hardswish, squeeze-excite with hardsigmoid), narrow, on 64x64 images;
`make_v2_full` is MobileNetV2 at full size, for the benchmark suite."""

import torch
from torch import nn

from test.models.common import randomize_batch_norm


def conv_bn(cin, cout, k=3, stride=1, groups=1, act=nn.ReLU6):
    return nn.Sequential(nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False),
                         nn.BatchNorm2d(cout), act() if act else nn.Identity())


class InvertedResidual(nn.Module):
    def __init__(self, cin, cout, stride, expand):
        super().__init__()
        hidden = cin * expand
        self.use_res = stride == 1 and cin == cout
        layers = [conv_bn(cin, hidden, 1)] if expand != 1 else []
        layers += [conv_bn(hidden, hidden, 3, stride, groups=hidden),
                   conv_bn(hidden, cout, 1, act=None)]
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        return x + self.conv(x) if self.use_res else self.conv(x)


class MobileNetV2(nn.Module):
    # (expand, channels, repeats, stride), torchvision's table at width 1/4.
    SETTINGS = [(1, 4, 1, 1), (6, 6, 2, 2), (6, 8, 3, 2), (6, 16, 2, 2), (6, 24, 1, 1)]
    # torchvision's table at width 1.0: the real network (3.5M parameters).
    FULL = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
            (6, 160, 3, 2), (6, 320, 1, 1)]

    def __init__(self, classes: int = 10, settings=SETTINGS, stem: int = 8, last: int = 64):
        super().__init__()
        layers, cin = [conv_bn(3, stem, stride=2)], stem
        for t, c, n, s in settings:
            for i in range(n):
                layers.append(InvertedResidual(cin, c, s if i == 0 else 1, t))
                cin = c
        layers.append(conv_bn(cin, last, 1))
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(last, classes))

    def forward(self, x):
        x = nn.functional.adaptive_avg_pool2d(self.features(x), 1)
        return self.classifier(torch.flatten(x, 1))


class SqueezeExcite(nn.Module):
    def __init__(self, channels, squeeze):
        super().__init__()
        self.fc1 = nn.Conv2d(channels, squeeze, 1)
        self.fc2 = nn.Conv2d(squeeze, channels, 1)

    def forward(self, x):
        s = nn.functional.adaptive_avg_pool2d(x, 1)
        return x * nn.functional.hardsigmoid(self.fc2(torch.relu(self.fc1(s))))


class MobileNetV3Block(nn.Module):
    def __init__(self, cin, hidden, cout, k, stride, se, act):
        super().__init__()
        self.use_res = stride == 1 and cin == cout
        self.block = nn.Sequential(
            conv_bn(cin, hidden, 1, act=act),
            conv_bn(hidden, hidden, k, stride, groups=hidden, act=act),
            SqueezeExcite(hidden, max(hidden // 4, 4)) if se else nn.Identity(),
            conv_bn(hidden, cout, 1, act=None))

    def forward(self, x):
        return x + self.block(x) if self.use_res else self.block(x)


class MobileNetV3Small(nn.Module):
    def __init__(self, classes: int = 10):
        super().__init__()
        self.stem = conv_bn(3, 8, stride=2, act=nn.Hardswish)
        self.blocks = nn.Sequential(
            MobileNetV3Block(8, 16, 8, 3, 2, True, nn.ReLU),
            MobileNetV3Block(8, 32, 12, 3, 2, False, nn.ReLU),
            MobileNetV3Block(12, 48, 12, 5, 1, True, nn.Hardswish),
            MobileNetV3Block(12, 48, 16, 5, 2, True, nn.Hardswish))
        self.head = conv_bn(16, 64, 1, act=nn.Hardswish)
        self.classifier = nn.Sequential(nn.Linear(64, 32), nn.Hardswish(), nn.Dropout(0.2),
                                        nn.Linear(32, classes))

    def forward(self, x):
        x = self.head(self.blocks(self.stem(x)))
        return self.classifier(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


def make_v2():
    torch.manual_seed(0)
    return randomize_batch_norm(MobileNetV2()).eval(), (torch.randn(1, 3, 64, 64),)


def make_v2_full():
    """MobileNetV2 at torchvision's full size, 1000 classes, one 224x224 image."""
    torch.manual_seed(0)
    model = MobileNetV2(classes=1000, settings=MobileNetV2.FULL, stem=32, last=1280)
    return randomize_batch_norm(model).eval(), (torch.randn(1, 3, 224, 224),)


def make_v3():
    torch.manual_seed(0)
    return randomize_batch_norm(MobileNetV3Small()).eval(), (torch.randn(2, 3, 64, 64),)
