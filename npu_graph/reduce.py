"""Test-case reduction, like mlir-reduce: the smallest graph that is still interesting.

    smaller = reduce(module, is_interesting)

`is_interesting(module)` says whether a candidate still shows the problem
(a wrong answer, a crash); ge-reduce builds it from a shell command, ge-fuzz
from its own check. Each step tries one edit on a copy and keeps it when the
copy is still interesting. The strategies are mlir-reduce's:

  * cut the tail: the function returns an earlier op's result instead, so
    everything after it goes (found by bisection over the ops, first);
  * erase an op: its uses take one of its operands of the same type
    (replace an op by its operand), or a new function argument of its type
    (so an op whose inputs differ in type can still go, and all above it);
  * replace a value by a constant (a zero splat of its type);
  * shrink shapes: arguments' dims become 1, result types re-inferred;
  * drop an output of the function (one always stays);
  * make a constant a splat of its first element (smaller, and weights that
    no longer matter show as such);
  * drop unused function arguments and ops nothing uses.

Only edits that keep the IR verifying are tried, so the interesting test
never sees invalid IR. Greedy and deterministic: the same input and test
give the same result.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp, TensorType
from xdsl.ir import Operation

from ge_dialect import find_func, ge
from ge_dialect.tensors import from_numpy, to_numpy

Edit = Callable[[ModuleOp], bool]  # applies itself to the module; False if it cannot


def op_count(module: ModuleOp) -> int:
    """Ops of @main that compute (constants and the return not counted)."""
    return sum(1 for op in find_func(module).body.block.ops
               if not isinstance(op, ge.ConstOp | func.ReturnOp))


def reduce(module: ModuleOp, is_interesting: Callable[[ModuleOp], bool],
           log: Callable[[str], None] | None = None) -> ModuleOp:
    """The smallest variant of `module` found that is still interesting."""
    if not is_interesting(module):
        raise ValueError("the input is not interesting to begin with (the test says no "
                         "on it): nothing to reduce")
    best = _cut_tail(module.clone(), is_interesting, log)
    changed = True
    while changed:  # rounds until one keeps nothing
        changed = False
        edits, i = list(_edits(best)), 0
        while i < len(edits):
            describe, edit = edits[i]
            candidate = _try(best, edit, is_interesting)
            if candidate is None:
                i += 1
                continue
            best, changed = candidate, True
            if log is not None:
                log(f"kept: {describe} ({op_count(best)} ops left)")
            # Positions shifted: list the edits again and go on from about here
            # (the next round retries those before it).
            edits = list(_edits(best))
    return best


def _try(module: ModuleOp, edit: Edit, is_interesting) -> ModuleOp | None:
    """The edited copy if it verifies and is still interesting, else None."""
    candidate = module.clone()
    try:
        if not edit(candidate):
            return None
        _clean(candidate)
        candidate.verify()
    except Exception:  # noqa: BLE001 - an edit that breaks the IR is just not taken
        return None
    return candidate if is_interesting(candidate) else None


def _cut_tail(module: ModuleOp, is_interesting, log) -> ModuleOp:
    """Return the earliest op's result that keeps the test interesting, found by
    bisection (log2 of the ops' count tests): most of a long graph goes at once."""
    ops = list(find_func(module).body.block.ops)
    ends = [i for i, op in enumerate(ops)
            if len(op.results) == 1 and not isinstance(op, ge.ConstOp | func.ReturnOp)]
    lo, hi, best = 0, len(ends) - 1, module
    while lo <= hi:
        mid = (lo + hi) // 2
        candidate = _try(module, _return_value(ends[mid]), is_interesting)
        if candidate is not None:
            best, hi = candidate, mid - 1
        else:
            lo = mid + 1
    if best is not module and log is not None:
        log(f"kept: cut the tail ({op_count(best)} ops left)")
    return best


def _edits(module: ModuleOp) -> Iterator[tuple[str, Edit]]:
    """Every single edit of `module`, the most shrinking first; an edit finds
    its op again by position, so it applies to a clone."""
    ops = list(find_func(module).body.block.ops)
    # Later ops first: deleting the end of a chain leaves the start interesting more often.
    for i in reversed(range(len(ops))):
        op = ops[i]
        if isinstance(op, ge.ConstOp | func.ReturnOp) or len(op.results) != 1:
            continue
        for j, operand in enumerate(op.operands):
            if operand.type == op.results[0].type:
                yield f"{op.name} -> its operand #{j}", _bypass(i, j)
        yield f"{op.name} -> a new argument", _to_argument(i)
    shapes = [a.type.get_shape() if isinstance(a.type, TensorType) else ()
              for a in find_func(module).body.block.args]
    if any(d > 1 for shape in shapes for d in shape[2:]):
        yield "shrink every argument's spatial dims to 1", _shrink_shapes(None, keep=2)
    if any(d > 1 for shape in shapes for d in shape):
        yield "shrink every argument's dims to 1", _shrink_shapes(None, keep=0)
    for k, shape in enumerate(shapes):
        if any(d > 1 for d in shape):
            yield f"shrink argument #{k}'s dims to 1", _shrink_shapes(k, keep=0)
    for i in reversed(range(len(ops))):
        t = ops[i].results[0].type if len(ops[i].results) == 1 else None
        if (not isinstance(ops[i], ge.ConstOp) and isinstance(t, TensorType)
                and t.has_static_shape()):
            yield f"{ops[i].name} -> a zero constant", _to_constant(i)
    returned = ops[-1].operands if ops and isinstance(ops[-1], func.ReturnOp) else ()
    for k in reversed(range(len(returned))):
        if len(returned) > 1:
            yield f"drop output #{k}", _drop_output(k)
    for i, op in enumerate(ops):
        if isinstance(op, ge.ConstOp) and op.output.type.get_shape() and not _splat(op):
            yield f"constant {i} -> a splat", _splat_const(i)


def _nth(module: ModuleOp, i: int) -> Operation:
    return list(find_func(module).body.block.ops)[i]


def _bypass(i: int, j: int) -> Edit:
    def edit(module: ModuleOp) -> bool:
        op = _nth(module, i)
        op.results[0].replace_all_uses_with(op.operands[j])
        op.detach()
        op.erase()
        return True
    return edit


def _to_argument(i: int) -> Edit:
    def edit(module: ModuleOp) -> bool:
        fn = find_func(module)
        op = _nth(module, i)
        block = fn.body.block
        arg = block.insert_arg(op.results[0].type, len(block.args))
        op.results[0].replace_all_uses_with(arg)
        op.detach()
        op.erase()
        _retype(fn)
        return True
    return edit


def _return_value(i: int) -> Edit:
    def edit(module: ModuleOp) -> bool:
        fn = find_func(module)
        ret = fn.body.block.last_op
        ret.operands = [_nth(module, i).results[0]]
        _retype(fn)
        return True
    return edit


def _to_constant(i: int) -> Edit:
    def edit(module: ModuleOp) -> bool:
        op = _nth(module, i)
        t = op.results[0].type
        dtype = NUMPY_DTYPES.get(str(t.element_type))
        if dtype is None:
            return False
        const = ge.ConstOp(from_numpy(np.zeros(t.get_shape(), dtype)))
        op.parent.insert_op_before(const, op)
        op.results[0].replace_all_uses_with(const.results[0])
        op.detach()
        op.erase()
        return True
    return edit


NUMPY_DTYPES = {"f32": np.float32, "f16": np.float16, "f64": np.float64, "i64": np.int64,
                "i32": np.int32, "i1": np.bool_}


def _shrink_shapes(k: int | None, keep: int) -> Edit:
    """Argument k's dims (every argument's, for None) after the first `keep`
    become 1; every op's result type is inferred again from its operands (ops
    that cannot infer keep theirs, and the edit fails to verify)."""
    def edit(module: ModuleOp) -> bool:
        fn = find_func(module)
        block = fn.body.block
        was = {}  # new value -> the type it had before
        for index, arg in enumerate(list(block.args)):
            if (k is None or index == k) and isinstance(arg.type, TensorType):
                shape = list(arg.type.get_shape())
                shape[keep:] = [1] * len(shape[keep:])
                new = block.insert_arg(TensorType(arg.type.element_type, shape), index)
                was[new] = arg.type
                arg.replace_all_uses_with(new)
                block.erase_arg(arg)
        for op in list(block.ops):
            if len(op.results) == 1 and not op.regions:
                _retype_result(op, was)
        _retype(fn)
        return True
    return edit


def _retype_result(op: Operation, was: dict) -> None:
    """Rebuild `op` with the result shape inferred from its (new) operands: by
    its infer_shape, else as the operand whose type it shared (elementwise)."""
    t = op.results[0].type
    if not isinstance(t, TensorType) or not any(v in was for v in op.operands):
        return

    def build(result_type):
        return type(op).create(operands=list(op.operands), result_types=[result_type],
                               properties=dict(op.properties), attributes=dict(op.attributes))
    infer = getattr(op, "infer_shape", None)
    shape = build(t).infer_shape() if infer is not None else None
    if shape is None:
        shared = next((v for v in op.operands if was.get(v, v.type) == t), None)
        if shared is None:
            return
        shape = shared.type.get_shape()
    if list(shape) == list(t.get_shape()):
        return
    new = build(TensorType(t.element_type, list(shape)))
    was[new.results[0]] = t
    op.parent.insert_op_before(new, op)
    op.results[0].replace_all_uses_with(new.results[0])
    op.detach()
    op.erase()


def _drop_output(k: int) -> Edit:
    def edit(module: ModuleOp) -> bool:
        fn = find_func(module)
        ret = fn.body.block.last_op
        operands = list(ret.operands)
        del operands[k]
        ret.operands = operands
        _retype(fn)
        return True
    return edit


def _splat(op: ge.ConstOp) -> bool:
    data = to_numpy(op.value)
    return data.size <= 1 or bool((data == data.flat[0]).all())


def _splat_const(i: int) -> Edit:
    def edit(module: ModuleOp) -> bool:
        op = _nth(module, i)
        data = to_numpy(op.value)
        op.properties["value"] = from_numpy(np.full(data.shape, data.flat[0], data.dtype))
        return True
    return edit


def _clean(module: ModuleOp) -> None:
    """Remove ops nothing uses (back to front) and arguments nothing reads."""
    fn = find_func(module)
    block = fn.body.block
    for op in reversed(list(block.ops)):
        if not isinstance(op, func.ReturnOp) and not any(r.uses for r in op.results):
            op.detach()
            op.erase()
    for arg in reversed(list(block.args)):
        if not arg.uses:
            block.erase_arg(arg)
    _retype(fn)


def _retype(fn: func.FuncOp) -> None:
    block = fn.body.block
    outputs = [v.type for v in block.last_op.operands]
    fn.function_type = FunctionType.from_lists(list(block.arg_types), outputs)
