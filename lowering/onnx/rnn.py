"""ONNX RNN, GRU and LSTM, unrolled over their static sequence length.

The input projection of every step is one matmul, X @ W^T (+ Wb); each step
then adds H @ R^T and applies the cell's gates, as ONNX's equations state
(gate orders: GRU z, r, h; LSTM i, o, f, c; peepholes i, o, f). Directions
run one after the other and their outputs are stacked as ONNX lays them out:
Y [seq, directions, batch, hidden] and Y_h / Y_c [directions, batch, hidden]
(layout = 1 puts batch first).
"""

from __future__ import annotations

import numpy as np

from ge_dialect import ge
from lowering.onnx.common import Builder, OnnxUnsupported, numpy_dtype

ACTIVATIONS = {"Sigmoid": ge.SigmoidOp, "Tanh": ge.TanhOp, "Relu": ge.ReluOp}
GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}
DEFAULT_ACTIVATIONS = {"RNN": ["Tanh"], "GRU": ["Sigmoid", "Tanh"],
                       "LSTM": ["Sigmoid", "Tanh", "Tanh"]}
MAX_STEPS = 512  # longer sequences would unroll into too large a graph


class _Cell:
    """One direction's weights, as GE values, and the step of its op."""

    def __init__(self, g, n, kind: str, d: int, hidden: int, activations: list[str]):
        self.g, self.kind, self.hidden = g, kind, hidden
        self.clip = g.attr(n, "clip")
        self.acts = activations
        self.linear_before_reset = bool(g.attr(n, "linear_before_reset", 0))
        gates = GATES[kind] * hidden
        self.w_t = self._direction(g.input(n, 1), d, transpose=True)
        self.r_t = self._direction(g.input(n, 2), d, transpose=True)
        self.wb = self.rb = None
        if g.has_input(n, 3):
            b = self._direction(g.input(n, 3), d)
            self.wb = g.emit(ge.SliceOp(b, 0, 0, gates))
            self.rb = g.emit(ge.SliceOp(b, 0, gates, 2 * gates))
        self.peep = None
        if kind == "LSTM" and g.has_input(n, 7):
            self.peep = self._direction(g.input(n, 7), d)

    def _direction(self, w, d: int, transpose: bool = False):
        """Direction d of a per-direction weight ([directions, ...] -> [...])."""
        g = self.g
        w = g.emit(ge.ReshapeOp(g.emit(ge.SliceOp(w, 0, d, d + 1)), ge.shape_of(w)[1:]))
        return g.emit(ge.TransposeOp(w, [1, 0])) if transpose else w

    def act(self, i: int, x):
        x = x if self.clip is None else self.g.emit(ge.ClampOp(x, -float(self.clip),
                                                              float(self.clip)))
        return self.g.emit(ACTIVATIONS[self.acts[i]](x))

    def part(self, x, i: int):
        """Gate i of a [batch, gates * hidden] value."""
        return self.g.emit(ge.SliceOp(x, 1, i * self.hidden, (i + 1) * self.hidden))

    def step(self, xw, h, c):
        g = self.g
        add, mul = (lambda a, b: g.emit(ge.AddOp(a, b))), (lambda a, b: g.emit(ge.MulOp(a, b)))
        hr = g.emit(ge.MatMulOp(h, self.r_t))
        if self.kind == "RNN":
            pre = add(xw, hr if self.rb is None else add(hr, self.rb))
            return self.act(0, pre), None
        if self.kind == "GRU":
            return self._gru(xw, h, hr), None
        gates = add(xw, hr if self.rb is None else add(hr, self.rb))
        i, o, f, cand = (self.part(gates, k) for k in range(4))
        if self.peep is not None:
            pi, po, pf = (g.emit(ge.SliceOp(self.peep, 0, k * self.hidden,
                                            (k + 1) * self.hidden)) for k in range(3))
            i, f = add(i, mul(pi, c)), add(f, mul(pf, c))
        c = add(mul(self.act(0, f), c), mul(self.act(0, i), self.act(1, cand)))
        if self.peep is not None:
            o = add(o, mul(po, c))
        return mul(self.act(0, o), self.act(2, c)), c

    def _gru(self, xw, h, hr):
        g = self.g
        add, mul = (lambda a, b: g.emit(ge.AddOp(a, b))), (lambda a, b: g.emit(ge.MulOp(a, b)))
        if self.rb is not None:
            hr = add(hr, self.rb)
        z = self.act(0, add(self.part(xw, 0), self.part(hr, 0)))
        r = self.act(0, add(self.part(xw, 1), self.part(hr, 1)))
        if self.linear_before_reset:
            cand = add(self.part(xw, 2), mul(r, self.part(hr, 2)))
        else:
            r_h = g.emit(ge.SliceOp(self.r_t, 1, 2 * self.hidden, 3 * self.hidden))
            cand = g.emit(ge.MatMulOp(mul(r, h), r_h))
            if self.rb is not None:
                cand = add(cand, g.emit(ge.SliceOp(self.rb, 0, 2 * self.hidden,
                                                   3 * self.hidden)))
            cand = add(self.part(xw, 2), cand)
        cand = self.act(1, cand)
        one = g.scalar(1, z)
        return add(mul(g.emit(ge.SubOp(one, z)), cand), mul(z, h))


def _initial(g, n, i: int, d: int, batch: int, hidden: int, like, layout: int):
    """initial_h / initial_c of direction d as [batch, hidden] (zeros if absent)."""
    if not g.has_input(n, i):
        return g.const(np.zeros((batch, hidden), dtype=_numpy(like)))
    state = g.input(n, i)
    axis = 1 if layout else 0
    state = g.emit(ge.SliceOp(state, axis, d, d + 1))
    return g.emit(ge.ReshapeOp(state, [batch, hidden]))


def _numpy(value):
    return numpy_dtype(ge.element_type(value.type))


def recurrent(kind: str) -> Builder:
    def build(g, n) -> list:
        x = g.input(n, 0)
        layout = int(g.attr(n, "layout", 0))
        if layout:
            x = g.emit(ge.TransposeOp(x, [1, 0, 2]))
        seq, batch, _ = ge.shape_of(x)
        if min(seq, batch) < 0:
            raise OnnxUnsupported(f"{kind} over a dynamic sequence length or batch")
        if seq > MAX_STEPS:
            raise OnnxUnsupported(f"{kind} of {seq} steps; GE unrolls up to {MAX_STEPS}")
        if g.attr(n, "activation_alpha") or g.attr(n, "activation_beta"):
            raise OnnxUnsupported(f"{kind} with activation_alpha or activation_beta")
        if kind == "LSTM" and g.attr(n, "input_forget", 0):
            raise OnnxUnsupported("LSTM with input_forget")
        if g.has_input(n, 4):
            lengths = g.constant(n, 4)
            if lengths is None or not np.all(lengths == seq):
                raise OnnxUnsupported(f"{kind} with sequence_lens other than the full length")
        hidden = int(g.attr(n, "hidden_size"))
        direction = g.attr(n, "direction", "forward")
        directions = {"forward": [False], "reverse": [True],
                      "bidirectional": [False, True]}.get(direction)
        if directions is None:
            raise OnnxUnsupported(f"{kind} direction {direction!r}")
        per = len(DEFAULT_ACTIVATIONS[kind])
        names = list(g.attr(n, "activations", DEFAULT_ACTIVATIONS[kind] * len(directions)))
        unknown = sorted(set(names) - set(ACTIVATIONS))
        if unknown:
            raise OnnxUnsupported(f"{kind} with activation {unknown[0]}")
        ys, h_last, c_last = [], [], []
        for d, reverse in enumerate(directions):
            cell = _Cell(g, n, kind, d, hidden, names[d * per:(d + 1) * per])
            xw = g.emit(ge.MatMulOp(x, cell.w_t))
            if cell.wb is not None:
                xw = g.emit(ge.AddOp(xw, cell.wb))
            h = _initial(g, n, 5, d, batch, hidden, x, layout)
            c = _initial(g, n, 6, d, batch, hidden, x, layout) if kind == "LSTM" else None
            steps = [None] * seq
            for t in (reversed(range(seq)) if reverse else range(seq)):
                xt = g.emit(ge.ReshapeOp(g.emit(ge.SliceOp(xw, 0, t, t + 1)),
                                         [batch, ge.shape_of(xw)[2]]))
                h, c = cell.step(xt, h, c)
                steps[t] = h
            ys.append(steps)
            h_last.append(h)
            c_last.append(c)
        return _outputs(g, n, ys, h_last, c_last, layout, batch, hidden)
    return build


def _stack(g, values, shape, axis: int):
    values = [g.emit(ge.ReshapeOp(v, shape)) for v in values]
    return values[0] if len(values) == 1 else g.emit(ge.ConcatOp(values, axis))


def _outputs(g, n, ys, h_last, c_last, layout: int, batch: int, hidden: int) -> list:
    wanted = [i < len(n.output) and bool(n.output[i]) for i in range(3)]
    out = [None, None, None]
    if wanted[0]:
        per_step = [_stack(g, [y[t] for y in ys], [1, 1, batch, hidden], 1)
                    for t in range(len(ys[0]))]
        y = _stack(g, per_step, [1, len(ys), batch, hidden], 0)
        out[0] = g.emit(ge.TransposeOp(y, [2, 0, 1, 3])) if layout else y
    for i, last in ((1, h_last), (2, c_last)):
        if wanted[i] and last[0] is not None:
            state = _stack(g, last, [1, batch, hidden], 0)
            out[i] = g.emit(ge.TransposeOp(state, [1, 0, 2])) if layout else state
    return out[:len(n.output)]
