"""Host memory of LLM generation: RSS after warm-up, HF eager against our backend.

    python -m bench.llm_memory                          # 512x4 and 1024x8, every peer
    python -m bench.llm_memory --sizes 512x4 --peers eager,ge_reduce_overhead

The Llamas of bench/llm.py (random weights from a seeded LlamaConfig, built
in the process, nothing downloaded or saved). Each (size, peer) runs in a
fresh Python of its own, so no peer sees another's caches or heap: it builds
the model, reads RSS, wraps the model as bench/llm.py does (eager: as it
is; ge_max_autotune: backend="ge" with HF's dynamic cache;
ge_reduce_overhead: "reduce-overhead" with the static cache; with
`--prepack-weights`, the backend's prefill linears read prepacked copies), runs
generate() twice (compile, then warm) and reads RSS again.

Where our memory goes: tracemalloc cannot see torch's allocations, so the
worker counts bytes instead. Every tensor storage alive in the process
(found through the garbage collector, each storage once) is put in the
first class that holds it: the model's parameters, weights of a loaded
graph (runtime/loading.py), arenas (static, and the gear plans of dynamic
graphs: runtime/plan_cache.py), the runners' host workspace, what else
oneDNN primitives keep (prepacked weights, runtime/host/onednn.py), or
other (the KV cache, torch's own). IR constants are counted apart: the bytes the
dense constants of the loaded graphs' modules own (a constant over a
tensor's memory, runtime/weight_pool.py, owns none).
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import os
import subprocess
import sys
import time

from bench import llm
from bench.llm import SIZES, isa_line, uptime
from bench.llm_worker import rss_mb

PEERS = ("eager", "ge_max_autotune", "ge_reduce_overhead")
GE_MODES = {"ge_max_autotune": "max-autotune", "ge_reduce_overhead": "reduce-overhead"}
MB = 2**20


def build_model(size: str):
    """The seeded random-weight Llama of `size` (bench/llm.py's)."""
    return llm.build_model(size)


def wrap(model, peer: str, prepack: bool = False):
    """(generate kwargs, backend or None) with `model.forward` compiled for `peer`."""
    import torch

    if peer == "eager":
        return {}, None
    import npu_graph

    config = npu_graph.CompilerConfig(mode=GE_MODES[peer], prepack_weights=prepack)
    backend = npu_graph.get_npu_backend(compiler_config=config)
    dynamic = False if config.mode == "reduce-overhead" else None
    model.forward = torch.compile(model.forward, backend=backend, dynamic=dynamic)
    cache = {"cache_implementation": "static"} if config.mode == "reduce-overhead" else {}
    return cache, backend


def breakdown(model) -> dict[str, float]:
    """MB of tensor storage by holder (see the module docstring), and of IR constants."""
    import torch

    from runtime.host import onednn as dnnl
    from runtime.running import Replica

    gc.collect()
    objects = gc.get_objects()
    replicas = [o for o in objects if isinstance(o, Replica)]
    primitives = [o for o in objects if isinstance(o, dnnl.Primitive)]
    storages: dict[int, int] = {}
    for o in objects:
        if isinstance(o, torch.Tensor) and not o.is_meta and o.device.type == "cpu":
            try:
                s = o.untyped_storage()
                ptr = s.data_ptr()
            except (RuntimeError, NotImplementedError):  # fake, mkldnn or sparse tensors
                continue
            storages[ptr] = max(storages.get(ptr, 0), s.nbytes())

    def ptrs(tensors) -> set[int]:
        found = set()
        for t in tensors:
            t = getattr(t, "tensor", t)  # dnnl.Blocked holds its tensor
            if isinstance(t, torch.Tensor) and t.device.type == "cpu":
                try:
                    found.add(t.untyped_storage().data_ptr())
                except (RuntimeError, NotImplementedError):
                    pass
        return found

    classes = {
        "model parameters": ptrs(list(model.parameters()) + list(model.buffers())),
        "graph weights": ptrs(r.values[s] for r in replicas for s in r.weight_slots),
        "arenas": ptrs([r.arena for r in replicas]
                       + [plan.arena for r in replicas for plan in _plans(r)]),
        "host workspace": ptrs(t for r in replicas for t in _workspace(r)),
        # what else a primitive keeps: its reordered weight, scratchpad, bias
        "prepacked weights": ptrs(t for p in primitives for t in p._keep),
    }
    seen: set[int] = set()
    out: dict[str, float] = {}
    for name, found in classes.items():
        mine = (found & storages.keys()) - seen
        out[name] = sum(storages[p] for p in mine) / MB
        seen |= mine
    out["other tensors"] = sum(n for p, n in storages.items() if p not in seen) / MB
    modules = {}
    for r in replicas:  # a task's op keeps its whole module alive
        if r.tasks:
            module = r.tasks[0].op.get_toplevel_object()
            modules[id(module)] = module
    out["IR constants"] = sum(_constant_bytes(m) for m in modules.values()) / MB
    out["graphs loaded"] = len(modules)
    return out


def _plans(replica) -> list:
    return [p for p in getattr(replica.plans, "_plans", {}).values() if hasattr(p, "arena")]


def _workspace(replica) -> list:
    return [t for t in vars(replica.workspace).values() if hasattr(t, "untyped_storage")]


def _constant_bytes(module) -> int:
    """Bytes the module's constants own (not those over a tensor's memory)."""
    from ge_dialect import ascend, ge

    return sum(len(op.value.data.data) for op in module.walk()
               if isinstance(op, ascend.WeightOp | ge.ConstOp)
               and isinstance(op.value.data.data, bytes))


def worker(size: str, peer: str, prompt_tokens: int, new_tokens: int,
           prepack: bool = False) -> dict:
    import torch

    torch.manual_seed(1)
    model = build_model(size)
    rss_model = rss_mb()
    cache, backend = wrap(model, peer, prepack)
    prompt = torch.randint(1, SIZES[size]["vocab_size"], (1, prompt_tokens))
    kwargs = dict(max_new_tokens=new_tokens, do_sample=False, **cache)
    start = time.perf_counter()
    with torch.no_grad():
        first = model.generate(prompt, **kwargs)
        compile_s = time.perf_counter() - start
        second = model.generate(prompt, **kwargs)
    gc.collect()
    warm = rss_mb()
    row = {"size": size, "peer": peer, "rss_model_mb": rss_model, "rss_warm_mb": warm,
           "rss_trimmed_mb": _trimmed_rss(),
           "first_s": compile_s, "tokens": second[0, prompt_tokens:].tolist(),
           "same_twice": bool(torch.equal(first, second))}
    if backend is not None:
        row["graphs"] = [r.line() for r in backend.reports]
        row["breakdown"] = breakdown(model)
    return row


def _trimmed_rss() -> float | None:
    """RSS once glibc has returned the free pages of its heaps to the system
    (malloc_trim): what the warm RSS holds in heap freed but kept."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        return None
    return rss_mb()


def run_one(size: str, peer: str, args) -> dict:
    argv = [sys.executable, "-m", "bench.llm_memory", "--worker", size, peer,
            "--prompt-tokens", str(args.prompt_tokens), "--new-tokens", str(args.new_tokens),
            "--threads", str(args.threads)]
    argv += ["--prepack-weights"] if args.prepack_weights else []
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=args.timeout)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode or not lines:
        tail = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
        return {"size": size, "peer": peer, "error": f"exit {proc.returncode}: {tail}"}
    return json.loads(lines[-1])


def report(rows: list[dict]) -> str:
    lines = [f"{'size':8} {'peer':20} {'model MB':>9} {'warm MB':>8} {'x eager':>8} "
             f"{'trimmed':>8} {'1st gen s':>9}  same tokens"]
    eager = {r["size"]: r for r in rows if r["peer"] == "eager" and "error" not in r}
    for r in rows:
        if "error" in r:
            lines.append(f"{r['size']:8} {r['peer']:20} error: {r['error']}")
            continue
        base = eager.get(r["size"])
        ratio = f"{r['rss_warm_mb'] / base['rss_warm_mb']:.2f}" if base else "n/a"
        same = "n/a" if base is None else ("yes" if r["tokens"] == base["tokens"] else "NO")
        trimmed = r.get("rss_trimmed_mb")
        trimmed = f"{trimmed:8.0f}" if trimmed is not None else f"{'n/a':>8}"
        lines.append(f"{r['size']:8} {r['peer']:20} {r['rss_model_mb']:9.0f} "
                     f"{r['rss_warm_mb']:8.0f} {ratio:>8} {trimmed} {r['first_s']:9.1f}  {same}")
        for name, value in r.get("breakdown", {}).items():
            lines.append(f"{'':30} {name:20} {value:9.1f}" if name != "graphs loaded"
                         else f"{'':30} {name:20} {value:9d}")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="512x4,1024x8")
    parser.add_argument("--peers", default=",".join(PEERS))
    parser.add_argument("--prompt-tokens", type=int, default=32)
    parser.add_argument("--new-tokens", type=int, default=16)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--prepack-weights", action="store_true",
                        help="our linears of over 2 rows read prepacked copies (faster prefill)")
    parser.add_argument("--worker", nargs=2, metavar=("SIZE", "PEER"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    sizes, peers = args.sizes.split(","), args.peers.split(",")
    bad = [s for s in sizes if s not in SIZES] + [p for p in peers if p not in PEERS]
    if bad:
        parser.error(f"unknown size or peer {bad[0]!r}; sizes: {', '.join(SIZES)}; "
                     f"peers: {', '.join(PEERS)}")
    if args.worker:
        import torch

        torch.set_num_threads(args.threads)
        print(json.dumps(worker(*args.worker, args.prompt_tokens, args.new_tokens,
                                args.prepack_weights)))
        return 0
    print(f"# {isa_line()}; load before: {uptime()}")
    rows = []
    for size in sizes:
        for peer in peers:
            rows.append(run_one(size, peer, args))
            print(f"# {size} {peer} done; load {uptime()}", flush=True)
    print(report(rows))
    print(f"# load after: {uptime()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
