"""Differential fuzzing of the whole pipeline.

`graphs` draws random graphs as plain data and builds them as GE IR or as a
PyTorch module; `check` runs a pass pipeline on one and compares every stage
(GE reference evaluator, Ascend executor, PyTorch eager); `profiles` holds
the hypothesis settings. How to run the long profile: docs/testing.md.
"""
