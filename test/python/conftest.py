"""pytest set-up shared by test/python: the hypothesis profile (see
test/fuzz/profiles.py), one torch thread per xdist worker (two workers with
two threads each would oversubscribe a 2-core machine, and a spinning OpenMP
pool then runs many times slower), ge-opt's crash files kept out of the
user's cache, and the differential fuzzer's count, summed over the workers
and printed just before pytest's summary line."""

import os
import tempfile
from pathlib import Path

import pytest
import torch

from test.fuzz import STATS, profiles

profiles.load()
# ge-opt's crash reproducers from the tests' planted bugs go to one capped
# folder of the temp dir, never to the user's ~/.cache/ge-opt/crashes
# (tools/ge_opt.py crash_dir; the variable reaches subprocesses too).
os.environ.setdefault("GE_OPT_CRASH_DIR", str(Path(tempfile.gettempdir()) / "ge-opt-test-crashes"))
if os.environ.get("PYTEST_XDIST_WORKER"):
    torch.set_num_threads(1)


def pytest_sessionfinish(session):
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker hands its counts to the controller
        workeroutput["fuzz_stats"] = dict(STATS)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    for key, count in getattr(node, "workeroutput", {}).get("fuzz_stats", {}).items():
        STATS[key] += count


def pytest_terminal_summary(terminalreporter):
    if STATS["checked"] or STATS["mismatches"]:
        terminalreporter.write_line(
            f"differential fuzzer: {STATS['checked']} graph x pipeline checks passed, "
            f"{STATS['mismatches']} mismatches")
