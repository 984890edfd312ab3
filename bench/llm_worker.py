"""The worker side of bench/llm.py: one peer in a process of its own.

bench/llm.py starts one worker per peer and talks to it in JSON lines over
stdin and stdout, so every peer has its own Dynamo caches, its own threads
and its own RSS, and peers that need another Python (OpenVINO's venv,
bench/llm_openvino.py) speak the same protocol. This module needs only the
standard library, torch and transformers: both venvs import it.

The worker answers one line when it is ready (`{"ready": ..., "setup_s": ...}`
or `{"error": ...}`), then one line per request:

    {"op": "generate", "prompt": [ids], "new_tokens": 64, "rss_at": [10]}
      -> {"tokens": [ids], "stamps": [s], "seconds": s, "rss_mb": {"10": MB, "end": MB}}
    {"op": "quit"}

`stamps` are the moments the streamer saw the prompt and each new token:
stamps[1] - stamps[0] is the prefill, the later differences the decode steps.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
import traceback

PROGRESS = "bench.llm progress:"
PROGRESS_EVERY = 100  # tokens


def rss_mb() -> float:
    """This process's resident set now, in MB (/proc; the peak where there is none)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def first_line(error: BaseException) -> str:
    """What a row shows of an error: its type and first non-empty line."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return f"{type(error).__name__}: {lines[0] if lines else ''}".rstrip(": ")


def make_streamer(rss_at: list[int]):
    """A transformers streamer that timestamps every put() (the prompt, then one
    token a step) and reads RSS after the listed numbers of new tokens."""
    from transformers.generation.streamers import BaseStreamer

    class StampStreamer(BaseStreamer):
        def __init__(self):
            self.stamps: list[float] = []
            self.rss: dict[str, float] = {}

        def put(self, value):
            self.stamps.append(time.perf_counter())
            tokens = len(self.stamps) - 1
            if tokens in rss_at:
                self.rss[str(tokens)] = rss_mb()
            if tokens and tokens % PROGRESS_EVERY == 0:  # bench/llm.py quotes it if we die
                print(f"{PROGRESS} token {tokens}, RSS {rss_mb():.0f} MB", file=sys.stderr,
                      flush=True)

        def end(self):
            pass

    return StampStreamer()


def serve(setup, threads: int) -> int:
    """Run one peer: `setup()` returns (generate, notes, info), where
    `generate(prompt_ids, new_tokens, streamer)` returns the new token ids,
    `notes()` a line about what ran (or "") and `info` a dict for the ready
    line. Answers requests until "quit" or end of input."""
    import torch

    # The protocol owns the real stdout; anything printed (by us, torch or C code)
    # goes to stderr, which bench/llm.py keeps in a log.
    out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    torch.set_num_threads(threads)

    def answer(message: dict) -> None:
        out.write(json.dumps(message) + "\n")
        out.flush()

    start = time.perf_counter()
    try:
        generate, notes, info = setup()
    except Exception as e:  # the row says why, the bench goes on
        traceback.print_exc()
        answer({"error": first_line(e)})
        return 1
    answer({"ready": True, "setup_s": time.perf_counter() - start, "rss_mb": rss_mb(),
            "threads": torch.get_num_threads(), **info})
    for line in sys.stdin:
        request = json.loads(line)
        if request["op"] == "quit":
            break
        try:
            streamer = make_streamer(request.get("rss_at", []))
            prompt = torch.tensor([request["prompt"]], dtype=torch.int64)
            start = time.perf_counter()
            with torch.no_grad():
                tokens = generate(prompt, request["new_tokens"], streamer)
            seconds = time.perf_counter() - start
            answer({"tokens": [int(t) for t in tokens], "stamps": streamer.stamps,
                    "seconds": seconds, "rss_mb": {**streamer.rss, "end": rss_mb()},
                    "notes": notes()})
        except Exception as e:
            traceback.print_exc()
            answer({"error": first_line(e)})
    return 0


def generate_kwargs(new_tokens: int) -> dict:
    """Greedy; the configs have no EOS, so exactly `new_tokens` come out
    (bench/llm.py checks the count)."""
    return dict(max_new_tokens=new_tokens, do_sample=False)
