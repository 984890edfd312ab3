"""runtime/host/cache_row.py: a static KV cache's one-row update as a C copy,
against torch's index_copy_ on the same tensors."""

import pytest
import torch

from runtime.host import cache_row

pytestmark = pytest.mark.skipif(cache_row.library() is None, reason="no C compiler")


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("shape,dim", [((1, 4, 16, 8), 2), ((2, 3, 5), 1), ((6, 4), 0)])
def test_the_row_at_the_position_is_written(shape, dim, dtype):
    torch.manual_seed(0)
    ref = torch.randn(shape).to(dtype)
    expected = ref.clone()
    updates = torch.randn(shape[:dim] + (1,) + shape[dim + 1:]).to(dtype)
    position = torch.tensor([0])
    write = cache_row.writer(ref, position, updates, dim)
    assert write is not None
    for p in (shape[dim] // 2, 0, shape[dim] - 1):  # the position is read at every call
        position[0] = p
        updates.normal_()
        write()
        expected.index_copy_(dim, position, updates)
        assert torch.equal(ref, expected)


@pytest.mark.parametrize("p", [-1, 16])
def test_a_position_outside_the_cache_raises_and_writes_nothing(p):
    ref, updates = torch.zeros(1, 2, 16, 4), torch.ones(1, 2, 1, 4)
    write = cache_row.writer(ref, torch.tensor([p]), updates, 2)
    with pytest.raises(IndexError, match=f"index {p} is out of bounds for dimension 2 with size 16"):
        write()
    assert not ref.any()


def test_what_is_not_one_contiguous_row_keeps_index_copy():
    ref = torch.zeros(1, 2, 16, 4)
    assert cache_row.writer(ref, torch.tensor([0, 1]), torch.ones(1, 2, 2, 4), 2) is None
    assert cache_row.writer(ref.transpose(1, 2), torch.tensor([0]), torch.ones(1, 1, 2, 4),
                            1) is None
    assert cache_row.writer(ref, torch.tensor([0], dtype=torch.int32), torch.ones(1, 2, 1, 4),
                            2) is None
    assert cache_row.writer(ref, torch.tensor([0]), torch.ones(1, 2, 1, 4).double(), 2) is None
