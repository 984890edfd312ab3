"""The compile-time collector thresholds are scoped: the caller's come back."""

import gc

import pytest

from passes.gc_tuning import COMPILE_THRESHOLDS, fewer_collections


def test_thresholds_are_raised_inside_and_restored_after_an_error():
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), fewer_collections():
        assert gc.get_threshold() == COMPILE_THRESHOLDS
        raise RuntimeError("a failing pass")
    assert gc.get_threshold() == before
