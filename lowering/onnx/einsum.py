"""ONNX Einsum as GE transposes, reshapes, matmuls and sums.

    Einsum("bij,bjk->bik", a, b)  ->  ge.matmul over the shared batch letter

Each operand first loses its repeated letters (a diagonal: times an identity
mask, summed) and the letters that no other operand and not the output use
(summed). Two operands then meet in one matmul: shared output letters are
its batch, shared other letters its contraction. Any other count of operands
(or batch letters whose sizes only broadcast) multiplies them broadcast into
one letter order and sums the contracted letters.
"""

from __future__ import annotations

import string

import numpy as np

from ge_dialect import ge
from lowering.onnx.common import OnnxUnsupported, numpy_dtype


def _parse(equation: str, ranks: list[int]) -> tuple[list[str], str]:
    """Each operand's letters and the output's, with `...` spelled out as
    upper-case letters (right-aligned, as ONNX broadcasts them)."""
    equation = equation.replace(" ", "")
    lhs, arrow, out = equation.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ranks):
        raise OnnxUnsupported(f"Einsum equation {equation!r} for {len(ranks)} inputs")
    spare = [c for c in string.ascii_uppercase if c not in equation]
    ellipsis_rank = max((r - len(t.replace("...", "")) for t, r in zip(terms, ranks)
                         if "..." in t), default=0)
    dots = "".join(spare[:ellipsis_rank])
    letters = []
    for term, rank in zip(terms, ranks):
        if "..." in term:
            term = term.replace("...", dots[ellipsis_rank - (rank - len(term) + 3):])
        if len(term) != rank:
            raise OnnxUnsupported(f"Einsum term {term!r} for an input of rank {rank}")
        letters.append(term)
    if arrow:
        out = out.replace("...", dots)
    else:  # implicit output: broadcast dims, then letters used once, alphabetically
        counts = "".join(letters)
        out = dots + "".join(sorted(c for c in set(counts) if counts.count(c) == 1
                                    and c not in dots))
    return letters, out


def _sizes(letters: list[str], values) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for term, v in zip(letters, values):
        for c, d in zip(term, ge.shape_of(v)):
            if d < 0:
                raise OnnxUnsupported("Einsum of a dynamic shape")
            sizes[c] = max(sizes.get(c, 1), d)
    return sizes


def _diagonal(g, x, term: str) -> tuple[object, str]:
    """x with each repeated letter of `term` reduced to its diagonal."""
    while True:
        repeated = next((c for c in term if term.count(c) > 1), None)
        if repeated is None:
            return x, term
        p = term.index(repeated)
        q = term.index(repeated, p + 1)
        n = ge.shape_of(x)[p]
        shape = [1] * len(term)
        shape[p] = shape[q] = n
        mask = g.const(np.eye(n, dtype=numpy_dtype(ge.element_type(x.type))).reshape(shape))
        x = g.emit(ge.ReduceSumOp(g.emit(ge.MulOp(x, mask)), [q], False))
        term = term[:q] + term[q + 1:]


def _arrange(g, x, term: str, order: str):
    """x (letters `term`) transposed into `order`, with size-1 dims for the
    letters of `order` it lacks."""
    present = [c for c in order if c in term]
    perm = [term.index(c) for c in present]
    if perm != list(range(len(perm))):
        x = g.emit(ge.TransposeOp(x, perm))
    shape = ge.shape_of(x)
    full = [shape[present.index(c)] if c in present else 1 for c in order]
    return x if list(full) == list(shape) else g.emit(ge.ReshapeOp(x, full))


def einsum(g, n) -> list:
    values = [g.input(n, i) for i in range(len(n.input))]
    letters, out = _parse(g.attr(n, "equation"), [len(ge.shape_of(v)) for v in values])
    sizes = _sizes(letters, values)
    prepared = []
    for i, (v, term) in enumerate(zip(values, letters)):
        v, term = _diagonal(g, v, term)
        others = out + "".join(t for j, t in enumerate(letters) if j != i)
        lonely = [k for k, c in enumerate(term) if c not in others]
        if lonely:
            v = g.emit(ge.ReduceSumOp(v, lonely, False))
            term = "".join(c for k, c in enumerate(term) if k not in lonely)
        prepared.append((v, term))
    if len(prepared) == 1:
        (v, term), = prepared
        summed = [k for k, c in enumerate(term) if c not in out]
        if summed:
            v = g.emit(ge.ReduceSumOp(v, summed, False))
            term = "".join(c for c in term if c in out)
        return [_arrange(g, v, term, out)]
    if len(prepared) == 2:
        y = _matmul(g, prepared, out, sizes)
        if y is not None:
            return [y]
    return [_broadcast(g, prepared, out)]


def _matmul(g, prepared, out: str, sizes: dict[str, int]):
    """Two operands as one batched matmul; None if their batch dims differ."""
    (a, ta), (b, tb) = prepared
    batch = [c for c in out if c in ta and c in tb]
    left = [c for c in out if c in ta and c not in tb]
    right = [c for c in out if c in tb and c not in ta]
    inner = [c for c in ta if c in tb and c not in out]
    for v, t in prepared:
        if any(ge.shape_of(v)[t.index(c)] != sizes[c] for c in batch + inner):
            return None  # sizes that only broadcast: the general path
    prod = (lambda cs: int(np.prod([sizes[c] for c in cs])))
    a = _arrange(g, a, ta, "".join(batch + left + inner))
    a = g.emit(ge.ReshapeOp(a, [prod(batch), prod(left), prod(inner)]))
    b = _arrange(g, b, tb, "".join(batch + inner + right))
    b = g.emit(ge.ReshapeOp(b, [prod(batch), prod(inner), prod(right)]))
    y = g.emit(ge.MatMulOp(a, b))
    y = g.emit(ge.ReshapeOp(y, [sizes[c] for c in batch + left + right]))
    return _arrange(g, y, "".join(batch + left + right), out)


def _broadcast(g, prepared, out: str):
    contracted = "".join(sorted({c for _, t in prepared for c in t} - set(out)))
    order = out + contracted
    y = None
    for v, t in prepared:
        v = _arrange(g, v, t, order)
        y = v if y is None else g.emit(ge.MulOp(y, v))
    if contracted:
        y = g.emit(ge.ReduceSumOp(y, list(range(len(out), len(order))), False))
    return y
