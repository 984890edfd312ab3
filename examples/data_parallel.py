"""Data parallel on two cards, both ways: GraphExecutor(devices=2), and torchrun.

    python examples/data_parallel.py                                   # starts its own ranks
    torchrun --nproc-per-node 2 examples/data_parallel.py --torchrun   # torchrun starts them

The zoo's tiny ResNet is compiled once for one card's share of the batch and
saved as a .npu file; each rank loads that file. The output over the whole
batch must equal the single-card runs of each share.
"""

import argparse
import os
import sys
import tempfile
from pathlib import Path

import torch
import torch.distributed as dist

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from npu_graph import GraphExecutor, NpuGraph  # noqa: E402
from npu_graph.distributed import DataParallel, serve  # noqa: E402
from test.models import tiny_resnet  # noqa: E402


def compiled():
    model, (x,) = tiny_resnet.make()
    return NpuGraph(model, input_spec=(x,)).optimize(), x


def check(out, optimized, batch) -> None:
    single = torch.cat([optimized(part) for part in torch.chunk(batch, 2)])
    error = (out - single).abs().max().item()
    print(f"2 cards vs 1 card: max |difference| = {error:.2e}")
    assert error < 1e-5


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--torchrun", action="store_true", help="the ranks were started by torchrun")
    args = p.parse_args()
    torch.manual_seed(0)
    if not args.torchrun:
        optimized, x = compiled()
        batch = torch.randn(2 * x.shape[0], *x.shape[1:])
        with GraphExecutor(devices=2) as executor:
            executor.load_graph(optimized)
            check(executor.run(input_data=batch), optimized, batch)
        return 0
    dist.init_process_group("gloo")
    path = os.path.join(tempfile.gettempdir(), f"data_parallel_{os.environ['TORCHELASTIC_RUN_ID']}.npu")
    if dist.get_rank() == 0:
        optimized, x = compiled()
        optimized.save(path)
    dist.barrier()  # the file is written before the other ranks read it
    if dist.get_rank() != 0:
        serve(path)
        return 0
    batch = torch.randn(2 * x.shape[0], *x.shape[1:])
    dp = DataParallel.joined(path)
    check(dp.graph.structured(dp.run([batch])), optimized, batch)
    dp.close()
    os.remove(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
