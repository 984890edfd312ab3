"""Article snippet: parse a PyTorch model into a GE graph and print it.

    python examples/article/parse_and_print.py
"""

from article_model import make

from npu_graph import GraphParser

model, x = make()  # the article: model.npu(), x.npu(); on the CPU, plain tensors

parser = GraphParser()
ge_graph = parser.parse_pytorch_model(model, input_spec=(x,))
ge_graph.print()         # Node0: Conv2D (input: x, ..., output: ...)
print(ge_graph)          # the GE dialect (MLIR), weights elided
