"""The compile-time collector settings are scoped: the caller's come back."""

import gc

import pytest

from passes.driver import gc_tuning


def test_thresholds_and_freezing_are_undone_after_an_error():
    before, frozen = gc.get_threshold(), gc.get_freeze_count()
    gc_tuning.checkpoint()  # outside a compile: does nothing
    assert gc.get_freeze_count() == frozen
    with pytest.raises(RuntimeError), gc_tuning.fewer_collections():
        assert gc.get_threshold() == gc_tuning.COMPILE_THRESHOLDS
        with gc_tuning.fewer_collections():  # nested (a pipeline inside a compile)
            gc_tuning.checkpoint()
            assert gc.get_freeze_count() > frozen
        assert gc.get_freeze_count() > frozen  # only the outermost exit unfreezes
        raise RuntimeError("a failing pass")
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0
