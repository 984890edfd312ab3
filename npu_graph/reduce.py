"""Test-case reduction, like mlir-reduce: the smallest graph that is still interesting.

    smaller = reduce(module, is_interesting)

`is_interesting(module)` says whether a candidate still shows the problem
(a wrong answer, a crash); ge-reduce builds it from a shell command, ge-fuzz
from its own check. Each step tries one edit on a copy and keeps it when the
copy is still interesting; the steps repeat until none is kept:

  * delete an op: its uses take one of its operands of the same type, or a
    new function argument of its type (so an op whose inputs differ in type
    can still go);
  * drop an output of the function (one always stays);
  * make a constant a splat of its first element (smaller, and weights that
    no longer matter show as such);
  * remove function arguments and ops nothing uses.

Only edits that keep the IR verifying are tried, so the interesting test
never sees invalid IR. Greedy and deterministic: the same input and test
give the same result.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp
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
    best = module.clone()
    changed = True
    while changed:
        changed = False
        for describe, edit in list(_edits(best)):
            candidate = best.clone()
            if not edit(candidate):
                continue
            _clean(candidate)
            try:
                candidate.verify()
            except Exception:  # noqa: BLE001 - an edit that breaks the IR is just not taken
                continue
            if is_interesting(candidate):
                best, changed = candidate, True
                if log is not None:
                    log(f"kept: {describe} ({op_count(best)} ops left)")
                break  # positions shifted: list the edits again
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
