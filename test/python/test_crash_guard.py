"""ge-opt's crash guard: a bug of ours is reported as one, with a reproducer.

The misbehaving passes come from test/ge_opt_with_test_passes.py, a driver
that extends ge-opt the way a plugin would.
"""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

GOOD = """func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.relu %x : tensor<4xf32>
  func.return %y : tensor<4xf32>
}
"""
NO_RELU = """func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}
"""
REPO = Path(__file__).parents[2]
HEADER = re.compile(r"^// ge-opt reproducer: -p '(?P<pipeline>[^']*)'\n")


def run(*args, tmp_path: Path, stdin: str = "", tool: str = "test.ge_opt_with_test_passes",
        env: dict[str, str] | None = None):
    """The tool with the user's cache dir in tmp_path (and no GE_OPT_CRASH_DIR
    unless `env` sets it), so the default place of crash files is what is tested."""
    return subprocess.run([sys.executable, "-m", tool, *args], input=stdin, cwd=REPO,
                          capture_output=True, text=True,
                          env={"XDG_CACHE_HOME": str(tmp_path), "PATH": "/usr/bin:/bin",
                               **(env or {})})


def reproducers(tmp_path: Path) -> list[Path]:
    """The crash files, which go under the user's cache dir."""
    return sorted((tmp_path / "ge-opt" / "crashes").glob("ge-opt-crash-*.mlir"))


def assert_bug_report(r, tmp_path: Path, first_line: str) -> Path:
    """Exit 2, two lines, no traceback, and one reproducer whose path the second line gives."""
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr + r.stdout
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 2, r.stderr
    assert lines[0] == first_line
    (path,) = reproducers(tmp_path)
    assert lines[1].startswith("ge-opt: this is a bug in ge-opt, not in your input; "
                               f"please report it with {path} ")
    return path


@pytest.fixture
def good_file(tmp_path):
    path = tmp_path / "input" / "good.mlir"
    path.parent.mkdir()
    path.write_text(GOOD)
    return path


def test_crash_in_a_pass_names_it_and_writes_a_reproducer(good_file, tmp_path):
    r = run(str(good_file), "-p", "dce,test-crash-on-relu", tmp_path=tmp_path)
    path = assert_bug_report(r, tmp_path, "ge-opt: internal compiler error in pass "
                             "'test-crash-on-relu': RuntimeError: test-crash-on-relu met a ge.relu")
    text = path.read_text()
    assert HEADER.match(text)["pipeline"] == "dce,test-crash-on-relu"
    assert text[HEADER.match(text).end():] == GOOD  # the input as received
    assert f"(reproduce: ge-opt {path} -p 'dce,test-crash-on-relu')" in r.stderr


def test_the_reproducer_reproduces(good_file, tmp_path):
    first = run(str(good_file), "-p", "dce,test-crash-on-relu", tmp_path=tmp_path)
    (path,) = reproducers(tmp_path)
    pipeline = HEADER.match(path.read_text())["pipeline"]
    again = run(str(path), "-p", pipeline, tmp_path=tmp_path)
    assert again.returncode == 2
    assert again.stderr.splitlines()[0] == first.stderr.splitlines()[0]


def test_a_repeated_crash_overwrites_its_file_and_reproducing_writes_none(good_file, tmp_path):
    first = run(str(good_file), "-p", "dce,test-crash-on-relu", tmp_path=tmp_path)
    (path,) = reproducers(tmp_path)
    again = run(str(good_file), "-p", "dce,test-crash-on-relu", tmp_path=tmp_path)
    assert reproducers(tmp_path) == [path]  # named by content: the same file
    assert first.stderr == again.stderr
    reproduced = run(str(path), "-p", "dce,test-crash-on-relu", tmp_path=tmp_path)
    assert reproduced.returncode == 2 and reproducers(tmp_path) == [path]
    assert f"please report it with {path} " in reproduced.stderr


def test_crash_dir_is_capped(good_file, tmp_path):
    from tools.ge_opt import MAX_CRASH_FILES

    folder = tmp_path / "crashes"
    folder.mkdir()
    for i in range(MAX_CRASH_FILES + 5):
        (folder / f"ge-opt-crash-old{i}.mlir").write_text("old")
    r = run(str(good_file), "-p", "test-crash-on-relu", "--crash-dir", str(folder),
            tmp_path=tmp_path)
    assert r.returncode == 2 and f"--crash-dir '{folder}'" in r.stderr
    files = sorted(folder.glob("ge-opt-crash-*.mlir"))
    assert len(files) == MAX_CRASH_FILES
    assert any(f.read_text().startswith("// ge-opt reproducer:") for f in files)


def test_ge_opt_crash_dir_names_the_folder_and_reproducing_writes_none(good_file, tmp_path):
    """$GE_OPT_CRASH_DIR (what the test suites set) wins over the user's cache dir."""
    folder = tmp_path / "env-crashes"
    env = {"GE_OPT_CRASH_DIR": str(folder)}
    r = run(str(good_file), "-p", "test-crash-on-relu", tmp_path=tmp_path, env=env)
    assert r.returncode == 2, r.stderr
    assert not reproducers(tmp_path)  # nothing under the cache dir
    (path,) = folder.glob("ge-opt-crash-*.mlir")
    command = r.stderr.split("(reproduce: ")[1].rstrip(")\n")
    assert command == f"ge-opt {path} -p 'test-crash-on-relu'"
    again = run(*shlex.split(command)[1:], tmp_path=tmp_path, env=env)
    assert again.returncode == 2 and f"please report it with {path} " in again.stderr
    assert list(folder.iterdir()) == [path] and not reproducers(tmp_path)


def test_the_test_suite_keeps_crash_files_out_of_the_users_cache():
    folder = Path(os.environ["GE_OPT_CRASH_DIR"])  # set by conftest.py
    assert not folder.is_relative_to(Path.home() / ".cache")
    from tools.ge_opt import crash_dir

    assert crash_dir(None) == folder


def test_value_error_in_a_pass_is_a_bug_not_a_user_error(good_file, tmp_path):
    """ValueError means a bad option at start-up, but inside a pass it is ours."""
    r = run(str(good_file), "-p", "test-crash-on-relu{error=ValueError}", tmp_path=tmp_path)
    assert_bug_report(r, tmp_path, "ge-opt: internal compiler error in pass "
                      "'test-crash-on-relu': ValueError: test-crash-on-relu met a ge.relu")


def test_pass_output_that_does_not_verify_is_the_pass_bug(good_file, tmp_path):
    """Even with --verify-diagnostics, which turns verifier errors into output."""
    for flags in ((), ("--verify-diagnostics",)):
        for old in reproducers(tmp_path):
            old.unlink()
        r = run(str(good_file), "-p", "test-break-ir", *flags, tmp_path=tmp_path)
        assert_bug_report(r, tmp_path, "ge-opt: internal compiler error in pass 'test-break-ir' "
                          "(its output does not verify): PassVerifyError: IR after pass "
                          "'test-break-ir' does not verify: ge.reshape %0: ge.reshape: "
                          "cannot reshape 4 elements into 999")


def test_split_input_file_reproducer_holds_the_crashing_chunk(tmp_path):
    r = run("--split-input-file", "-p", "test-crash-on-relu", tmp_path=tmp_path,
            stdin=NO_RELU + "// -----\n" + GOOD)
    path = assert_bug_report(r, tmp_path, "ge-opt: internal compiler error in pass "
                             "'test-crash-on-relu': RuntimeError: test-crash-on-relu met a ge.relu")
    text = path.read_text()
    assert "@f" in text and "@g" not in text
    assert r.stdout.startswith("builtin.module")  # the first chunk was compiled


def test_user_errors_stay_exit_1_without_a_reproducer(tmp_path):
    for args, stdin in ((("-p", "lower-to-ascend,lower-to-ascend"), GOOD),  # a pass refuses
                        ((), GOOD.replace("%x : tensor", "%z : tensor")),
                        (("-p", "op-fusion{max-group-size=0}"), GOOD)):
        r = run(*args, tmp_path=tmp_path, stdin=stdin, tool="tools.ge_opt")
        assert r.returncode == 1, r.stderr
        # one diagnostic: a line, or MLIR's three (headline, source line, caret)
        assert len(r.stderr.strip().splitlines()) in (1, 3) and "Traceback" not in r.stderr
    assert not reproducers(tmp_path)


def test_closed_stdout_is_not_an_error(good_file, tmp_path):
    """`ge-opt ... | head`: the reader leaving early is exit 0, silently (it was exit 1)."""
    p = subprocess.Popen([sys.executable, "-m", "tools.ge_opt", str(good_file)], cwd=REPO,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.close()  # before ge-opt has started, so its first write fails
    assert p.wait() == 0
    assert p.stderr.read() == b""
