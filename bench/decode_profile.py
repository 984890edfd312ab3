"""Where a decode step's host time goes, per task kind, beside HF eager.

    python -m bench.decode_profile --steps 40 --threads 1
    python -m bench.decode_profile --size 1024x8
    python -m bench.decode_profile --size 1024x8 --dtype bf16
    python -m bench.decode_profile --compare /path/to/other/checkout   # before/after
    python -m bench.decode_profile --size 1024x8 --openvino     # OpenVINO's step beside

Builds HF's LlamaForCausalLM from a config (random weights; `--size`
512x4: hidden 512, 4 layers, 8 heads, 4 KV heads, MLP 1376, vocab 8000;
1024x8: hidden 1024, 8 layers, 16 heads, 8 KV heads, MLP 2816, vocab
32000; `--dtype bf16` converts its weights, so the KV cache is bf16
too, for eager and ours alike), wraps it in HF's
static-cache export module (TorchExportableModuleWithStaticCache: the KV cache
is module buffers written in place at `cache_position`), compiles one decode
step (one token, batch 1) with NpuGraph and runs it step after step on one
plan. Eager runs the same steps, interleaved with ours, so the machine's noise
hits both alike.

Per task kind (a fused task's op names, joined by '+') it prints per step:
- `runner`: wall time of the task's runner calls (what `last_kernel_ms` sums);
- `kernel`: time inside oneDNN / torch / C kernels: a runner that is one
  call bound at load (`bare`: a oneDNN primitive, or a C kernel of
  runtime/host/cc.py) counts whole; for the others, the oneDNN primitives it
  executes (timed one by one) plus the top-level ATen ops that
  torch.profiler sees inside the runner (so it includes ATen dispatch);
- `python`: runner minus kernel, our Python around the kernels.
Below the table: the run loop's own overhead (`last_host_ms` minus the
runners), the call's (the NpuGraph call minus `last_host_ms`), and eager's
and our median ms per step.

`--openvino` profiles OpenVINO's decode step too, per node type
(bench/openvino_decode_profile.py, in `.venv-ov`): the same model saved
and exported through optimum-intel, the f32 hint for fp32, its default
precision for `--dtype bf16`, run through generate() with PERF_COUNT.

`--compare DIR` runs this script from DIR and from this checkout in turn,
`--rounds` times each, and prints both medians: the before/after of a change
on the same machine in the same run. Beside wall time, each step's CPU time
of the calling thread is printed: with `--threads 1` it is all the step's
work and leaves out the time other processes held the core, so it is the
steadier figure on a loaded machine. The machine's `uptime` and lscpu's ISA
flags are printed with the figures, which are indicative on a shared machine.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import statistics
import subprocess
import sys
import time
import warnings
import weakref

import torch

# The model sizes `--size` names: hidden size x layers.
SIZES = {
    "512x4": dict(vocab_size=8000, hidden_size=512, num_hidden_layers=4, num_attention_heads=8,
                  num_key_value_heads=4, intermediate_size=1376, max_position_embeddings=512),
    "1024x8": dict(vocab_size=32000, hidden_size=1024, num_hidden_layers=8,
                   num_attention_heads=16, num_key_value_heads=8, intermediate_size=2816,
                   max_position_embeddings=512),
}

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}  # `--dtype`: the model's


def build(max_cache_len: int, size: str = "512x4", weight_quant: str | None = None,
          dtype: torch.dtype = torch.float32):
    """The eager model and the compiled decode step, both over static caches,
    the model's weights (and so its caches) in `dtype`."""
    import transformers
    from transformers.integrations.executorch import TorchExportableModuleWithStaticCache

    import npu_graph

    torch.manual_seed(0)
    model = transformers.LlamaForCausalLM(transformers.LlamaConfig(**SIZES[size])).eval()
    model.to(dtype)
    model.generation_config.cache_implementation = "static"

    def wrapped():
        return TorchExportableModuleWithStaticCache(model, batch_size=1,
                                                    max_cache_len=max_cache_len)

    eager, ours = wrapped(), wrapped()
    start = time.perf_counter()
    compiled = npu_graph.NpuGraph(ours, input_spec=(torch.tensor([[1]]), None,
                                                    torch.tensor([0]))).optimize(
                                                        weight_quant=weight_quant)
    compiled.executable  # load: arena, views, primitives, runners
    return eager, ours, compiled, time.perf_counter() - start


def task_kind(task) -> str:
    return "+".join(op.name.removeprefix("ge.") for op in task.op.body.block.ops
                    if op.name != "ge.yield")


def _timed(run, kind: str, spent: dict, current: list):
    def call(*args):
        current[0] = kind
        t0 = time.perf_counter()
        with torch.profiler.record_function(f"task::{kind}"):
            run(*args)
        spent[kind] += time.perf_counter() - t0
    return call


def _record_primitives() -> list:
    """Every oneDNN primitive created from now on (weakly held), so that the
    profile can time their executions inside runners that are more than one."""
    from runtime.host import onednn

    made: list = []
    init = onednn.Primitive.__init__

    def recording(self, *args, **kwargs):
        init(self, *args, **kwargs)
        made.append(weakref.ref(self))
    onednn.Primitive.__init__ = recording
    return made


def _timing_primitives(made: list, current: list, spent: dict) -> list:
    """Time each recorded primitive's executions into spent[current task kind];
    return what restores them."""
    restore = []
    for ref in made:
        p = ref()
        if p is None:
            continue

        def timed(execute=p.execute):
            t0 = time.perf_counter()
            execute()
            spent[current[0]] += time.perf_counter() - t0
        restore.append((p, p.execute))
        p.execute = timed
    return restore


def _kernel_seconds(prof) -> dict[str, float]:
    """Per task kind: CPU time of the ATen ops called directly inside its runner."""
    kernel: dict[str, float] = collections.defaultdict(float)
    for event in prof.events():
        if event.name.startswith("task::"):
            kernel[event.name[6:]] += sum(c.cpu_time_total for c in event.cpu_children) / 1e6
    return kernel


def profile(steps: int, max_cache_len: int, size: str = "512x4",
            weight_quant: str | None = None, dtype: torch.dtype = torch.float32) -> dict:
    made = _record_primitives()
    eager, ours, compiled, compile_s = build(max_cache_len, size, weight_quant, dtype)
    exe = compiled.executable
    kinds = [task_kind(t) for t in exe.tasks]
    bare = {kinds[i] for i in exe.host_order if hasattr(exe.runners[i], "bare")}
    calls = collections.Counter(kinds)
    token = torch.tensor([[7]])

    def ours_step(pos):
        compiled(token, None, torch.tensor([pos]))

    def eager_step(pos):
        with torch.no_grad():
            eager(token, cache_position=torch.tensor([pos]))

    for pos in range(3):  # warm up both
        ours_step(pos), eager_step(pos)
    walls = {"ours": [], "eager": []}
    cpu = {"ours": [], "eager": []}  # the calling thread's CPU time: blind to other load
    host, in_runners = [], []
    for pos in range(3, 3 + steps):
        for name, step in (("ours", ours_step), ("eager", eager_step)):
            t0, c0 = time.perf_counter(), time.thread_time()
            step(pos % max_cache_len)
            walls[name].append(time.perf_counter() - t0)
            cpu[name].append(time.thread_time() - c0)
        host.append(exe.last_host_ms), in_runners.append(exe.last_kernel_ms)

    # Per kind: runner wall time (plain), then the kernels inside (profiled runs).
    spent: dict[str, float] = collections.defaultdict(float)
    current = [""]
    prepared = list(exe._prepared)
    exe._prepared = [(_timed(run, kinds[i], spent, current), args)
                     for i, (run, args) in zip(exe.host_order, prepared)]
    in_onednn: dict[str, float] = collections.defaultdict(float)
    restore = []
    try:
        for pos in range(steps):
            ours_step(pos % max_cache_len)
        runner = {k: v / steps for k, v in spent.items()}
        restore = _timing_primitives(made, current, in_onednn)
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
            for pos in range(steps):
                ours_step(pos % max_cache_len)
        kernel = {k: (v + in_onednn.get(k, 0.0)) / steps
                  for k, v in _kernel_seconds(prof).items()}
    finally:
        exe._prepared = prepared
        for p, execute in restore:
            p.execute = execute
    rows = []
    for kind, seconds in sorted(runner.items(), key=lambda kv: -kv[1]):
        k = seconds if kind in bare else min(kernel.get(kind, 0.0), seconds)
        rows.append({"kind": kind, "tasks": calls[kind], "runner_ms": seconds * 1e3,
                     "kernel_ms": k * 1e3, "python_ms": (seconds - k) * 1e3,
                     "onednn": kind in bare})
    med = {k: statistics.median(v) * 1e3 for k, v in walls.items()}
    med_cpu = {k: statistics.median(v) * 1e3 for k, v in cpu.items()}
    return {"rows": rows, "ours_ms": med["ours"], "eager_ms": med["eager"],
            "ours_cpu_ms": med_cpu["ours"], "eager_cpu_ms": med_cpu["eager"],
            "host_ms": statistics.median(host), "runners_ms": statistics.median(in_runners),
            "tasks": len(exe.tasks), "compile_s": compile_s, "size": size,
            "dtype": str(dtype).removeprefix("torch.")}


def machine() -> str:
    load = os.getloadavg()
    isa = ""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout
        flags = next((ln.split(":", 1)[1].split() for ln in out.splitlines()
                      if ln.startswith("Flags")), [])
        isa = " ".join(f for f in flags if f.startswith(("avx", "amx", "fma", "sse4")))
    except (OSError, subprocess.SubprocessError):
        isa = "(lscpu not available)"
    return f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; ISA: {isa}"


def print_profile(result: dict) -> None:
    print(f"{'ms/step':>8} {'kernel':>8} {'python':>8} {'tasks':>5}  task kind")
    for r in result["rows"]:
        tag = "  (bound call)" if r["onednn"] else ""
        print(f"{r['runner_ms']:8.3f} {r['kernel_ms']:8.3f} {r['python_ms']:8.3f} "
              f"{r['tasks']:5d}  {r['kind']}{tag}")
    total = sum(r["runner_ms"] for r in result["rows"])
    kern = sum(r["kernel_ms"] for r in result["rows"])
    print(f"{total:8.3f} {kern:8.3f} {total - kern:8.3f} {result['tasks']:5d}  "
          "all runners (timed one by one)")
    print(f"run loop overhead (host - runners): {result['host_ms'] - result['runners_ms']:.3f} ms; "
          f"call overhead (call - host): {result['ours_ms'] - result['host_ms']:.3f} ms")
    print(f"model {result['size']} {result['dtype']}; decode step: ours {result['ours_ms']:.3f} ms, "
          f"HF eager {result['eager_ms']:.3f} ms "
          f"({result['ours_ms'] / result['eager_ms']:.2f}x eager); "
          f"compile {result['compile_s']:.1f} s")
    print(f"CPU time of the calling thread per step: ours {result['ours_cpu_ms']:.3f} ms, "
          f"HF eager {result['eager_cpu_ms']:.3f} ms "
          f"({result['ours_cpu_ms'] / result['eager_cpu_ms']:.2f}x){_CPU_NOTE}")


# With one thread all the work is the calling thread's, so its CPU time leaves
# out the time other processes held the cores; with more, the pool's is missing.
_CPU_NOTE = " (all the work with --threads 1; the calling thread's share otherwise)"


OV_PYTHON = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                         ".venv-ov", "bin", "python")


def openvino_profile(python: str, size: str, dtype: torch.dtype, threads: int,
                     steps: int) -> dict:
    """OpenVINO's decode step per node type (bench/openvino_decode_profile.py,
    in its venv), on this script's model saved to a temporary directory: the
    f32 hint for an fp32 model, OpenVINO's default precision for bf16."""
    import tempfile

    import transformers

    if not os.path.exists(python):
        return {"error": f"no OpenVINO venv at {python} (make bench-llm-venv)"}
    torch.manual_seed(0)
    model = transformers.LlamaForCausalLM(transformers.LlamaConfig(**SIZES[size])).eval()
    with tempfile.TemporaryDirectory() as model_dir:
        model.to(dtype).save_pretrained(model_dir)
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        cmd = [python, "-m", "bench.openvino_decode_profile", "--model-dir", model_dir,
               "--precision", "f32" if dtype == torch.float32 else "default",
               "--threads", str(threads), "--steps", str(steps)]
        try:
            out = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=900,
                                 env={**os.environ, "PYTHONPATH": root})
        except subprocess.TimeoutExpired:
            return {"error": "OpenVINO's profile did not finish within 900 s"}
    if out.returncode != 0:
        return {"error": "OpenVINO's profile failed: " + (out.stderr.strip().splitlines()
                                                          or ["(no output)"])[-1]}
    return json.loads(out.stdout.splitlines()[-1])


def print_openvino(result: dict) -> None:
    if "error" in result:
        print(f"OpenVINO: {result['error']}")
        return
    print(f"\nOpenVINO (optimum-intel, precision {result['inference_precision_hint']}, "
          f"KV cache {result['kv_cache_precision']}), per decode step, medians over "
          f"{result['steps']} steps of generate():")
    print(f"{'ms/step':>8}  node type")
    for kind, ms in sorted(result["kinds"].items(), key=lambda kv: -kv[1]):
        if ms >= 0.0005:
            print(f"{ms:8.3f}  {kind}")
    print(f"{sum(result['kinds'].values()):8.3f}  all nodes; generate()'s step, token to "
          f"token: {result['step_ms']:.3f} ms")


def compare(other: str, args) -> None:
    """This checkout and `other`, each profiled in turn `rounds` times."""
    trees = {"before": os.path.abspath(other), "after": os.getcwd()}
    results: dict[str, list] = {k: [] for k in trees}
    for _ in range(args.rounds):
        for name, tree in trees.items():
            cmd = [sys.executable, os.path.join(os.getcwd(), "bench", "decode_profile.py"),
                   "--json", "--steps", str(args.steps), "--threads", str(args.threads),
                   "--max-cache-len", str(args.max_cache_len), "--size", args.size,
                   "--dtype", args.dtype]
            env = {**os.environ, "PYTHONPATH": tree}
            out = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True,
                                 timeout=900)
            if out.returncode != 0:
                sys.exit(f"decode_profile: the run in {tree} failed:\n{out.stderr[-2000:]}")
            results[name].append(json.loads(out.stdout.splitlines()[-1]))
    print(f"{machine()}; model {args.size} {args.dtype}")
    for name, runs in results.items():
        ours = statistics.median(r["ours_ms"] for r in runs)
        eager = statistics.median(r["eager_ms"] for r in runs)
        ours_cpu = statistics.median(r["ours_cpu_ms"] for r in runs)
        eager_cpu = statistics.median(r["eager_cpu_ms"] for r in runs)
        print(f"{name:>6} ({trees[name]}): ours {ours:.3f} ms/step, HF eager {eager:.3f} "
              f"({ours / eager:.2f}x eager), {runs[0]['tasks']} tasks; CPU time of the "
              f"calling thread: ours {ours_cpu:.3f}, eager {eager_cpu:.3f} "
              f"({ours_cpu / eager_cpu:.2f}x)")
    print("\nafter, the last round:")
    print_profile(results["after"][-1])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    parser.add_argument("--max-cache-len", type=int, default=160)
    parser.add_argument("--size", choices=sorted(SIZES), default="512x4",
                        help="the model: hidden size x layers")
    parser.add_argument("--compare", metavar="DIR", help="another checkout: profile both")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--weight-quant", choices=["int8"],
                        help="compile with weight-only int8 linears (weight_quant)")
    parser.add_argument("--dtype", choices=sorted(DTYPES), default="fp32",
                        help="the model's weights and KV cache, for eager and ours alike")
    parser.add_argument("--openvino", nargs="?", const=OV_PYTHON, metavar="PYTHON",
                        help="also profile OpenVINO's step per node type, with this venv's "
                             "python (default .venv-ov's: make bench-llm-venv)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    if args.steps < 1 or args.max_cache_len < 4:
        parser.error("--steps must be >= 1 and --max-cache-len >= 4")
    if args.compare:
        compare(args.compare, args)
        return
    torch.set_num_threads(args.threads)
    warnings.filterwarnings("ignore")
    result = profile(args.steps, args.max_cache_len, args.size, args.weight_quant,
                     DTYPES[args.dtype])
    if args.openvino:
        result["openvino"] = openvino_profile(args.openvino, args.size, DTYPES[args.dtype],
                                              args.threads, args.steps)
    if args.json:
        print(json.dumps(result))
        return
    print(machine())
    print_profile(result)
    if args.openvino:
        print_openvino(result["openvino"])


if __name__ == "__main__":
    if __package__ in (None, ""):  # run as a file: the checkout is on PYTHONPATH
        sys.path.insert(0, os.getcwd())
    main()
