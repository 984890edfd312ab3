"""The IR: the GE graph dialect and the Ascend task dialect."""

from xdsl.context import Context
from xdsl.dialects.builtin import Builtin
from xdsl.dialects.func import Func

from ge_dialect.ascend import Ascend
from ge_dialect.ge import GE


def make_context() -> Context:
    """A context that knows every dialect our IR uses."""
    ctx = Context()
    for dialect in (Builtin, Func, GE, Ascend):
        ctx.load_dialect(dialect)
    return ctx
