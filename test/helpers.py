"""Helpers shared by the pytest files: eager reference runs and the 1e-4 comparison."""

import torch

TOL = dict(rtol=1e-4, atol=1e-4)


def eager(model, *inputs) -> tuple:
    """The model's outputs in eager mode, always as a tuple."""
    with torch.no_grad():
        out = model(*inputs)
    return out if isinstance(out, tuple) else (out,)


def assert_all_close(got, expected) -> None:
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        torch.testing.assert_close(g, e, **TOL)
