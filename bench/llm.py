"""The LLM decode benchmark: HF generate() in eager, with inductor, through our
backend and in OpenVINO, on one machine, in one run, rounds interleaved.

    python -m bench.llm                                  # both sizes, every peer
    python -m bench.llm --sizes 512x4 --peers eager,ge_max_autotune,ov_f32 --rounds 3
    python -m bench.llm --quick                          # a tiny Llama, a few tokens
    make bench-llm-venv                                  # OpenVINO's venv (.venv-ov)

A Llama is built from a config with random weights (seeded) and saved to a
temporary directory; every peer loads that checkpoint in a worker process of
its own (bench/llm_worker.py), so each has its own Dynamo caches and its own
RSS. Each round asks every peer in turn (the order rotated, `--settle`
idle seconds before each call) for `generate()` of the same prompt, greedy,
`--threads` threads for everyone. A streamer timestamps each token: prefill
is the prompt in to the first token out, decode the median step after it.
Compile time is the peer's set-up (wrapping, or OpenVINO's export and
compile) plus its first generate() less a later one. Then each peer runs
once more in a fresh worker for `--long-tokens` tokens, and RSS growth is
read between the 10th token and the last: a bounded runtime keeps it near
the KV cache's own growth (printed beside it; a static cache holds its full
length from the start).

Peers (`--peers`): eager (HF's dynamic cache), eager_bf16 (the same with
the checkpoint loaded in bf16), inductor and inductor_freezing
(torch.compile with the static cache, without and with Inductor's
`freezing`), ge_max_autotune (backend="ge", dynamic cache),
ge_reduce_overhead (backend="ge" in "reduce-overhead", static cache),
ge_int8_weights (the same with `weight_quant="int8"`: weight-only int8
linears; its decode over ge_reduce_overhead's is the int8 speed-up),
ge_bf16 (reduce-overhead on the bf16 checkpoint: bf16 weights and static
cache), ov_f32 and ov_default (optimum-intel, bench/llm_openvino.py, in the
venv `make bench-llm-venv` makes, or the one `--ov-python` names; without
it their rows say so). A peer that fails says why in its row; the others
go on. Every row names its reference and says whether its tokens equal the
reference's: eager_bf16's for the bf16 rows (bf16 rounding may part
from fp32 eager's tokens), eager's for the others; our rows say how
Dynamo's graphs ran (compiled, or in eager and why). docs/BENCHMARKS.md
explains the columns.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from bench.llm_worker import PROGRESS  # the line a worker logs every 100 tokens

ROOT = Path(__file__).resolve().parents[1]
OV_PYTHON = ROOT / ".venv-ov" / "bin" / "python"

# Llama configs, random weights: the two sizes and a tiny one for --quick.
SIZES = {
    "tiny": dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                 num_key_value_heads=2, intermediate_size=128, vocab_size=256),
    "512x4": dict(hidden_size=512, num_hidden_layers=4, num_attention_heads=8,
                  num_key_value_heads=4, intermediate_size=1376, vocab_size=8000),
    "1024x8": dict(hidden_size=1024, num_hidden_layers=8, num_attention_heads=16,
                   num_key_value_heads=8, intermediate_size=2816, vocab_size=32000),
}
MAX_POSITIONS = 4096  # prompt + new tokens must fit (rotary table, static cache)
RSS_FROM = 10  # long-run RSS growth is measured from this token to the last


@dataclass(frozen=True)
class Peer:
    title: str
    cache: str  # "dynamic" or "static": HF's cache; "stateful": inside OpenVINO's request
    openvino: bool = False
    dtype: str = "fp32"  # the checkpoint's load type (DTYPES); OpenVINO picks its own


DTYPES = {"fp32": "float32", "bf16": "bfloat16"}  # torch dtype names
# The peer whose tokens a row's are checked against, by the row's dtype: bf16
# rounds otherwise than fp32, so its greedy tokens may legitimately part from
# fp32 eager's; a bf16 row must reproduce eager bf16's.
REFERENCES = {"fp32": "eager", "bf16": "eager_bf16"}

PEERS = {
    "eager": Peer("HF eager", "dynamic"),
    "eager_bf16": Peer("HF eager, bf16 checkpoint", "dynamic", dtype="bf16"),
    "inductor": Peer("HF + torch.compile (inductor)", "static"),
    "inductor_freezing": Peer("the same, inductor freezing=True", "static"),
    "ge_max_autotune": Peer("ours, backend='ge', max-autotune", "dynamic"),
    "ge_reduce_overhead": Peer("ours, backend='ge', reduce-overhead", "static"),
    "ge_int8_weights": Peer("ours, reduce-overhead, weight-only int8", "static"),
    "ge_bf16": Peer("ours, reduce-overhead, bf16 checkpoint", "static", dtype="bf16"),
    "ov_f32": Peer("OpenVINO (optimum-intel), f32 hint", "stateful", openvino=True),
    "ov_default": Peer("OpenVINO (optimum-intel), default precision", "stateful",
                       openvino=True),
}
GE_MODES = {"ge_max_autotune": "max-autotune", "ge_reduce_overhead": "reduce-overhead",
            "ge_int8_weights": "reduce-overhead", "ge_bf16": "reduce-overhead"}
WEIGHT_QUANT = {"ge_int8_weights": "int8"}  # CompilerConfig.weight_quant per peer
QUICK = dict(sizes="tiny", new_tokens=8, rounds=2, long_tokens=24, prompt_tokens=16)
DEFAULTS = dict(sizes="512x4,1024x8", new_tokens=64, rounds=7, long_tokens=1000,
                prompt_tokens=128)


# --- the worker side of the torch peers (run as `python -m bench.llm --worker PEER`)

def setup_torch_peer(peer: str, model_dir: str):
    """(generate, notes, info) for a peer of this venv (bench/llm_worker.py)."""
    import torch
    from transformers import LlamaForCausalLM

    from bench.llm_worker import generate_kwargs

    start = time.perf_counter()
    dtype = getattr(torch, DTYPES[PEERS[peer].dtype])
    model = LlamaForCausalLM.from_pretrained(model_dir, dtype=dtype).eval()
    info = {"load_s": time.perf_counter() - start}
    cache = {"cache_implementation": "static"} if PEERS[peer].cache == "static" else {}
    notes = lambda: ""  # noqa: E731
    if peer.startswith("inductor"):
        import torch._inductor.config as inductor_config

        inductor_config.force_disable_caches = True  # a real compile, not a cache hit
        model.forward = torch.compile(model.forward,
                                      options={"freezing": peer == "inductor_freezing"})
    elif peer in GE_MODES:
        import npu_graph

        config = npu_graph.CompilerConfig(mode=GE_MODES[peer],
                                          weight_quant=WEIGHT_QUANT.get(peer))
        backend = npu_graph.get_npu_backend(compiler_config=config)
        # reduce-overhead compiles static shapes only: one graph per shape
        dynamic = False if config.mode == "reduce-overhead" else None
        model.forward = torch.compile(model.forward, backend=backend, dynamic=dynamic)
        notes = lambda: graph_notes(backend.reports)  # noqa: E731

    def generate(prompt, new_tokens, streamer):
        out = model.generate(prompt, streamer=streamer, **cache, **generate_kwargs(new_tokens))
        return out[0, prompt.shape[1]:].tolist()

    return generate, notes, info


def graph_notes(reports) -> str:
    """How Dynamo's graphs ran in our backend: compiled, split, or eager and why.
    A row whose graphs all ran in eager measures eager, and must say so."""
    counts: dict[str, int] = {}
    reasons: list[str] = []
    for report in reports:
        counts[report.status] = counts.get(report.status, 0) + 1
        if report.status == "eager" and report.reason and report.reason not in reasons:
            reasons.append(report.reason)
    if not counts:
        return "no graph reached the backend"
    text = "graphs: " + ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    if reasons:
        text += " (eager: " + "; ".join(r.split(";")[0][:90] for r in reasons) + ")"
    return text


def worker_main(peer: str, model_dir: str, threads: int) -> int:
    from bench.llm_worker import serve

    return serve(lambda: setup_torch_peer(peer, model_dir), threads)


# --- the driver side

class Worker:
    """One peer's process. Requests and answers are JSON lines; every wait has a
    deadline and the worker's RSS a ceiling (a runtime that keeps a plan per
    shape can fill the machine): a worker that misses either is killed and
    its row says so, with the last progress line it logged."""

    POLL_S = 0.5  # how often a wait looks at the worker's RSS

    def __init__(self, argv: list[str], log_path: Path, timeout: float,
                 max_rss_mb: float = float("inf")):
        self.log_path, self.timeout, self.max_rss_mb = log_path, timeout, max_rss_mb
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
        self.log = open(log_path, "w")
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.log, text=True, cwd=ROOT, env=env)
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        self.ready = self._answer()

    def _pump(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _answer(self) -> dict:
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                line = self.lines.get(timeout=self.POLL_S)
                break
            except queue.Empty:
                rss = process_rss_mb(self.proc.pid)
                if rss > self.max_rss_mb:
                    self._kill()
                    return {"error": f"stopped: RSS reached {rss:.0f} MB, over --max-rss-mb "
                                     f"{self.max_rss_mb:.0f}{self._progress()}"}
                if time.monotonic() > deadline:
                    self._kill()
                    return {"error": f"no answer within {self.timeout:.0f} s"
                                     f"{self._progress()}: {self._last_log_line()}"}
        if line is None:
            code = self.proc.wait(timeout=30)
            how = f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"
            return {"error": f"the worker {how}{self._progress()}: {self._last_log_line()}"}
        return json.loads(line)

    def _kill(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=30)

    def _log_lines(self) -> list[str]:
        self.log.flush()
        return [line.strip() for line in self.log_path.read_text(errors="replace").splitlines()
                if line.strip()]

    def _last_log_line(self) -> str:
        lines = [line for line in self._log_lines() if not line.startswith(PROGRESS)]
        return lines[-1] if lines else "(no output)"

    def _progress(self) -> str:
        lines = [line for line in self._log_lines() if line.startswith(PROGRESS)]
        return f" ({lines[-1][len(PROGRESS):].strip()})" if lines else ""

    def request(self, **message) -> dict:
        if self.proc.poll() is not None:
            return {"error": f"the worker has exited ({self.proc.returncode})"}
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()
        return self._answer()

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write(json.dumps({"op": "quit"}) + "\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait(timeout=30)
        self.log.close()


def worker_argv(peer: str, model_dir: str, args) -> list[str]:
    if PEERS[peer].openvino:
        return [str(args.ov_python), "-m", "bench.llm_openvino", "--peer", peer,
                "--model-dir", model_dir, "--threads", str(args.threads)]
    return [sys.executable, "-m", "bench.llm", "--worker", peer, "--model-dir", model_dir,
            "--threads", str(args.threads)]


def process_rss_mb(pid: int) -> float:
    """Another process's resident set in MB (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, IndexError, ValueError):
        return 0.0


def openvino_missing(ov_python: Path) -> str | None:
    """Why the OpenVINO rows cannot run, or None."""
    if not Path(ov_python).exists():
        return (f"no OpenVINO venv at {ov_python} (optimum-intel needs transformers<5.6; "
                "`make bench-llm-venv` creates it)")
    return None


def build_model(size: str):
    """The seeded random-weight Llama of `size`, with no end-of-text token
    (every peer generates the full count)."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(**SIZES[size], max_position_embeddings=MAX_POSITIONS,
                         bos_token_id=None, eos_token_id=None, pad_token_id=0,
                         tie_word_embeddings=False)
    torch.manual_seed(0)
    model = LlamaForCausalLM(config).eval()
    model.generation_config.eos_token_id = None
    model.generation_config.pad_token_id = 0
    return model


def save_model(size: str, workdir: str) -> str:
    """The seeded random-weight Llama of `size`, saved where every worker loads it."""
    model = build_model(size)
    path = os.path.join(workdir, size)
    model.save_pretrained(path)
    return path


def kv_growth_mb(size: str, tokens: int, bytes_per_value: int = 4) -> float:
    """What a dynamic KV cache itself grows by over `tokens` tokens."""
    s = SIZES[size]
    head_dim = s["hidden_size"] // s["num_attention_heads"]
    per_token = 2 * s["num_hidden_layers"] * s["num_key_value_heads"] * head_dim
    return per_token * bytes_per_value * tokens / 2**20


def steps_ms(stamps: list[float]) -> tuple[float, list[float]]:
    """(prefill ms, decode step ms) from the streamer's timestamps."""
    return (stamps[1] - stamps[0]) * 1e3, [(b - a) * 1e3 for a, b in zip(stamps[1:], stamps[2:])]


def same_tokens(tokens: list[int], reference: list[int] | None) -> str:
    if reference is None:
        return "n/a"
    if tokens == reference:
        return "yes"
    first = next((i for i, (a, b) in enumerate(zip(tokens, reference)) if a != b),
                 min(len(tokens), len(reference)))
    return f"no (from token {first})"


def run_generate(worker: Worker, prompt: list[int], new_tokens: int, rss_at=()) -> dict:
    """One generate() in a worker; an answer of the wrong length is an error."""
    answer = worker.request(op="generate", prompt=prompt, new_tokens=new_tokens,
                            rss_at=list(rss_at))
    if "error" not in answer and len(answer["tokens"]) != new_tokens:
        answer = {"error": f"{len(answer['tokens'])} tokens came out, not {new_tokens}"}
    return answer


def bench_size(size: str, peers: list[str], args, workdir: str) -> list[dict]:
    """Every peer of one size: set up in turn, timed in interleaved rounds, then
    each long run in a fresh worker."""
    import torch

    model_dir = save_model(size, workdir)
    vocab = SIZES[size]["vocab_size"]
    prompt = torch.randint(0, vocab, (args.prompt_tokens,),
                           generator=torch.Generator().manual_seed(1)).tolist()
    rows = {p: {"size": size, "peer": p, "title": PEERS[p].title, "cache": PEERS[p].cache,
                "rounds": []} for p in peers}
    workers: dict[str, Worker] = {}

    def fail(peer: str, error: str) -> None:
        rows[peer]["error"] = error
        print(f"  {size} {peer}: {error}", file=sys.stderr, flush=True)
        if peer in workers:
            workers.pop(peer).close()

    missing = openvino_missing(args.ov_python)
    for peer in peers:
        if PEERS[peer].openvino and missing:
            rows[peer]["error"] = f"skipped: {missing}"
            continue
        print(f"  {size} {peer}: setting up", file=sys.stderr, flush=True)
        worker = Worker(worker_argv(peer, model_dir, args),
                        Path(workdir) / f"{size}-{peer}.log", args.timeout, args.max_rss_mb)
        workers[peer] = worker
        if "error" in worker.ready:
            fail(peer, worker.ready["error"])
            continue
        rows[peer]["info"] = worker.ready
        first = run_generate(worker, prompt, args.new_tokens)
        if "error" in first:
            fail(peer, first["error"])
            continue
        rows[peer]["first"] = first
    for r in range(args.rounds):
        live = [p for p in peers if p in workers]
        turn = r % len(live) if live else 0
        for peer in live[turn:] + live[:turn]:
            time.sleep(args.settle)
            answer = run_generate(workers[peer], prompt, args.new_tokens)
            if "error" in answer:
                fail(peer, answer["error"])
            else:
                rows[peer]["rounds"].append(answer)
    for worker in workers.values():
        worker.close()
    if args.long_tokens:
        for peer in peers:
            if "error" in rows[peer]:
                continue
            print(f"  {size} {peer}: {args.long_tokens} tokens in a fresh worker",
                  file=sys.stderr, flush=True)
            worker = Worker(worker_argv(peer, model_dir, args),
                            Path(workdir) / f"{size}-{peer}-long.log", args.timeout, args.max_rss_mb)
            answer = worker.ready if "error" in worker.ready else run_generate(
                worker, prompt, args.long_tokens, rss_at=[RSS_FROM])
            worker.close()
            rows[peer]["long"] = answer
    return [summarize(rows[p], rows.get(reference(p)), args) for p in peers]


def reference(peer: str) -> str:
    """The peer whose tokens `peer`'s are checked against (REFERENCES)."""
    return REFERENCES[PEERS[peer].dtype]


def summarize(row: dict, ref: dict | None, args) -> dict:
    """The figures of one row from its raw answers; its tokens are checked
    against `ref`'s row (the reference peer's, if it ran)."""
    out = {k: row[k] for k in ("size", "peer", "title", "cache")}
    out["reference"] = reference(row["peer"])
    if "error" in row and not row["rounds"]:
        out["error"] = row["error"]
        return out
    if "error" in row:  # failed after some rounds: the figures stand, the error is said
        out["error"] = row["error"]
    rounds = row["rounds"] or [row["first"]]
    prefill = [steps_ms(a["stamps"])[0] for a in rounds]
    decode = [statistics.median(steps_ms(a["stamps"])[1]) for a in rounds]
    steady = statistics.median(a["seconds"] for a in rounds)
    info = row["info"]
    out.update(
        prefill_ms=statistics.median(prefill),
        decode_ms=statistics.median(decode),
        tokens_per_s=1e3 / statistics.median(decode),
        compile_s=info["setup_s"] - info.get("load_s", 0.0) + row["first"]["seconds"] - steady,
        rss_warm_mb=row["first"]["rss_mb"]["end"],
        notes=rounds[-1]["notes"],
        rounds=len(row["rounds"]),
        tokens=rounds[-1]["tokens"],
    )
    if any(a["tokens"] != out["tokens"] for a in rounds):
        out["notes"] = "tokens vary between rounds; " + out["notes"]
    if info.get("inference_precision_hint"):
        out["precision"] = {"inference": info["inference_precision_hint"],
                            "kv_cache": info["kv_cache_precision"]}
    ref = ref or {}
    ref_rounds = ref.get("rounds") or [ref[k] for k in ("first",) if k in ref]
    out["equal_reference"] = same_tokens(out["tokens"], ref_rounds[-1]["tokens"]
                                         if ref_rounds else None)
    long = row.get("long")
    if long is not None:
        if "error" in long:
            out["long"] = {"error": long["error"]}
        else:
            start, end = long["rss_mb"][str(RSS_FROM)], long["rss_mb"]["end"]
            out["long"] = {
                "tokens": len(long["tokens"]), "rss_start_mb": start, "rss_end_mb": end,
                "rss_growth_mb": end - start, "seconds": long["seconds"],
                "equal_reference": same_tokens(long["tokens"],
                                               ref.get("long", {}).get("tokens")),
            }
    return out


def _cell(value, spec=".1f") -> str:
    return "n/a" if value is None else format(value, spec)


def table(rows: list[dict]) -> str:
    """One Markdown table of every size and peer, then the notes."""
    head = ["size", "peer", "cache", "prefill ms", "decode ms/token", "tokens/s",
            "x eager", "x OV f32", "x OV default", "compile s", "RSS warm MB",
            "RSS growth MB", "reference", "tokens = ref", "long = ref"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    notes = []
    by_size: dict[str, dict[str, dict]] = {}
    for row in rows:
        by_size.setdefault(row["size"], {})[row["peer"]] = row
    for row in rows:
        peers = by_size[row["size"]]
        if "decode_ms" not in row:
            lines.append(f"| {row['size']} | {row['peer']} | {row['cache']} | "
                         + " | ".join(["n/a"] * (len(head) - 3)) + " |")
            notes.append(f"{row['size']} {row['peer']}: {row['error']}")
            continue
        ratio = {k: row["decode_ms"] / peers[k]["decode_ms"]
                 for k in ("eager", "ov_f32", "ov_default") if "decode_ms" in peers.get(k, {})}
        long = row.get("long", {})
        lines.append("| " + " | ".join([
            row["size"], row["peer"], row["cache"], _cell(row["prefill_ms"]),
            _cell(row["decode_ms"], ".2f"), _cell(row["tokens_per_s"], ".0f"),
            _cell(ratio.get("eager"), ".2f"), _cell(ratio.get("ov_f32"), ".2f"),
            _cell(ratio.get("ov_default"), ".2f"), _cell(row["compile_s"]),
            _cell(row["rss_warm_mb"], ".0f"), _cell(long.get("rss_growth_mb")),
            row["reference"], row["equal_reference"],
            long.get("equal_reference", "n/a")]) + " |")
        said = [row.get("notes", "")]
        if "precision" in row:
            said.append(f"precision {row['precision']['inference']}, "
                        f"KV cache {row['precision']['kv_cache']}")
        if "error" in row:
            said.append(f"stopped after {row['rounds']} round(s): {row['error']}")
        if "error" in long:
            said.append(f"long run: {long['error']}")
        said = [s for s in dict.fromkeys(said) if s]
        if said:
            notes.append(f"{row['size']} {row['peer']}: " + "; ".join(said))
    return "\n".join(lines + ([""] + notes if notes else []))


def isa_line() -> str:
    """lscpu's model name and the vector and matrix extensions that decide the
    kernels here (bf16 needs avx512_bf16 or amx)."""
    try:
        text = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        text = ""
    fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
    flags = fields.get("Flags", "").split()
    wanted = {"avx512f": "avx512f" in flags, "avx512_bf16": "avx512_bf16" in flags,
              "avx512_vnni": "avx512_vnni" in flags,
              "amx": any(f.startswith("amx") for f in flags)}
    return (f"CPU {fields.get('Model name', '?').strip()}: "
            + ", ".join(f"{k} {'yes' if v else 'no'}" for k, v in wanted.items()))


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True,
                              timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def parse_args(argv):
    p = argparse.ArgumentParser(prog="bench.llm", description=__doc__.split("\n")[0])
    p.add_argument("--sizes", help=f"comma-separated, of {', '.join(SIZES)} "
                                   f"(default {DEFAULTS['sizes']})")
    p.add_argument("--peers", default=",".join(PEERS),
                   help=f"comma-separated subset of {', '.join(PEERS)}")
    p.add_argument("--new-tokens", type=int, help="tokens per timed generate() (64)")
    p.add_argument("--rounds", type=int, help="interleaved timed rounds (7)")
    p.add_argument("--long-tokens", type=int,
                   help="tokens of the RSS run in a fresh worker (1000; 0 skips it)")
    p.add_argument("--prompt-tokens", type=int, help="prompt length (128)")
    p.add_argument("--quick", action="store_true",
                   help="the tiny size, 16-token prompt, 8 tokens, 2 rounds, 24 long tokens "
                        "(options given beside it win)")
    p.add_argument("--threads", type=int, default=2, help="threads for every peer")
    p.add_argument("--settle", type=float, default=0.2,
                   help="idle seconds before each timed call (peers' spinning threads)")
    p.add_argument("--timeout", type=float, default=1800,
                   help="seconds a worker may take to answer one request")
    p.add_argument("--max-rss-mb", type=float, default=8192,
                   help="a worker whose RSS passes this is stopped and its row says so")
    p.add_argument("--ov-python", type=Path, default=OV_PYTHON,
                   help="the OpenVINO venv's python (make bench-llm-venv)")
    p.add_argument("--json", help="write the rows here")
    p.add_argument("--worker", choices=[p for p in PEERS if not PEERS[p].openvino],
                   help=argparse.SUPPRESS)
    p.add_argument("--model-dir", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    for key, value in (QUICK if args.quick else DEFAULTS).items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    sizes, peers = args.sizes.split(","), args.peers.split(",")
    for what, chosen, known in (("size", sizes, SIZES), ("peer", peers, PEERS)):
        unknown = [x for x in chosen if x not in known]
        if unknown:
            p.error(f"unknown {what}(s) {', '.join(unknown)}; choose from {', '.join(known)}")
    if args.prompt_tokens < 1 or args.new_tokens < 2 or args.rounds < 0:
        p.error("--prompt-tokens must be at least 1, --new-tokens at least 2 (a decode "
                "step needs two tokens), --rounds at least 0")
    if args.long_tokens and args.long_tokens <= RSS_FROM:
        p.error(f"--long-tokens must exceed {RSS_FROM} (RSS growth is read from token "
                f"{RSS_FROM}), or be 0 to skip the long run")
    if args.prompt_tokens + max(args.new_tokens, args.long_tokens) > MAX_POSITIONS:
        p.error(f"prompt + new tokens must fit the models' {MAX_POSITIONS} positions")
    args.sizes, args.peers = sizes, peers
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.worker:
        return worker_main(args.worker, args.model_dir, args.threads)
    import torch
    import transformers

    print(f"{uptime()}\n{isa_line()}\n{args.threads} threads for every peer, torch "
          f"{torch.__version__}, transformers {transformers.__version__}; prompt "
          f"{args.prompt_tokens} tokens, {args.new_tokens} new, greedy, {args.rounds} "
          f"interleaved rounds, settle {args.settle} s; long run {args.long_tokens} tokens",
          flush=True)
    missing = openvino_missing(args.ov_python)
    if missing and any(PEERS[p].openvino for p in args.peers):
        print(f"OpenVINO rows skipped: {missing}", flush=True)
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-llm-") as workdir:
        for size in args.sizes:
            rows += bench_size(size, args.peers, args, workdir)
    print(table(rows))
    if args.long_tokens:
        print("KV cache's own growth over the long run (fp32, dynamic cache): " + ", ".join(
            f"{s} {kv_growth_mb(s, args.long_tokens - RSS_FROM):.1f} MB" for s in args.sizes))
    print(f"at end: {uptime()}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"isa": isa_line(), "threads": args.threads, "torch": torch.__version__,
                       "args": {k: str(v) if isinstance(v, Path) else v
                                for k, v in vars(args).items()},
                       "rows": rows}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
