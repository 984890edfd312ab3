"""ge-import: import a PyTorch or ONNX model into GE IR from the command line.

    ge-import path/to/model.py:make -o model.mlir
    ge-import my_package.models:make_resnet
    ge-import resnet18            # a model of the zoo (test/models)
    ge-import model.onnx | ge-opt -p ge-O3

MODEL names an .onnx file or a factory, a function of no arguments returning
`(model, example_inputs)`; a model with a `dynamic_shapes` attribute is
exported with it. The GE IR goes to `-o` (default: stdout).

A model that cannot be imported (unsupported ops, a failed export, a bad
factory) gets one message on stderr and exit status 1, never a traceback;
the unsupported-op report lists every op at once. Anything else is a bug in
the compiler: exit status 2.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
from pathlib import Path

from tools.models import zoo_factory, zoo_names

USER_ERROR, INTERNAL_ERROR = 1, 2


class UsageError(Exception):
    """The command line or the factory it names is wrong; the message says how."""


def _usage_error(message: str):
    raise UsageError(message)  # argparse would print its usage block and exit 2


def load_factory(spec: str):
    """`file.py:function`, `package.module:function`, or a zoo model name."""
    if ":" not in spec:
        try:
            return zoo_factory(spec)
        except ValueError:
            raise UsageError(f"'{spec}' is neither MODULE:FACTORY nor a zoo model "
                             f"({', '.join(zoo_names())})") from None
    where, name = spec.rsplit(":", 1)
    if where.endswith(".py"):
        path = Path(where)
        if not path.is_file():
            raise UsageError(f"no such file: {where}")
        sys.path.insert(0, str(path.resolve().parent))
        module_spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(module_spec)
        try:
            module_spec.loader.exec_module(module)
        except Exception as e:
            raise UsageError(f"importing {where} failed: {type(e).__name__}: {e}") from e
    else:
        sys.path.insert(0, os.getcwd())
        try:
            module = importlib.import_module(where)
        except Exception as e:
            raise UsageError(f"cannot import module '{where}': {type(e).__name__}: {e}") from e
    factory = getattr(module, name, None)
    if not callable(factory):
        raise UsageError(f"{where} has no function '{name}'")
    return factory


def build(factory, spec: str):
    try:
        made = factory()
    except Exception as e:
        raise UsageError(f"the factory {spec} raised {type(e).__name__}: {e}") from e
    import torch

    if not (isinstance(made, tuple) and len(made) == 2
            and isinstance(made[0], torch.nn.Module)):
        raise UsageError(f"the factory {spec} must return (model, example_inputs), got "
                         f"{type(made).__name__}")
    model, inputs = made
    return model, inputs if isinstance(inputs, tuple) else (inputs,)


def run(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="ge-import", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    parser.error = _usage_error
    parser.add_argument("model", metavar="MODEL",
                        help="FILE.onnx, FILE.py:FACTORY, MODULE:FACTORY or a zoo model name")
    parser.add_argument("-o", "--output", help="write the GE IR here (default: stdout)")
    parser.add_argument("--elide-elementsattrs-if-larger", type=int, metavar="N",
                        help="print constants with more than N elements as "
                             "dense_resource<__elided__> (for reading only)")
    parser.add_argument("--print-debuginfo", action="store_true",
                        help="print each op's source location, loc(\"model.py\":LINE:0), the "
                             "line of the model that made it")
    args = parser.parse_args(argv)

    if args.model.endswith(".onnx"):
        from lowering.onnx_to_ge import import_onnx

        module = import_onnx(args.model)
    else:
        from lowering.torch_to_ge import import_module

        model, inputs = build(load_factory(args.model), args.model)
        module = import_module(model, inputs,
                               dynamic_shapes=getattr(model, "dynamic_shapes", None))
    module.verify()
    if args.elide_elementsattrs_if_larger is not None or args.print_debuginfo:
        from ge_dialect.printing import format_ir

        limit = args.elide_elementsattrs_if_larger
        text = format_ir(module, 2**62 if limit is None else limit, args.print_debuginfo)
    else:
        text = str(module)
    if args.output:
        Path(args.output).write_text(text + "\n")
    else:
        sys.stdout.write(text + "\n")
    return 0


def main(argv=None) -> int:
    from lowering.aten.common import GEImportError

    try:
        return run(argv)
    except (GEImportError, UsageError, OSError) as e:
        print(f"ge-import: error: {e}", file=sys.stderr)
        return USER_ERROR
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # noqa: BLE001 - last-resort guard, see module docstring
        print(f"ge-import: internal compiler error ({type(e).__name__}: {e}); please report "
              "it with the model", file=sys.stderr)
        return INTERNAL_ERROR


if __name__ == "__main__":
    sys.exit(main())
