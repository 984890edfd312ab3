"""`make demo`: the GE article's Conv2d -> BatchNorm2d -> ReLU model, end to end.

Import with torch.export, optimize (BN folded into the conv, conv+ReLU fused),
lower to Ascend tasks, run on the host runtime and compare with PyTorch eager.
"""

import json
import sys

import torch
from torch import nn

from ge_dialect.printing import format_ir
from npu_graph.compiler import device_pipeline, import_model, lower, optimize, plan_device
from passes.pipelines import NC1HWC0_PIPELINE
from runtime.executor import Executable


class ArticleModel(nn.Module):
    """The model of the GE article: Conv2D -> BatchNorm -> ReLU."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 64, kernel_size=3, padding=1)
        self.bn = nn.BatchNorm2d(64)
        self.relu = nn.ReLU()

    def forward(self, x):
        return self.relu(self.bn(self.conv(x)))


def banner(title: str) -> None:
    print(f"\n=== {title} " + "=" * max(0, 72 - len(title)))


def main() -> int:
    torch.manual_seed(0)
    model = ArticleModel().eval()
    with torch.no_grad():  # trained-looking BN statistics, so folding does real work
        model.bn.running_mean.uniform_(-0.5, 0.5)
        model.bn.running_var.uniform_(0.5, 2.0)
        model.bn.weight.uniform_(0.5, 1.5)
        model.bn.bias.uniform_(-0.2, 0.2)
    x = torch.randn(1, 3, 224, 224)

    banner("1. GE graph (torch.export -> GE dialect; weights elided)")
    module = import_model(model, (x,))
    print(format_ir(module))

    banner(f"2. Optimized GE graph (-p {NC1HWC0_PIPELINE})")
    optimize(module, NC1HWC0_PIPELINE)
    print(format_ir(module))
    fused = [op for op in module.walk() if op.name == "ge.fused"]
    print(f"-> BatchNorm folded into the Conv2D weights; Conv2D+BatchNorm+ReLU is now "
          f"{len(fused)} op, ge.fused \"{fused[0].kind.data}\", computing in NC1HWC0 "
          "between two ge.trans_data" if fused else "-> nothing fused")

    banner(f"3. Ascend tasks (-p lower-to-ascend,{device_pipeline()})")
    plan_device(lower(module))
    print(format_ir(module))

    banner("4. Run on the host runtime vs PyTorch eager")
    executable = Executable(module)
    (ours,) = executable.run(x)
    with torch.no_grad():
        expected = model(x)
    diff = (ours - expected).abs().max().item()
    print(f"output shape {tuple(ours.shape)}; max |ours - eager| = {diff:.3e}")
    stats = executable.stats
    print("stats:", json.dumps({k: v for k, v in stats.items() if k != "tasks"}, indent=2))
    for task in stats["tasks"]:
        print(f"  task {task['name']:<16} unit={task['unit']:<6} stream={task['stream']} "
              f"time={task['time']:.4f} ms (simulated)")
    if diff > 1e-4:
        print("FAIL: the compiled model does not match PyTorch eager", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
