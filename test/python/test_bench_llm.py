"""bench/llm.py: a tiny end-to-end run, and the pieces that turn answers into rows."""

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from bench import llm

ROOT = Path(__file__).parents[2]


def test_quick_run_prints_every_row_and_skips_openvino_with_its_reason(tmp_path):
    out = tmp_path / "llm.json"
    r = subprocess.run([sys.executable, "-m", "bench.llm", "--quick", "--rounds", "1",
                        "--long-tokens", "12",
                        "--peers", "eager,ge_max_autotune,eager_bf16,ge_bf16,ov_f32",
                        "--ov-python", str(tmp_path / "no-venv" / "python"),
                        "--json", str(out)],
                       capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "load average" in r.stdout and "avx512f" in r.stdout and "amx" in r.stdout
    assert f"OpenVINO rows skipped: no OpenVINO venv at {tmp_path}" in r.stdout
    assert "make bench-llm-venv" in r.stdout
    rows = {row["peer"]: row for row in json.loads(out.read_text())["rows"]}
    assert list(rows) == ["eager", "ge_max_autotune", "eager_bf16", "ge_bf16", "ov_f32"]
    assert rows["ov_f32"]["error"].startswith("skipped: no OpenVINO venv")
    for peer in ("eager", "ge_max_autotune", "eager_bf16", "ge_bf16"):
        row = rows[peer]
        assert "error" not in row, row
        assert row["prefill_ms"] > 0 and row["decode_ms"] > 0 and row["rss_warm_mb"] > 0
        assert row["tokens_per_s"] == pytest.approx(1e3 / row["decode_ms"])
        assert len(row["tokens"]) == 8 and row["rounds"] == 1
        assert row["long"]["tokens"] == 12
        # our backend reproduces its reference's greedy tokens (eager bf16's for
        # a bf16 row), and says how its graphs ran
        assert row["reference"] == ("eager_bf16" if "bf16" in peer else "eager")
        assert row["equal_reference"] == "yes"
        if "bf16" in peer:
            # the long run's 10th token is a bf16 tie here (the top two logits one
            # bf16 step apart): a GEMV summing in another order may break it otherwise
            assert row["long"]["equal_reference"] in ("yes", "no (from token 9)")
        else:
            assert row["long"]["equal_reference"] == "yes"
    assert rows["ge_max_autotune"]["notes"].startswith("graphs: ")
    assert rows["ge_bf16"]["notes"].startswith("graphs: ")
    assert "| tiny | ge_max_autotune | dynamic |" in r.stdout
    assert "| eager_bf16 | yes | yes |" in r.stdout
    assert "| tiny | ov_f32 | stateful | n/a |" in r.stdout


def test_a_worker_that_hangs_or_dies_gives_an_error_not_a_hang(tmp_path):
    hung = llm.Worker([sys.executable, "-c", "import time; time.sleep(60)"],
                      tmp_path / "hung.log", timeout=1)
    assert hung.ready["error"].startswith("no answer within 1 s")
    assert hung.proc.poll() is not None  # killed, not left behind
    dead = llm.Worker([sys.executable, "-c", "import sys; sys.exit('no model here')"],
                      tmp_path / "dead.log", timeout=30)
    assert dead.ready["error"] == "the worker exited with code 1: no model here"
    dead.close()
    killed = llm.Worker([sys.executable, "-c", "import os, signal, sys; "
                         "print('bench.llm progress: token 300, RSS 9000 MB', file=sys.stderr); "
                         "os.kill(os.getpid(), signal.SIGKILL)"], tmp_path / "killed.log",
                        timeout=30)
    assert killed.ready["error"].startswith(
        "the worker was killed by signal 9 (token 300, RSS 9000 MB)")
    killed.close()


def test_a_worker_over_the_rss_ceiling_is_stopped(tmp_path):
    grows = llm.Worker([sys.executable, "-c", "import time; x = bytearray(400 * 2**20); "
                        "x[::4096] = b'1' * len(x[::4096]); time.sleep(60)"],
                       tmp_path / "grows.log", timeout=60, max_rss_mb=200)
    assert grows.ready["error"].startswith("stopped: RSS reached ")
    assert "over --max-rss-mb 200" in grows.ready["error"]
    assert grows.proc.poll() is not None


def test_a_peer_that_fails_in_setup_says_why(tmp_path):
    """A peer whose checkpoint cannot load answers an error line (its row shows
    it) instead of taking the bench down."""
    worker = llm.Worker(llm.worker_argv("eager", str(tmp_path / "missing"),
                                        SimpleNamespace(threads=1, ov_python=None)),
                        tmp_path / "eager.log", timeout=300)
    assert "error" in worker.ready and "\n" not in worker.ready["error"]
    worker.close()


def test_steps_and_token_comparison():
    prefill, steps = llm.steps_ms([0.0, 0.1, 0.102, 0.105])
    assert prefill == pytest.approx(100) and steps == pytest.approx([2, 3])
    assert llm.same_tokens([1, 2, 3], [1, 2, 3]) == "yes"
    assert llm.same_tokens([1, 5, 3], [1, 2, 3]) == "no (from token 1)"
    assert llm.same_tokens([1, 2], [1, 2, 3]) == "no (from token 2)"
    assert llm.same_tokens([1], None) == "n/a"


def test_graph_notes_say_when_our_row_ran_in_eager():
    reports = [SimpleNamespace(status="compiled", reason=""),
               SimpleNamespace(status="eager", reason="output 'x' is a USER_INPUT_MUTATION; why"),
               SimpleNamespace(status="eager", reason="output 'x' is a USER_INPUT_MUTATION; why")]
    assert llm.graph_notes(reports) == ("graphs: 1 compiled, 2 eager (eager: output 'x' is a "
                                        "USER_INPUT_MUTATION)")
    assert llm.graph_notes([]) == "no graph reached the backend"


def test_kv_growth_is_the_caches_own_bytes():
    # 512x4: 4 layers x (K and V) x 4 KV heads x 64 dims x 4 bytes = 8 KiB a token
    assert llm.kv_growth_mb("512x4", 128) == pytest.approx(1.0)


@pytest.mark.parametrize("argv, message", [
    (["--peers", "eager,nope"], "unknown peer(s) nope; choose from eager"),
    (["--sizes", "2048x16"], "unknown size(s) 2048x16"),
    (["--long-tokens", "5"], "--long-tokens must exceed 10"),
    (["--new-tokens", "1"], "--new-tokens at least 2"),
])
def test_bad_options_are_named(argv, message, capsys):
    with pytest.raises(SystemExit) as e:
        llm.parse_args(argv)
    assert e.value.code == 2 and message in capsys.readouterr().err
