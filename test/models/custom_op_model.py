"""A model using a torch.library custom op (`ge_zoo::soft_clip`), with its GE kernel
registered through npu_graph.custom_op: the escape hatch of the GE article."""

import torch
from torch import nn

import npu_graph


@torch.library.custom_op("ge_zoo::soft_clip", mutates_args=())
def soft_clip(x: torch.Tensor, limit: float) -> torch.Tensor:
    return limit * torch.tanh(x / limit)


@soft_clip.register_fake
def _(x, limit):
    return torch.empty_like(x)


@npu_graph.custom_op("ge_zoo::soft_clip", shape_fn=lambda x, limit: x)
def soft_clip_kernel(x: torch.Tensor, limit: float) -> torch.Tensor:
    return limit * torch.tanh(x / limit)


class SoftClipNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(16, 32), nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(soft_clip(self.fc1(x), 0.5))


def make():
    torch.manual_seed(0)
    return SoftClipNet().eval(), (torch.randn(3, 16),)
