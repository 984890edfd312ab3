"""`npu_graph.custom_op`: the escape hatch for ops the importer does not know.

The registry itself lives in `runtime.custom_ops`, which both the importer
and the runtime read; see its docstring for the calling conventions.
"""

from runtime.custom_ops import CustomOpError, custom_op, lookup, register, unregister

__all__ = ["CustomOpError", "custom_op", "lookup", "register", "unregister"]
