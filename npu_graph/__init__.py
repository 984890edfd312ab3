"""The Python API of the GE article (`custom_op`, and the compiler functions)."""

from npu_graph.custom_op import custom_op

__all__ = ["custom_op"]
