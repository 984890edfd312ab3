"""The IR: the GE graph dialect and the Ascend task dialect."""

from xdsl.context import Context
from xdsl.dialects.builtin import Builtin
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import Func

from ge_dialect.ascend import Ascend
from ge_dialect.ge import GE


def make_context() -> Context:
    """A context that knows every dialect our IR uses."""
    ctx = Context()
    for dialect in (Builtin, Func, GE, Ascend):
        ctx.load_dialect(dialect)
    return ctx

# On a function: the structure of what the model returns (a dict, nested
# tuples, a namedtuple...) as torch's pytree spec in JSON, when it is not a
# plain tuple of tensors. Every stage keeps it; `npu_graph` rebuilds the
# structure from the flat results.
OUTPUT_TREE = "ge.output_tree"

# On a function: the layout (storage offset, strides) each graph input had when
# traced, for inputs whose storage an op reads beneath the view (as_strided),
# as JSON {"input index": [offset, [strides]]} (offset null: read relative to
# the input's own, as as_strided without a storage_offset does). Every stage keeps it;
# `npu_graph` refuses a call whose input has another layout.
STORAGE_LAYOUTS = "ge.storage_layouts"
# On a function: the module buffers (their names in the state dict) that the
# graph updates in place (a static KV cache), passed as its last arguments in
# this order. `npu_graph` passes the module's own tensors, so they are updated
# in place as in eager.
STATE_BUFFERS = "ge.state_buffers"


def find_func(module: ModuleOp, name: str = "main") -> func.FuncOp:
    """The function `@name` of `module`: `@main` is the graph every stage works on."""
    for op in module.ops:
        if isinstance(op, func.FuncOp) and op.sym_name.data == name:
            return op
    raise ValueError(f"the module has no function @{name}")
