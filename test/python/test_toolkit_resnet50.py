"""--timing, --print-ir-after-all, --pass-statistics and --verify-each on ResNet-50 under ge-opt."""

import importlib

import pytest
import torch
from torch import nn
from xdsl.printer import Printer

from npu_graph.compiler import import_model
from tools.ge_opt import main as ge_opt


class Bottleneck(nn.Module):
    """torchvision's ResNet-50 block: 1x1 -> 3x3 (stride) -> 1x1 (x4), plus the shortcut."""

    def __init__(self, cin: int, width: int, stride: int):
        super().__init__()
        cout = 4 * width
        self.conv1, self.bn1 = nn.Conv2d(cin, width, 1, bias=False), nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3, self.bn3 = nn.Conv2d(width, cout, 1, bias=False), nn.BatchNorm2d(cout)
        self.relu = nn.ReLU()
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                            nn.BatchNorm2d(cout))

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        return self.relu(self.bn3(self.conv3(out)) + identity)


def resnet50() -> nn.Module:
    """Stem, 3-4-6-3 bottleneck stages, global pool, fc: torchvision's layout."""
    layers, cin = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                   nn.MaxPool2d(3, 2, 1)], 64
    for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
        for i in range(blocks):
            layers.append(Bottleneck(cin, width, stride if i == 0 else 1))
            cin = 4 * width
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(2048, 1000)]
    return nn.Sequential(*layers)


def zoo_resnet50():
    """The model zoo's ResNet-50 once it has one, else the definition above."""
    zoo = getattr(importlib.import_module("test.models"), "ZOO", {})
    for name in ("resnet50", "resnet_50"):
        if name in zoo:
            entry = zoo[name]
            return (entry if callable(entry) else entry.make)()
    torch.manual_seed(0)
    return resnet50().eval(), (torch.randn(1, 3, 64, 64),)


@pytest.fixture(scope="module")
def resnet50_file(tmp_path_factory):
    model, inputs = zoo_resnet50()
    module = import_model(model, inputs)
    assert sum(op.name == "ge.conv2d" for op in module.walk()) == 53
    path = tmp_path_factory.mktemp("resnet50") / "resnet50.mlir"
    with open(path, "w") as f:
        Printer(stream=f).print_op(module)
    return path


def test_instrumentation_on_resnet50(resnet50_file, capsys):
    status = ge_opt([str(resnet50_file), "-p", "ge-O3", "--timing", "--print-ir-after-all",
                     "--pass-statistics", "--verify-each", "--elide-elementsattrs-if-larger=16"])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert out.count('ge.fused "conv2d_') == 49
    stages = ("fold-quantized", "canonicalize", "constant-fold", "fold-batch-norm", "cse",
              "merge-parallel-linears", "op-fusion", "dce", "hardware-mapping")
    for stage in stages:
        assert f"// -----// IR Dump After ge-O3/{stage} //----- //" in err
    assert "// -----// IR Dump After ge-O3 //----- //" in err
    timing = err[err.index("pass timing"):err.index("===- pass statistics")].splitlines()[2:]
    assert [row.split()[-1] for row in timing[:-1]] == ["ge-O3", *stages, "total"]
    assert "start-up before the first pass" in timing[-1]  # imports and parsing, apart
    assert "        53  FoldBatchNormIntoLayer" in err
    assert "        49  FuseByRuleTable" in err
