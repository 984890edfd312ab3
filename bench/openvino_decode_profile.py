"""Where OpenVINO's decode step goes, per node type: the peer's side of
`python -m bench.decode_profile --openvino`.

    .venv-ov/bin/python -m bench.openvino_decode_profile --model-dir DIR --precision f32

Runs in OpenVINO's venv (`make bench-llm-venv`). The checkpoint in DIR is
exported as bench/llm_openvino.py does (optimum-intel, stateful KV cache,
latency hint, `--threads` inference threads, `--precision f32` for the f32
hint or `default` for OpenVINO's choice) and compiled with PERF_COUNT on.
generate() then runs a prompt of `--prompt-tokens` and `--steps` greedy
tokens; after each decode step (the streamer's callback, as the token comes
out) the request's profiling info, which covers its last inference, is
summed per node type over the nodes that ran. The wall time between two
tokens is taken from the same callback. Prints one JSON line: ms per step
per node type (medians over the steps), the step's median wall time and
the precisions the plugin chose.
"""

from __future__ import annotations

import argparse
import collections
import json
import statistics
import sys
import time


def profile(model_dir: str, precision: str, threads: int, prompt_tokens: int,
            steps: int) -> dict:
    import torch
    from optimum.intel import OVModelForCausalLM

    config = {"PERFORMANCE_HINT": "LATENCY", "INFERENCE_NUM_THREADS": threads,
              "CACHE_DIR": "", "PERF_COUNT": "YES"}
    if precision == "f32":
        config["INFERENCE_PRECISION_HINT"] = "f32"
    model = OVModelForCausalLM.from_pretrained(model_dir, export=True, stateful=True,
                                               ov_config=config)
    compiled = model.request.get_compiled_model()
    chose = {name.lower(): str(compiled.get_property(name))
             for name in ("INFERENCE_PRECISION_HINT", "KV_CACHE_PRECISION")}
    per_step: list[dict[str, float]] = []
    stamps: list[float] = []

    class Streamer:
        """put() is called with the prompt, then once per new token."""

        def __init__(self):
            self.calls = 0

        def put(self, _value):
            self.calls += 1
            stamps.append(time.perf_counter())
            if self.calls <= 2:  # the prompt, then the prefill's token
                return
            spent: dict[str, float] = collections.defaultdict(float)
            for node in model.request.get_profiling_info():
                if str(node.status).endswith("EXECUTED"):
                    spent[node.node_type] += node.real_time.total_seconds() * 1e3
            per_step.append(spent)

        def end(self):
            pass

    torch.manual_seed(0)
    prompt = torch.randint(0, model.config.vocab_size, (1, prompt_tokens))
    kwargs = dict(max_new_tokens=steps + 1, min_new_tokens=steps + 1, do_sample=False)
    model.generate(prompt, **kwargs)  # warm up
    per_step.clear(), stamps.clear()
    model.generate(prompt, streamer=Streamer(), **kwargs)
    kinds = sorted({k for s in per_step for k in s})
    walls = [(b - a) * 1e3 for a, b in zip(stamps[2:], stamps[3:])]
    return {"kinds": {k: statistics.median(s.get(k, 0.0) for s in per_step) for k in kinds},
            "step_ms": statistics.median(walls), "steps": len(per_step), **chose}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model-dir", required=True)
    p.add_argument("--precision", choices=["f32", "default"], default="f32")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--prompt-tokens", type=int, default=16)
    p.add_argument("--steps", type=int, default=40)
    args = p.parse_args(argv)
    print(json.dumps(profile(args.model_dir, args.precision, args.threads,
                             args.prompt_tokens, args.steps)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
