"""A lit.cfg for out-of-tree FileCheck tests of your passes and patterns.

    python -m tools.lit_cfg > my_tests/lit.cfg && lit my_tests

The template (TEMPLATE below) runs every `.mlir` file of its folder that has a
`// RUN:` line (files without one are inputs of other tests), with `ge-opt`,
`ge-bisect`, `ge-fuzz`, `ge-reduce` and `filecheck` taken from the Python that
runs lit, and `%plugins` standing for the folder (where your plugin files sit):

    // RUN: ge-opt %s --load-pass-plugin %plugins/my_rules.py -p my-rules | filecheck %s
"""

TEMPLATE = '''\
# lit.cfg for out-of-tree GE tests (from `python -m tools.lit_cfg`): `lit .` runs them.
import importlib.util
import os
import sys

import lit.formats

config.name = "ge-plugins"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
# A .mlir file without a RUN: line is an input of other tests, not a test.
config.excludes = ["Output"] + [
    name for name in os.listdir(config.test_source_root) if name.endswith(".mlir")
    and "RUN:" not in open(os.path.join(config.test_source_root, name)).read()]

# The tools run on the Python that runs lit (the venv where ge is installed).
for tool, module in (("ge-opt", "tools.ge_opt"), ("ge-bisect", "tools.ge_bisect"),
                     ("ge-fuzz", "tools.ge_fuzz"), ("ge-reduce", "tools.ge_reduce")):
    config.substitutions.append((tool, f"{sys.executable} -m {module}"))
if importlib.util.find_spec("filecheck.__main__") is not None:
    config.substitutions.append(("filecheck", f"{sys.executable} -m filecheck"))
config.substitutions.append(("%plugins", config.test_source_root))
config.environment["PATH"] = os.pathsep.join(
    [os.path.dirname(sys.executable), os.environ.get("PATH", os.defpath)])
if os.environ.get("PYTHONPATH"):
    config.environment["PYTHONPATH"] = os.environ["PYTHONPATH"]
'''


def main() -> int:
    print(TEMPLATE, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
