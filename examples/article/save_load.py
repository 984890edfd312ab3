"""Article snippet: save the optimized graph to a .npu file, load it, run it.

The .npu file is self-contained: loading needs neither the model's code nor
torch.export.

    python examples/article/save_load.py [DIRECTORY]
"""

import sys
import tempfile
from pathlib import Path

import torch
from article_model import make

from npu_graph import GraphExecutor, NpuGraph

model, x = make()
optimized_graph = NpuGraph(model, input_spec=(x,)).optimize()
expected = optimized_graph(x)

directory = Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp())
path = directory / "article_optimized.npu"
optimized_graph.save(str(path))
print(f"saved {path} ({path.stat().st_size / 1e6:.2f} MB)")

executor = GraphExecutor()
executor.load_graph(str(path))
output = executor.run(input_data=x)
print(f"loaded and ran: identical outputs = {torch.equal(output, expected)}")
assert torch.equal(output, expected)
