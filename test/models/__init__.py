"""The model zoo: every model is defined here, with random weights (no downloads).

`ZOO` maps a name to a factory returning `(model, example_inputs)`, seeded, so
tools (tests, benchmarks, ge-import) can iterate over it. A model that should
be exported with dynamic dims carries torch.export's `dynamic_shapes` as an
attribute of the same name.
"""

from test.models import (
    article,
    bert,
    control_flow,
    custom_op_model,
    dynamic_batch,
    gpt2,
    mlp,
    mobilenet,
    resnet,
    resnet_block,
    tiny_resnet,
    unet,
    vgg,
    vit,
)

ZOO = {
    "article": article.make,
    "resnet_block": resnet_block.make,
    "tiny_resnet": tiny_resnet.make,
    "mlp": mlp.make,
    "resnet18": resnet.make_resnet18,
    "resnet50": resnet.make_resnet50,
    "mobilenet_v2": mobilenet.make_v2,
    "mobilenet_v3": mobilenet.make_v3,
    "vgg": vgg.make,
    "unet": unet.make,
    "bert": bert.make,
    "gpt2": gpt2.make,
    "vit": vit.make,
    "cond": control_flow.make_cond,
    "while_loop": control_flow.make_while,
    "custom_op": custom_op_model.make,
    "dynamic_batch": dynamic_batch.make,
}


def dynamic_shapes(model):
    """The model's torch.export `dynamic_shapes`, or None."""
    return getattr(model, "dynamic_shapes", None)
