"""A small UNet: max- and average-pooled encoder, decoder with a transposed conv and a
bilinear upsample, skip connections by concatenation."""

import torch
from torch import nn
from torch.nn import functional as F

from test.models.common import randomize_batch_norm


def double_conv(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
                         nn.ReLU(), nn.Conv2d(cout, cout, 3, padding=1, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU())


class UNet(nn.Module):
    def __init__(self, cin: int = 3, classes: int = 2, w: int = 8):
        super().__init__()
        self.enc1, self.enc2, self.mid = double_conv(cin, w), double_conv(w, 2 * w), \
            double_conv(2 * w, 4 * w)
        self.up2 = nn.ConvTranspose2d(4 * w, 2 * w, 2, stride=2)
        self.dec2 = double_conv(4 * w, 2 * w)
        self.dec1 = double_conv(2 * w + w, w)
        self.out = nn.Conv2d(w, classes, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(F.max_pool2d(e1, 2))
        m = self.mid(F.avg_pool2d(e2, 2))
        d2 = self.dec2(torch.cat([self.up2(m), e2], dim=1))
        up = F.interpolate(d2, scale_factor=2, mode="bilinear", align_corners=False)
        d1 = self.dec1(torch.cat([up, e1], dim=1))
        return self.out(d1)


def make():
    torch.manual_seed(0)
    return randomize_batch_norm(UNet()).eval(), (torch.randn(1, 3, 32, 32),)
