"""The simulated device: what a run would take on the chip.

`device.py`: one loaded function's plan (every task estimated and scheduled
with the target's cost model and scheduler), its stats and trace.
`pipelining.py`: successive batches with their PCIe copies overlapping
compute. `multicard.py`: the timeline of several cards (pipeline stages,
data parallel). `trace.py`: Chrome-trace JSON of any of these timelines.
The figures and models they read are the compiler's own (target/), so a
pass's estimate and the reported time cannot disagree.
"""
