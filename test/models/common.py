"""Helpers shared by the model zoo."""

import torch
from torch import nn


def randomize_batch_norm(model: nn.Module) -> nn.Module:
    """Give every BatchNorm random affine parameters and running statistics.

    Freshly built BNs are the identity in eval mode (mean 0, var 1, weight 1,
    bias 0), which would let a wrong BN import or fold pass go unnoticed.
    Uses the global RNG: seed it first.
    """
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.modules.batchnorm._BatchNorm):
                m.weight.uniform_(0.5, 1.5)
                m.bias.normal_(0.0, 0.5)
                m.running_mean.normal_(0.0, 0.5)
                m.running_var.uniform_(0.5, 2.0)
    return model
