"""Human-facing printing: IR with large weights elided, as MLIR's
`--mlir-elide-elementsattrs-if-larger` does.

Elided text keeps its shape and types but not its data, so it is for reading
(the demo, the README, `ge-opt --elide-elementsattrs-if-larger=N`), never
for feeding back into the compiler.
"""

from dataclasses import dataclass
from io import StringIO

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
from xdsl.ir import Attribute, Operation
from xdsl.printer import Printer

from ge_dialect.tensors import to_numpy


@dataclass(eq=False, repr=False)
class ElidingPrinter(Printer):
    elide_above: int = 16

    def print_attribute(self, attribute: Attribute) -> None:
        if (isinstance(attribute, DenseIntOrFPElementsAttr)
                and len(attribute) > self.elide_above and not _is_splat(attribute)):
            self.print_string("dense_resource<__elided__> : ")
            self.print_attribute(attribute.get_type())
            return
        super().print_attribute(attribute)


def _is_splat(attribute: DenseIntOrFPElementsAttr) -> bool:
    # xDSL's is_splat unpacks every element into a Python list: seconds for
    # a ResNet-50 weight. The bytes compared as an array take milliseconds.
    data = to_numpy(attribute)
    return bool((data == data.flat[0]).all())


def format_ir(op: Operation, elide_above: int = 16, debuginfo: bool = False) -> str:
    """`debuginfo` prints each op's source location (`loc("model.py":94:0)`)."""
    out = StringIO()
    ElidingPrinter(stream=out, elide_above=elide_above,
                   print_debuginfo=debuginfo).print_op(op)
    return out.getvalue()
