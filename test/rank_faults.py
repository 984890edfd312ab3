"""A rank with a fault injected, for the multi-card fault tests.

Tests point `npu_graph.distributed.RANK_MODULE` here and set NPU_GRAPH_FAULT;
every started rank runs this module, which applies the fault if it names this
rank and then runs the real `npu_graph.rank`. Faults (`KIND:RANK[:ARG]`):

    exit:1:3          rank 1 writes a line to stderr and exits with code 3 at start-up
    kill:1            rank 1 kills itself (SIGKILL) at start-up, before it joins
    hang:1            rank 1 never joins (sleeps at start-up)
    kill-in-run:1:2   rank 1 kills itself during its 2nd graph run
    hang-in-run:1:2   rank 1 stops answering during its 2nd graph run
"""

import os
import signal
import sys
import time


def _arg(name: str) -> int:
    return int(sys.argv[sys.argv.index(name) + 1])


def inject() -> None:
    """Apply the fault if it names this rank: start-up faults before anything
    heavy is imported, so they cost the tests no time."""
    kind, which, *arg = os.environ.get("NPU_GRAPH_FAULT", "none:-1").split(":")
    if int(which) != _arg("--rank"):
        return
    if kind == "exit":
        print(f"injected fault: rank {which} exits with code {arg[0]}", file=sys.stderr)
        sys.exit(int(arg[0]))
    if kind == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    if kind == "hang":
        time.sleep(3600)
    if kind in ("kill-in-run", "hang-in-run"):
        from runtime.executor import Executable

        run, calls = Executable.run, [0]

        def faulty(self, *inputs):
            calls[0] += 1
            if calls[0] == int(arg[0]):
                if kind == "kill-in-run":
                    os.kill(os.getpid(), signal.SIGKILL)
                time.sleep(3600)
            return run(self, *inputs)

        Executable.run = faulty


if __name__ == "__main__":
    inject()
    from npu_graph import rank

    raise SystemExit(rank.main())
