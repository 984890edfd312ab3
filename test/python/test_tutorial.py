"""docs/writing-a-pattern.md stays true: its files are written, its commands and tests run."""

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).parents[2]
TUTORIAL = REPO / "docs" / "writing-a-pattern.md"
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


@pytest.fixture(scope="module")
def scripts(tmp_path_factory):
    """This checkout's console scripts (pyproject.toml), as the venv would install
    them: the tutorial runs the code under test even before a reinstall."""
    folder = tmp_path_factory.mktemp("bin")
    table = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    for name, target in table.items():
        module, function = target.split(":")
        path = folder / name
        path.write_text(f"#!/bin/sh\nexec {sys.executable} -c 'import sys; from {module} "
                        f"import {function}; sys.exit({function}())' \"$@\"\n")
        path.chmod(0o755)
    return folder


def run(command: str, cwd: Path, scripts: Path):
    env = dict(os.environ, PATH=os.pathsep.join([str(scripts), os.path.dirname(sys.executable),
                                                 os.environ.get("PATH", "")]),
               PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=cwd, env=env,
                          capture_output=True, text=True)


def test_every_code_block_is_a_file_a_command_or_sample_output():
    kinds = [(lang, name) for lang, name, _ in blocks()]
    assert all(name or lang in ("sh", "text", "diff") for lang, name in kinds), kinds
    assert sum(lang == "sh" for lang, _ in kinds) >= 4


@pytest.mark.parametrize("command", [text for lang, _, text in blocks() if lang == "sh"])
def test_shell_commands_succeed(workdir, scripts, command):
    r = run(command, workdir, scripts)
    assert r.returncode == 0, f"{command}\n{r.stdout}\n{r.stderr}"


@pytest.mark.parametrize("name", [name for _, name, text in blocks()
                                  if name and "// RUN:" in text])
def test_filecheck_tests_pass(workdir, scripts, name):
    path = workdir / name
    for line in path.read_text().splitlines():
        if line.startswith("// RUN:"):
            command = line.removeprefix("// RUN:").replace("%s", str(path)).replace(
                "%S", str(workdir))
            r = run(command, workdir, scripts)
            assert r.returncode == 0, f"{command}\n{r.stderr}"
