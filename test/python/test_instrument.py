"""passes/driver/instrument.py: guard rails, per-pass records, rewrite budget, and ge-opt's flags."""

import subprocess
import sys
import time
from pathlib import Path

import pytest
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException

from ge_dialect import make_context
from npu_graph.compiler import run_pipeline
from passes.driver import instrument, plugins
from passes.driver.instrument import GuardError, fingerprint

PLUGINS = Path(__file__).parents[1] / "plugins"
BROKEN = str(PLUGINS / "broken_passes.py")
GRAPH = """func.func @main(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  %zero = ge.const dense<0.0> : tensor<4xf32>
  %one = ge.const dense<1.0> : tensor<4xf32>
  %a = ge.add %x, %zero : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %m = ge.mul %a, %one : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %s = ge.add %m, %w : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %r = ge.relu %s : tensor<4xf32>
  func.return %r : tensor<4xf32>
}
"""


@pytest.fixture(autouse=True)
def fresh_registry(monkeypatch):
    monkeypatch.setattr(plugins, "_LOADED", {})


def parse(text=GRAPH):
    return Parser(make_context(), text).parse_module()


def test_no_op_rewrite_is_caught_and_named():
    with pytest.raises(GuardError, match=r"pass 'touch-relu': pattern TouchRelu reported a "
                                         r"rewrite of ge.relu %r but the IR did not change"):
        run_pipeline(parse(), "touch-relu", plugins=[BROKEN])


def test_non_convergence_names_the_pattern_that_keeps_firing():
    with pytest.raises(GuardError, match=r"pass 'ping-pong': rewriting did not converge within "
                                         r"\d+ rewrites; still firing: SwapAddOperands \(100x"):
        run_pipeline(parse(), "ping-pong", plugins=[BROKEN])


def test_invalid_ir_names_the_pass():
    plugins.load_pass_plugin(BROKEN)
    with pytest.raises(VerifyException, match="IR after pass 'widen-relu' does not verify"):
        run_pipeline(parse(), "canonicalize,widen-relu")


def test_records_nest_level_stages_and_count_rewrites_per_pattern():
    with instrument.session() as s:
        run_pipeline(parse(), "ge-O1,op-fusion")
    assert [(r.path, r.depth, r.leaf) for r in s.passes] == [
        ("ge-O1", 0, False), ("ge-O1/canonicalize", 1, True), ("ge-O1/cse", 1, True),
        ("ge-O1/dce", 1, True), ("op-fusion", 0, True)]
    by_path = {r.path: dict(r.rewrites) for r in s.passes}
    assert by_path["ge-O1/canonicalize"] == {"x + 0 -> x": 1, "x * 1 -> x": 1,
                                             "erase-dead-op": 2}
    assert by_path["op-fusion"] == {"FuseByRuleTable": 1}
    table = s.statistics_table()
    assert "ge-O1/canonicalize" in table and "x * 1 -> x" in table
    timing = s.timing_table()
    assert "    canonicalize" in timing and timing.rstrip().endswith("total")


def test_limit_applies_only_the_first_rewrites():
    module = parse()
    with instrument.session(limit=1, capture=1) as s:
        run_pipeline(module, "canonicalize")
    (app,) = s.applications
    assert (app.index, app.pattern, app.op) == (1, "x + 0 -> x", "ge.add %a")
    assert app.text.startswith("%a = ge.add %x, %zero")
    assert "ge.mul" in str(module)  # the second rewrite was skipped


def test_fingerprint_ignores_names_but_not_structure():
    a, b = parse(), parse(GRAPH.replace("%m", "%renamed"))
    assert fingerprint(a) == fingerprint(b)
    c = parse(GRAPH.replace("ge.add %m, %w", "ge.add %w, %m"))
    assert fingerprint(a) != fingerprint(c)


def ge_opt(*args):
    return subprocess.run([sys.executable, "-m", "tools.ge_opt", *args], input=GRAPH,
                          capture_output=True, text=True)


def test_ge_opt_flags_keep_stdout_for_the_ir():
    r = ge_opt("-p", "ge-O1", "--timing", "--pass-statistics", "--print-ir-after=cse",
               "--verify-each")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("builtin.module")
    err = r.stderr
    assert "// -----// IR Dump After ge-O1/cse //----- //" in err
    assert "IR Dump After ge-O1/dce" not in err
    assert "pass timing" in err and "  ge-O1\n" in err and "total" in err
    assert "x + 0 -> x" in err


def test_ge_opt_guard_failure_exits_2_with_one_line():
    r = ge_opt("--load-pass-plugin", BROKEN, "-p", "ping-pong", "--verify-each")
    assert r.returncode == 2
    # The crash guard's two lines: the error, then the reproducer to report.
    line, reproducer = r.stderr.strip().splitlines()
    assert "did not converge" in line and "SwapAddOperands" in line
    assert "this is a bug in the plugin " in reproducer and "ge-opt-crash-" in reproducer


# No hang, ever: the guard rails are on by default in every driver.
HANGS = [("touch-relu", "TouchRelu"), ("ping-pong", "SwapAddOperands"),
         ("clone-relu", "CloneRelu")]


@pytest.mark.parametrize("pipeline, pattern", HANGS)
def test_ge_opt_stops_a_pass_that_would_loop_under_default_flags(pipeline, pattern):
    start = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "tools.ge_opt", "--load-pass-plugin", BROKEN,
                        "-p", pipeline], input=GRAPH, capture_output=True, text=True,
                       timeout=60)
    assert time.perf_counter() - start < 10  # a process start-up plus well under 2 s of work
    assert r.returncode == 2, r.stderr
    assert pattern in r.stderr.splitlines()[0]


@pytest.mark.parametrize("pipeline, pattern", HANGS)
def test_ge_bisect_stops_a_pass_that_would_loop(pipeline, pattern, tmp_path):
    path = tmp_path / "graph.mlir"
    path.write_text(GRAPH)
    r = subprocess.run([sys.executable, "-m", "tools.ge_bisect", "--model", str(path),
                        "--load-pass-plugin", BROKEN, "-p", pipeline],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, r.stdout + r.stderr
    assert pattern in r.stderr


@pytest.mark.parametrize("pipeline, pattern", HANGS)
def test_run_pipeline_stops_a_pass_that_would_loop(pipeline, pattern):
    plugins.load_pass_plugin(BROKEN)
    module = Parser(make_context(), GRAPH).parse_module()
    start = time.perf_counter()
    with pytest.raises(instrument.GuardError, match=pattern):
        run_pipeline(module, pipeline)
    assert time.perf_counter() - start < 2


def test_a_plugin_that_breaks_types_is_blamed_and_its_reproducer_reproduces(tmp_path):
    r = ge_opt("--load-pass-plugin", BROKEN, "-p", "widen-relu")
    assert r.returncode == 2
    error, report = r.stderr.strip().splitlines()
    # the verifier's whole reason, not its first line only, after the op and the pattern
    assert "expected from variable 'T', but got tensor<99xf32>" in error
    assert ("IR after pass 'widen-relu' does not verify: ge.relu %r, made by pattern "
            "WidenRelu (rewrite #1, on ge.relu %r, ") in error
    # the line in the plugin that made the bad op (its rewriter.replace call)
    line = next(i for i, text in enumerate(Path(BROKEN).read_text().splitlines(), 1)
                if "rewriter.replace(op, ge.ReluOp.create(" in text)
    assert (f"bug in the plugin {Path(BROKEN).resolve()}:{line} (pattern WidenRelu)"
            in report)
    command = report.split("(reproduce: ")[1].rstrip(")")
    assert "--load-pass-plugin" in command
    again = subprocess.run(command.replace("ge-opt", f"{sys.executable} -m tools.ge_opt", 1),
                           shell=True, capture_output=True, text=True, cwd=tmp_path)
    assert again.returncode == 2, again.stderr
    assert "expected from variable 'T', but got tensor<99xf32>" in again.stderr


def test_ge_bisect_reports_a_pass_whose_output_does_not_verify_as_exit_2(tmp_path):
    path = tmp_path / "graph.mlir"
    path.write_text(GRAPH)
    r = subprocess.run([sys.executable, "-m", "tools.ge_bisect", "--model", str(path),
                        "--load-pass-plugin", BROKEN, "-p", "canonicalize,widen-relu"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, r.stdout + r.stderr
    (line,) = r.stderr.strip().splitlines()
    # the op at its line in the input file (the new op keeps the old one's location)
    assert line.startswith("ge-bisect: internal error: IR after pass 'widen-relu' does not "
                           f'verify: ge.relu %r at loc("{path}":7:3), made by pattern '
                           "WidenRelu (rewrite #"), line
    assert "but got tensor<99xf32>" in line


def test_run_pipeline_s_verifier_failure_carries_the_pass_and_the_rewrite():
    module = parse()
    plugins.load_pass_plugin(BROKEN)
    with pytest.raises(instrument.PassVerifyError) as info:
        run_pipeline(module, "widen-relu")
    assert info.value.made_by.pattern == "WidenRelu"
    assert info.value.pass_name == "widen-relu"


def test_show_traceback_prints_the_internal_error_s_traceback():
    r = ge_opt("--load-pass-plugin", BROKEN, "-p", "ping-pong", "--show-traceback")
    assert r.returncode == 2
    assert "Traceback (most recent call last)" in r.stderr and "GuardError" in r.stderr


def test_print_ir_after_change_skips_passes_that_change_nothing():
    r = ge_opt("-p", "ge-O1", "--print-ir-after-change")
    assert r.returncode == 0, r.stderr
    assert "IR Dump After ge-O1/canonicalize (changed)" in r.stderr
    # cse and dce find nothing left to do after canonicalize
    assert "ge-O1/cse" not in r.stderr and "ge-O1/dce" not in r.stderr
    assert r.stdout.startswith("builtin.module")


def test_print_ir_diff_shows_what_a_pass_changed():
    r = ge_opt("-p", "ge-O1", "--print-ir-diff")
    assert r.returncode == 0, r.stderr
    diff = r.stderr.split("// -----// IR Diff After ge-O1/canonicalize //----- //\n")[1]
    assert diff.startswith("--- before ge-O1/canonicalize\n+++ after ge-O1/canonicalize\n")
    assert "-    %a = ge.add %x, %zero" in diff
    assert "+    %s = ge.add %x, %w" in diff
    assert "IR Diff After ge-O1/cse" not in r.stderr


def test_timing_puts_start_up_apart_from_the_passes():
    """Importing torch for constant-fold is start-up, not ge-O2's time."""
    r = ge_opt("-p", "ge-O2", "--timing")
    assert r.returncode == 0, r.stderr
    lines = r.stderr.splitlines()
    startup = float(next(line for line in lines if "start-up" in line).split()[0])
    level = float(next(line for line in lines if line.endswith("  ge-O2")).split()[0])
    stages = [float(line.split()[0]) for line in lines if line.startswith("  ") and
              line.rstrip().endswith(("canonicalize", "constant-fold", "fold-batch-norm",
                                      "cse", "dce")) and not line.endswith("ge-O2")]
    assert len(stages) == 5
    assert level < sum(stages) + 0.1 and level < startup


def test_xdsl_time_passes_goes_to_stderr_not_into_the_ir():
    r = ge_opt("-p", "canonicalize,cse", "--time-passes", "--print-between-passes")
    assert r.returncode == 0, r.stderr
    assert "Pass canonicalize took" in r.stderr and "IR after canonicalize:" in r.stderr
    assert "took" not in r.stdout and r.stdout.startswith("builtin.module")


def test_dash_reads_standard_input():
    r = ge_opt("-", "-p", "canonicalize")
    assert r.returncode == 0, r.stderr
    assert "ge.add %x, %w" in r.stdout
