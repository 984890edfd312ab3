"""Hypothesis settings profiles for the property tests.

"ci" is what `make test` runs: a bounded, derandomized number of examples,
so CI is reproducible; the pipeline tests share CI_PIPELINE_BUDGET graphs. "long" is for hunting bugs
by hand: many more examples, a fresh random seed each run, and a database
(.hypothesis/) that replays any failure first on the next run. Select one
with HYPOTHESIS_PROFILE (default "ci"); see docs/testing.md.
"""

import os

from hypothesis import HealthCheck, settings

# Generating a graph draws a lot of data and runs PyTorch on the meta
# device; that is the point, not a sign of a slow strategy.
_SLOW_BY_DESIGN = [HealthCheck.too_slow, HealthCheck.data_too_large,
                   HealthCheck.filter_too_much]

settings.register_profile("ci", max_examples=15, deadline=None, derandomize=True,
                          database=None, print_blob=False,
                          suppress_health_check=_SLOW_BY_DESIGN)
settings.register_profile("long", max_examples=1000, deadline=None, print_blob=True,
                          suppress_health_check=_SLOW_BY_DESIGN)


# In "ci", the pipeline tests share this many examples, so CI time does not
# grow with every pass or preset the registry gains (at least 5 each).
CI_PIPELINE_BUDGET = 480
active = "ci"


def load() -> str:
    global active
    active = os.environ.get("HYPOTHESIS_PROFILE", "ci")
    settings.load_profile(active)
    return active


def examples_per_pipeline(pipelines: int) -> int:
    if active == "ci":
        return max(5, CI_PIPELINE_BUDGET // pipelines)
    return settings().max_examples
