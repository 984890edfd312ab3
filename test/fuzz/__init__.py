"""Differential fuzzing of the whole pipeline.

`graphs` draws random graphs as plain data and builds them as GE IR or as a
PyTorch module; `check` runs a pass pipeline on one and compares every stage
(GE reference evaluator, Ascend executor, PyTorch eager); `profiles` holds
the hypothesis settings. How to run the long profile: docs/testing.md.
"""

# Graph x pipeline checks of this pytest run, for the summary line that
# test/python/conftest.py prints (so CI logs show the fuzz budget that ran).
STATS = {"checked": 0, "mismatches": 0}
