"""ge-bisect's "shrink it" command reduces a 23-op ResNet fragment (the
planted relu-rules bug) to at most 3 ops, in one process."""

import shlex
import time

import pytest

from passes.driver import plugins
from tools import ge_bisect, ge_import, ge_reduce

from test_ge_bisect import RELU_RULES


@pytest.fixture(autouse=True)
def fresh_registry(monkeypatch):
    monkeypatch.setattr(plugins, "_LOADED", {})


def test_shrink_it_reduces_the_resnet_fragment_to_three_ops(tmp_path, capsys):
    model = tmp_path / "tiny_resnet.mlir"
    assert ge_import.main(["tiny_resnet", "-o", str(model)]) == 0
    status = ge_bisect.main(["--model", str(model), "-p", "ge-O2,relu-rules,op-fusion",
                             "--load-pass-plugin", RELU_RULES])
    out = capsys.readouterr().out
    assert status == ge_bisect.FOUND, out
    hint = next(line for line in out.splitlines() if line.startswith("shrink it: "))
    command = shlex.split(hint.removeprefix("shrink it: "))
    assert command[0] == "ge-reduce"
    small = tmp_path / "small.mlir"
    start_cpu, start = time.process_time(), time.perf_counter()
    assert ge_reduce.main([*command[1:], "-o", str(small)]) == ge_reduce.OK
    cpu, wall = time.process_time() - start_cpu, time.perf_counter() - start
    out = capsys.readouterr().out
    assert "23 ops -> " in out, out
    ops = [line for line in small.read_text().splitlines() if " = ge." in line]
    assert len(ops) <= 3, small.read_text()
    assert any("ge.relu" in op for op in ops) and any("ge.add" in op for op in ops)
    # In one process: no interpreter start-up per candidate. CPU time, since the
    # wall clock also counts whatever else shares the machine.
    assert cpu < 30, f"reduction took {cpu:.1f} s of CPU ({wall:.1f} s wall)"
