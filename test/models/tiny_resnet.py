"""TinyResNet (see resnet_block.py), exposed with the zoo's usual make()."""

from test.models.resnet_block import TinyResNet, make_tiny_resnet

__all__ = ["TinyResNet", "make"]

make = make_tiny_resnet
