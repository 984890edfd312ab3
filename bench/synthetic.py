"""Synthetic GE graphs of any size, for compile-time scaling (bench/compile_scaling.py).

Three shapes, each a single `func.func @main` built with the dialect's op
constructors (no text, no torch), on tiny tensors so that lowering, planning
and loading cost memory in proportion to the op count, not to the data:

- `chain`: a long chain of elementwise ops (add, relu, mul, tanh, repeated).
  op-fusion groups each add-relu-mul run; nothing is parallel.
- `residual`: a ladder of residual blocks, relu(batch_norm(conv2d(x)) + x),
  as in ResNet: BN folds into the conv, conv+add+relu fuse.
- `branches`: stages that fan out into WIDTH two-op branches and fan in
  through a tree of adds: task-parallel spreads the branches over streams.

Weights come from a small pool of constants shared by all layers (a few
hundred bytes each), so a 100k-op graph holds a few dozen constants; the
passes that create constants (fold-batch-norm) still create one per layer.
Value names repeat (`relu`, `relu_1`, ...) as in imported models.

    from bench.synthetic import build
    module = build("residual", 10_000)   # about 10k ops
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType, f32
from xdsl.ir import Block, Operation, SSAValue

from ge_dialect import ge
from ge_dialect.tensors import from_numpy

SHAPES = ("chain", "residual", "branches")
WIDTH = 8          # branches per fan-out stage
POOL = 8           # distinct constants of each kind


class _Builder:
    """Appends ops to one block, naming results like the importer does."""

    def __init__(self, block: Block, seed: int = 0):
        self.block = block
        self.rng = np.random.default_rng(seed)
        self.count = 0

    def add(self, op: Operation, name: str) -> SSAValue:
        self.block.add_op(op)
        self.count += 1
        result = op.results[0]
        result.name_hint = name
        return result

    def pool(self, shape: tuple[int, ...], name: str, low: float = 0.5,
             high: float = 1.5) -> list[SSAValue]:
        """POOL constants of `shape`, values in [low, high): never 0 or 1, so the
        x + 0 and x * 1 canonicalizations do not remove the ops that use them."""
        return [self.add(ge.ConstOp(from_numpy(
                    self.rng.uniform(low, high, shape).astype(np.float32))), name)
                for _ in range(POOL)]


def _chain(b: _Builder, x: SSAValue, n: int) -> SSAValue:
    adds = b.pool((16,), "bias")
    muls = b.pool((16,), "scale")
    i = 0
    while b.count < n:
        x = b.add(ge.AddOp(x, adds[i % POOL]), "add")
        x = b.add(ge.ReluOp(x), "relu")
        x = b.add(ge.MulOp(x, muls[i % POOL]), "mul")
        x = b.add(ge.TanhOp(x), "tanh")
        i += 1
    return x


def _residual(b: _Builder, x: SSAValue, n: int) -> SSAValue:
    c = 4
    weights = b.pool((c, c, 1, 1), "conv_weight", -0.5, 0.5)
    biases = b.pool((c,), "conv_bias", -0.5, 0.5)
    gammas = b.pool((c,), "bn_weight")
    betas = b.pool((c,), "bn_bias", -0.5, 0.5)
    means = b.pool((c,), "bn_running_mean", -0.5, 0.5)
    variances = b.pool((c,), "bn_running_var")
    i = 0
    while b.count < n:
        k = i % POOL
        y = b.add(ge.Conv2dOp(x, weights[k], biases[k]), "convolution")
        y = b.add(ge.BatchNormOp(y, gammas[k], betas[k], means[k], variances[k], 1e-5),
                  "batch_norm")
        y = b.add(ge.AddOp(y, x), "add")
        x = b.add(ge.ReluOp(y), "relu")
        i += 1
    return x


def _branches(b: _Builder, x: SSAValue, n: int) -> SSAValue:
    biases = b.pool((16,), "bias")
    scales = b.pool((16,), "scale")
    while b.count < n:
        outs = []
        for k in range(WIDTH):
            y = b.add(ge.MulOp(x, scales[k % POOL]), "mul")
            outs.append(b.add(ge.SigmoidOp(b.add(ge.AddOp(y, biases[k % POOL]), "add")),
                              "sigmoid"))
        while len(outs) > 1:  # fan-in: a balanced tree of adds
            outs = [b.add(ge.AddOp(outs[i], outs[i + 1]), "sum")
                    for i in range(0, len(outs) - 1, 2)] + outs[len(outs) & ~1:]
        x = outs[0]
    return x


_BUILDERS = {"chain": (_chain, [1, 16]), "residual": (_residual, [1, 4, 2, 2]),
             "branches": (_branches, [1, 16])}


def build(shape: str, n_ops: int, seed: int = 0) -> ModuleOp:
    """A module of about `n_ops` GE ops (constants included) of the given shape."""
    if shape not in _BUILDERS:
        raise ValueError(f"unknown graph shape '{shape}'; known: {', '.join(SHAPES)}")
    body, dims = _BUILDERS[shape]
    t = TensorType(f32, dims)
    fn = func.FuncOp("main", ([t], [t]))
    block = fn.body.block
    block.args[0].name_hint = "input"
    b = _Builder(block, seed)
    out = body(b, block.args[0], n_ops)
    block.add_op(func.ReturnOp(out))
    return ModuleOp([fn])


def count_ops(module: ModuleOp) -> int:
    """GE ops at the top level of every function (what `build`'s size counts)."""
    return sum(1 for fn in module.ops for op in fn.body.block.ops
               if op.dialect_name() == "ge")
