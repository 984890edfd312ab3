"""OpenVINO's peer for bench/llm.py: optimum-intel's OVModelForCausalLM.

    .venv-ov/bin/python -m bench.llm_openvino --peer ov_f32 --model-dir DIR --threads 2

Runs in its own venv (`make bench-llm-venv`: optimum-intel pins an older
transformers than the project's) as a bench/llm_worker.py worker. The model
is exported from the random-weight checkpoint bench/llm.py saved, with the
stateful KV cache (the cache lives inside the OpenVINO request, as
optimum-intel exports decoders by default), and compiled on the CPU plugin
with the latency hint and `--threads` inference threads: `ov_f32` with
INFERENCE_PRECISION_HINT=f32, `ov_default` with OpenVINO's own choice (bf16
where the CPU has AVX512_BF16 or AMX). The ready line names the precisions
it chose, the KV cache's included.
"""

from __future__ import annotations

import argparse
import sys

from bench.llm_worker import generate_kwargs, serve

PEERS = {"ov_f32": {"INFERENCE_PRECISION_HINT": "f32"}, "ov_default": {}}


def setup(model_dir: str, peer: str, threads: int):
    from optimum.intel import OVModelForCausalLM

    config = {"PERFORMANCE_HINT": "LATENCY", "INFERENCE_NUM_THREADS": threads,
              "CACHE_DIR": "", **PEERS[peer]}
    model = OVModelForCausalLM.from_pretrained(model_dir, export=True, stateful=True,
                                               ov_config=config)
    compiled = model.request.get_compiled_model()
    info = {name.lower(): _type_name(compiled.get_property(name))
            for name in ("INFERENCE_PRECISION_HINT", "KV_CACHE_PRECISION")}

    def generate(prompt, new_tokens, streamer):
        out = model.generate(prompt, streamer=streamer, **generate_kwargs(new_tokens))
        return out[0, prompt.shape[1]:].tolist()

    precision = f"precision {info['inference_precision_hint']}, " \
                f"KV cache {info['kv_cache_precision']}"
    return generate, lambda: precision, info


def _type_name(value) -> str:
    return value.get_type_name() if hasattr(value, "get_type_name") else str(value)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--peer", choices=sorted(PEERS), required=True)
    p.add_argument("--model-dir", required=True)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args(argv)
    return serve(lambda: setup(args.model_dir, args.peer, args.threads), args.threads)


if __name__ == "__main__":
    sys.exit(main())
