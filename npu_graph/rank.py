"""One rank that `GraphExecutor(devices=N)` starts: load a `.npu`, join, serve.

    python -m npu_graph.rank data|pipeline GRAPH.npu --rank R --world N --master HOST:PORT

Ranks start as this module rather than as a re-import of the user's script
(what multiprocessing's spawn does), so nothing at a script's top level runs
again on a rank and the script needs no `if __name__ == "__main__":` guard
for them. The rank connects to rank 0's rendezvous store, loads its graph
(a graph that cannot load is a start-up failure, its message on stderr,
which rank 0 reports), says so under `distributed.joined_key(rank)`, joins
the process group and serves until rank 0 closes. It exits when rank 0's
process is gone, so a rank 0 killed outright leaves no orphan behind.
"""

from __future__ import annotations

import argparse
import importlib
import os
import threading
import time
from datetime import timedelta

PARENT_POLL_S = 0.5


def _exit_with_parent() -> None:
    """A daemon thread that ends this process once its parent (rank 0) is gone."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_S)
        os._exit(70)

    threading.Thread(target=watch, name="npu_graph_parent_watch", daemon=True).start()


def _load(path: str):
    """The graph, its executable loaded: a graph that cannot run fails at start-up."""
    from npu_graph.artifact import load
    from runtime.custom_ops import CustomOpError

    graph = load(path)
    try:
        graph.executable
    except CustomOpError as e:
        e.add_note("Ranks do not run your script: define the kernel in a module that can "
                   "be imported (the modules of registered kernels are imported on every rank).")
        raise
    return graph


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m npu_graph.rank", description=__doc__.split("\n")[0])
    p.add_argument("mode", choices=("data", "pipeline"))
    p.add_argument("path", help="the .npu file this rank runs")
    p.add_argument("--rank", type=int, required=True)
    p.add_argument("--world", type=int, required=True)
    p.add_argument("--master", required=True, help="HOST:PORT of rank 0's rendezvous store")
    p.add_argument("--startup-timeout", type=float, default=60.0)
    p.add_argument("--import", dest="imports", action="append", default=[],
                   help="a module to import first (one that registers custom kernels)")
    args = p.parse_args(argv)
    _exit_with_parent()

    import torch
    import torch.distributed as dist

    from npu_graph import distributed

    torch.set_num_threads(1)   # rank 0 and its ranks share the host's cores
    for module in args.imports:
        importlib.import_module(module)
    host, port = args.master.rsplit(":", 1)
    store = dist.TCPStore(host, int(port), args.world, is_master=False,
                          timeout=timedelta(seconds=args.startup_timeout))
    graph = _load(args.path)
    store.set(distributed.joined_key(args.rank), "1")
    dist.init_process_group(distributed.BACKEND, store=store, rank=args.rank,
                            world_size=args.world, timeout=distributed.SERVE_TIMEOUT)
    if args.mode == "data":
        distributed.serve(graph)
    else:
        from npu_graph.pipeline_parallel import serve_stage

        serve_stage(graph)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
