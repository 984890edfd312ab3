"""NCHW <-> NC1HWC0 on host tensors, and 5-D wrappers around NCHW kernels.

The padding channels of an NC1HWC0 tensor are zeros. Conv, ReLU, add and
pooling keep them zero, so the 5-D kernels below compute on the real
channels and re-pack; a conv reads only the channels its weight expects.
"""

import torch


def to_nc1hwc0(x: torch.Tensor, c0: int) -> torch.Tensor:
    n, c, h, w = x.shape
    c1 = -(-c // c0)
    padded = torch.nn.functional.pad(x, (0, 0, 0, 0, 0, c1 * c0 - c))
    return padded.reshape(n, c1, c0, h, w).permute(0, 1, 3, 4, 2).contiguous()


def to_nchw(x: torch.Tensor, channels: int | None = None) -> torch.Tensor:
    n, c1, h, w, c0 = x.shape
    full = x.permute(0, 1, 4, 2, 3).reshape(n, c1 * c0, h, w)
    return full if channels is None else full[:, :channels]


def on_nchw(kernel, channels: int | None = None):
    """A kernel over NCHW turned into one over NC1HWC0 (first input 5-D, output 5-D)."""

    def run(x, *rest):
        c0 = x.shape[-1]
        return to_nc1hwc0(kernel(to_nchw(x, channels), *rest), c0)

    return run
