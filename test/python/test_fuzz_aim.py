"""ge-fuzz aimed at the pass under test: its graphs hold what the pass's patterns
match, so a planted bug is found within 30 graphs, reduced and blamed on its rewrite."""

import re
import shlex
from pathlib import Path

import pytest
from xdsl.parser import Parser

from ge_dialect import canonicalization, make_context
from npu_graph.fuzz import AIM_SHARE, aimed
from npu_graph.fuzz_aim import targets
from npu_graph.reduce import op_count
from passes import op_fusion
from passes.driver import plugins
from tools import ge_fuzz
from tools.models import fuzz_graphs

PLUGINS = Path(__file__).parents[1] / "plugins"
DISTRIBUTE = str(PLUGINS / "distribute_relu.py")  # relu(a + b) -> relu(a) + relu(b): wrong
SOUND = str(PLUGINS / "relu_idempotent.py")       # relu(relu(x)) -> relu(x): right


@pytest.fixture(autouse=True)
def fresh_registry(monkeypatch):
    monkeypatch.setattr(plugins, "_LOADED", {})
    monkeypatch.setattr(plugins, "_REGISTERED", [])
    monkeypatch.setattr(canonicalization, "EXTRA_RULES", [])
    monkeypatch.setattr(op_fusion, "FIRST_RULES", [])
    monkeypatch.setattr(op_fusion, "EXTRA_RULES", [])


def coverage(out: str) -> tuple[int, int]:
    fired, graphs = re.search(r"fired on (\d+) of (\d+) graphs", out).groups()
    return int(fired), int(graphs)


def test_planted_relu_bug_after_ge_o2_is_found_reduced_and_blamed(capsys, tmp_path):
    status = ge_fuzz.main(["-p", "ge-O2,distribute-relu", "--load-pass-plugin", DISTRIBUTE,
                           "--examples", "30", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert status == ge_fuzz.FOUND, out
    assert "aimed at 1 pattern(s) of distribute-relu: mostly add, relu" in out
    # the pattern fires after ge-O2 on most graphs, not by luck on one
    fired, graphs = coverage(out)
    assert graphs == 30 and fired >= 15, out
    assert re.search(r"\d+ graphs +\d+ rewrites  distribute-relu: DistributeReluOverAdd", out)
    # each find reduced to the add and the relu, and the rewrite that broke it named
    small = tmp_path / "find-0.reduced.mlir"
    text = small.read_text()
    module = Parser(make_context(), text).parse_module()
    assert op_count(module) <= 3 and "ge.add" in text and "ge.relu" in text, text
    blame = re.search(r"broken by: pass 'distribute-relu', rewrite \d+ of \d+: "
                      r"DistributeReluOverAdd on ge\.relu %\w+ \((.*):(\d+)\)", out)
    assert blame, out
    assert Path(blame[1]) == Path(DISTRIBUTE).resolve()
    line = Path(DISTRIBUTE).read_text().splitlines()[int(blame[2]) - 1]
    assert "rewriter.replace" in line  # the plugin's line that made the bad change
    # the reduced file's header: problem, the command that re-checks it, the blame
    header = text.splitlines()[:3]
    assert header[0].startswith("// ge-fuzz: output 0: max |out - ref| = ")
    assert header[2].startswith("// broken by: pass 'distribute-relu'")
    command = header[1].removeprefix("// re-check: ge-fuzz ")
    assert ge_fuzz.main(shlex.split(command)) == ge_fuzz.OK  # still wrong on it


def test_the_same_bug_goes_unseen_without_aim(capsys, tmp_path):
    """The contrast: the whole menu, drawn evenly, rarely holds relu(a + b)."""
    status = ge_fuzz.main(["-p", "ge-O2,distribute-relu", "--load-pass-plugin", DISTRIBUTE,
                           "--examples", "10", "--aim", "none", "--no-reduce",
                           "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert "not aimed: graphs drawn from the whole menu" in out
    fired, graphs = coverage(out)
    assert graphs == 10 and fired <= 2, out
    assert status in (ge_fuzz.OK, ge_fuzz.FOUND)


def test_a_sound_pass_gives_no_report_and_its_coverage(capsys, tmp_path):
    status = ge_fuzz.main(["-p", "ge-O2,relu-idempotent", "--load-pass-plugin", SOUND,
                           "--examples", "20", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert status == ge_fuzz.OK, out
    assert "20 graphs through 'ge-O2,relu-idempotent', 0 wrong" in out
    fired, _ = coverage(out)
    assert fired >= 10, out  # it was exercised, not skipped
    assert "relu-idempotent: DropReluOfRelu" in out
    assert not list(tmp_path.iterdir())


def test_targets_read_root_ops_and_op_heads():
    plugins.load_pass_plugin(DISTRIBUTE)
    plugins.load_pass_plugin(PLUGINS / "relu_rules.py")
    plugins.load_pass_plugin(PLUGINS / "table_rules.py")
    # a pattern class: its annotated root and the producer it tests for
    (t,) = targets("ge-O2,distribute-relu", ["distribute-relu"])
    assert (t.name, t.ops, t.chains) == ("DistributeReluOverAdd", {"ge.add", "ge.relu"},
                                         (("ge.add", "ge.relu"),))
    sink, remove = targets("relu-rules")
    assert sink.chains == (("ge.relu", "ge.max_pool2d"),) and remove.chains == (("ge.relu",),)
    # by default: what plugins define, here also the rules a plugin added to the tables
    names = {(t.pass_name, t.name) for t in targets("ge-O3,distribute-relu")}
    assert names == {("distribute-relu", "DistributeReluOverAdd"),
                     ("canonicalize", "neg(neg(x)) -> x"), ("op-fusion", "tanh_neg")}
    by_name = {t.name: t for t in targets("ge-O3")}
    assert by_name["neg(neg(x)) -> x"].chains == (("ge.neg", "ge.neg"),)
    assert by_name["tanh_neg"].chains == (("ge.tanh", "ge.neg"),)


def test_without_plugins_every_pass_of_the_pipeline_is_under_test():
    by_name = {t.name: t for t in targets("ge-O2")}
    assert {t.pass_name for t in by_name.values()} == {
        "fold-quantized", "canonicalize", "constant-fold",
        "fold-batch-norm"}  # cse and dce have no patterns
    rms = by_name["x * rsqrt(mean(x * x, -1) + eps) -> rms_norm(x, eps)"]
    assert rms.chains == (("ge.mul", "ge.reduce_mean", "ge.add", "ge.rsqrt", "ge.mul"),)
    assert by_name["FoldBatchNormIntoLayer"].ops == {"ge.batch_norm"}


def test_aim_steps_take_their_share_of_the_draws():
    plugins.load_pass_plugin(DISTRIBUTE)
    generator = fuzz_graphs()
    steps = aimed(generator, generator.MENU, targets("ge-O2,distribute-relu"))
    rest = sum(e.weight for e in generator.MENU) + generator.CORE_WEIGHT * len(generator.MOTIFS)
    assert steps[0] == ("add", "relu")  # first, where hypothesis draws most often
    assert set(steps) == {("add", "relu"), ("add",), ("relu",)}
    assert len(steps) / (len(steps) + rest) == pytest.approx(AIM_SHARE, abs=0.01)
    assert steps.count(("add", "relu")) > 2 * (steps.count(("add",)) + steps.count(("relu",)))


def test_bad_arguments_are_clear_errors(capsys):
    assert ge_fuzz.main(["-p", "distribute-relu", "--examples", "1"]) == 1  # no plugin
    assert "Unrecognized passes: ['distribute-relu']" in capsys.readouterr().err
    plugin = ["--load-pass-plugin", DISTRIBUTE]
    assert ge_fuzz.main(["-p", "ge-O2,distribute-relu", *plugin, "--aim", "cse,nope"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("ge-fuzz: error: --aim names nope, which 'ge-O2,distribute-relu' "
                          "does not run (its passes: fold-quantized, canonicalize, "), err
    assert ge_fuzz.main(["-p", "distribute-relu", *plugin, "--examples", "0"]) == 1
    assert "--examples must be at least 1, got 0" in capsys.readouterr().err
    assert ge_fuzz.main(["--load-pass-plugin", "no/such/plugin.py"]) == 1
    assert "plugin file not found: no/such/plugin.py" in capsys.readouterr().err


def test_coverage_counts_table_rules_and_fusion_groups(capsys, tmp_path):
    """A plugin that only adds to the tables: its canonicalization and fusion rule
    are what ge-O3 is aimed at, and each one's firing is counted."""
    status = ge_fuzz.main(["-p", "ge-O3", "--load-pass-plugin", str(PLUGINS / "table_rules.py"),
                           "--examples", "20", "--no-reduce", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert status == ge_fuzz.OK, out
    assert "aimed at 2 pattern(s) of canonicalize, op-fusion: mostly neg, tanh" in out
    counts = {name: int(graphs) for graphs, name in re.findall(
        r"^ +(\d+) graphs +\d+ rewrites  (.*)$", out, re.M)}
    assert counts.get("canonicalize: neg(neg(x)) -> x", 0) >= 5, out
    assert counts.get("op-fusion: tanh_neg", 0) >= 1, out
