"""The GE article's first pitfall, "Unsupported operator: XXX", and its fix.

A model uses `torch.logcumsumexp`, which GE does not map. The import fails with one
report naming the op, where the model uses it, and the fix; after
`npu_graph.custom_op("aten.logcumsumexp")` registers a host kernel, the same model
imports (as `ge.custom`), compiles and runs, and matches PyTorch eager.

    python examples/custom_op.py
"""

import sys

import torch
from torch import nn

import npu_graph
from lowering.torch_to_ge import UnsupportedOpError
from npu_graph import NpuGraph


class RunningTotal(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        return torch.relu(torch.logcumsumexp(self.fc(x), dim=1))


def main() -> int:
    torch.manual_seed(0)
    model, x = RunningTotal().eval(), torch.randn(4, 8)

    print("1. Without a kernel for aten.logcumsumexp:")
    try:
        NpuGraph(model, input_spec=(x,))
        print("   unexpectedly imported")
        return 1
    except UnsupportedOpError as e:
        print("   " + str(e).replace("\n", "\n   "))

    print("\n2. With one registered through npu_graph.custom_op:")

    @npu_graph.custom_op("aten.logcumsumexp", shape_fn=lambda x, dim: x)
    def logcumsumexp(x, dim):
        return torch.logcumsumexp(x, dim)

    optimized_graph = NpuGraph(model, input_spec=(x,)).optimize()
    y = optimized_graph(x)
    with torch.no_grad():
        error = float((y - model(x)).abs().max())
    print(f"   ran {optimized_graph.stats['num_tasks']} tasks; max |ours - eager| = {error:.3e}")
    return 0 if error < 1e-4 else 1


if __name__ == "__main__":
    sys.exit(main())
