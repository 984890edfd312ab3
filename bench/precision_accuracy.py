"""Error of each precision mode against fp32 eager, per zoo model: the table
in docs/precision-mode.md.

    python -m bench.precision_accuracy [--models resnet50,bert] [--batch 4]
    python -m bench.precision_accuracy --int8 [--ort]    # int8: bench/int8_accuracy.py

For each model and mode: max |ours - eager| / max |eager| over every output,
and, for classifiers (one [batch, classes] output), the fraction of inputs
whose top-1 class agrees with eager's. Inputs are the zoo's examples with
dim 0 set to `--batch`, drawn from a fixed seed (bench/benchmark.py `batched`),
so reruns give the same table. Models the compiler cannot run in a mode
(control flow, custom ops, dynamic shapes) are skipped with the reason.
"""

from __future__ import annotations

import argparse
import sys

import torch

from bench.benchmark import batched
from npu_graph.compiler import compile_model
from tools.models import zoo_factory, zoo_names

MODES = ["allow_fp32_to_fp16", "allow_mix_precision", "allow_fp32_to_bf16",
         "allow_mix_precision_bf16"]
SKIPPED = {"cond", "while_loop", "custom_op", "dynamic_batch"}  # not cube-precision cases


def errors(name: str, batch: int, modes: list[str]) -> dict:
    model, examples = zoo_factory(name)()
    examples = (examples,) if isinstance(examples, torch.Tensor) else tuple(examples)
    inputs = batched(examples, batch, seed=1)
    model.eval()
    with torch.no_grad():
        want = model(*inputs)
    want = want if isinstance(want, tuple) else (want,)
    classifier = len(want) == 1 and want[0].dim() == 2 and want[0].shape[1] >= 10
    row = {}
    for mode in modes:
        got = compile_model(model, inputs, precision_mode=mode).run(*inputs)
        rel = max(((g.float() - w).abs().max() / w.abs().max()).item()
                  for g, w in zip(got, want))
        top1 = ((got[0].float().argmax(1) == want[0].argmax(1)).float().mean().item()
                if classifier else None)
        row[mode] = (rel, top1)
    return row


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="precision_accuracy", description=__doc__.split("\n")[0])
    p.add_argument("--models", default=",".join(n for n in zoo_names() if n not in SKIPPED))
    p.add_argument("--modes", default=",".join(MODES))
    p.add_argument("--batch", type=int, default=None, help="default 4 (8 with --int8)")
    p.add_argument("--int8", action="store_true",
                   help="int8 instead: npu_graph.quantize on ResNet-50, MobileNetV2 and "
                        "BERT-base against fp32 eager on held-out inputs, and a decoder's "
                        "weight-only int8 tokens (bench/int8_accuracy.py)")
    p.add_argument("--ort", action="store_true",
                   help="with --int8: ONNX Runtime's quantize_static on the same batches too")
    p.add_argument("--calibration-batches", type=int, default=4)
    p.add_argument("--held-out-batches", type=int, default=32,
                   help="with --int8: held-out batches of --batch images (default 32 x 8 = 256)")
    p.add_argument("--bert-held-out", type=int, default=16, help="held-out BERT sequences")
    args = p.parse_args(argv)
    if args.int8:
        from bench import int8_accuracy

        args.batch = args.batch or 8
        return int8_accuracy.report(args)
    args.batch = args.batch or 4
    modes = args.modes.split(",")
    print("| model | " + " | ".join(modes) + " |")
    print("|---" * (len(modes) + 1) + "|")
    for name in args.models.split(","):
        row = errors(name, args.batch, modes)
        cells = [f"{rel:.1e}" + (f", top-1 {top1:.0%}" if top1 is not None else "")
                 for rel, top1 in row.values()]
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
