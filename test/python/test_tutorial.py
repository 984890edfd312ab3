"""docs/writing-a-pattern.md stays true: its files are written, its commands and tests run."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

TUTORIAL = Path(__file__).parents[2] / "docs" / "writing-a-pattern.md"
BLOCK = re.compile(r"^```(\w+)(?: file=(\S+))?\n(.*?)^```$", re.M | re.S)


def blocks():
    return [(m[1], m[2], m[3]) for m in BLOCK.finditer(TUTORIAL.read_text())]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """A scratch folder holding every `file=` block, with the venv's tools on PATH."""
    root = tmp_path_factory.mktemp("tutorial")
    for _, name, text in blocks():
        if name:
            (root / name).write_text(text)
    return root


def run(command: str, cwd: Path):
    env = dict(os.environ, PATH=os.pathsep.join([os.path.dirname(sys.executable),
                                                 os.environ.get("PATH", "")]))
    return subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=cwd, env=env,
                          capture_output=True, text=True)


def test_every_code_block_is_a_file_a_command_or_sample_output():
    kinds = [(lang, name) for lang, name, _ in blocks()]
    assert all(name or lang in ("sh", "text", "diff") for lang, name in kinds), kinds
    assert sum(lang == "sh" for lang, _ in kinds) >= 4


@pytest.mark.parametrize("command", [text for lang, _, text in blocks() if lang == "sh"])
def test_shell_commands_succeed(workdir, command):
    r = run(command, workdir)
    assert r.returncode == 0, f"{command}\n{r.stdout}\n{r.stderr}"


@pytest.mark.parametrize("name", [name for _, name, text in blocks()
                                  if name and "// RUN:" in text])
def test_filecheck_tests_pass(workdir, name):
    path = workdir / name
    for line in path.read_text().splitlines():
        if line.startswith("// RUN:"):
            command = line.removeprefix("// RUN:").replace("%s", str(path)).replace(
                "%S", str(workdir))
            r = run(command, workdir)
            assert r.returncode == 0, f"{command}\n{r.stderr}"
