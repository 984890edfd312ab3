"""Ops that read the storage beneath a view, on inputs that are views (a storage
offset, non-contiguous strides): computed as eager computes them, or refused
with a clear error at compile or call time; never a different number.

The graph receives an input's elements, not its storage: as_strided is looked
up through the input's layout as traced (shape.as_strided), a read outside the
view is refused at compile time, and a call whose input is laid out otherwise
than when traced is refused at call time (OptimizedGraph.check_layouts)."""

import pytest
import torch

from lowering.torch_to_ge import GEImportError, UnsupportedOpError
from npu_graph import GraphExecutor, NpuGraph
from runtime.program import InputError


class AsStrided(torch.nn.Module):
    def __init__(self, *args):
        super().__init__()
        self.args = args

    def forward(self, x):
        return torch.as_strided(x, *self.args) * 2


def partial_view() -> torch.Tensor:
    """PyTorch's OpInfo sample as_strided.partial_views: 10 elements at offset 5 of 20."""
    return torch.randn(20)[5:15]


@pytest.mark.parametrize("args", [((2, 2), (1, 2)), ((2, 2), (1, 2), 10), ((3,), (3,), 6)])
def test_as_strided_inside_the_view_matches_eager(args):
    x = partial_view()
    model = AsStrided(*args)
    graph = NpuGraph(model, input_spec=(x,)).optimize()
    torch.testing.assert_close(graph(x), model(x), rtol=0, atol=0)
    other = torch.randn(30)[5:15]          # the same layout, other values
    torch.testing.assert_close(graph(other), model(other), rtol=0, atol=0)


def test_as_strided_outside_the_view_is_refused_at_compile_time():
    x = partial_view()
    with pytest.raises(UnsupportedOpError, match=r"as_strided reads storage element 0, outside its "
                                                 r"input's view \(size \[10\], strides \[1\], "
                                                 r"storage offset 5\)"):
        NpuGraph(AsStrided((2, 2), (1, 2), 0), input_spec=(x,))


def test_a_call_laid_out_otherwise_than_traced_is_refused():
    model = AsStrided((2, 2), (1, 2), 10)
    graph = NpuGraph(model, input_spec=(partial_view(),)).optimize()
    contiguous = partial_view().clone()    # eager reads beyond its 10 elements: refuse
    with pytest.raises(InputError, match=r"input 0 \(x\) has storage offset 0 .* as traced, at "
                                         r"storage offset 5"):
        graph(contiguous)
    with GraphExecutor() as executor:      # every entry point checks, run_pipelined too
        executor.load_graph(graph)
        with pytest.raises(InputError, match="storage offset 0"):
            executor.run(contiguous)
        with pytest.raises(InputError, match="storage offset 0"):
            list(executor.run_pipelined([contiguous]))


def test_as_strided_without_an_offset_reads_relative_to_any_offset():
    model = AsStrided((2, 2), (1, 2))     # relative to the input's own offset
    graph = NpuGraph(model, input_spec=(torch.randn(10),)).optimize()
    x = partial_view()
    torch.testing.assert_close(graph(x), model(x), rtol=0, atol=0)
    transposed = torch.randn(2, 5).t()     # other strides: other elements in eager
    graph2 = NpuGraph(AsStrided((2, 2), (1, 2)), input_spec=(torch.randn(5, 2),)).optimize()
    with pytest.raises(InputError, match=r"strides \(1, 5\)"):
        graph2(transposed)


def test_as_strided_of_a_transposed_input_and_of_an_in_graph_view():
    x = torch.randn(4, 6).t()              # strides (1, 6)
    model = AsStrided((3, 2), (2, 1), 1)
    torch.testing.assert_close(NpuGraph(model, input_spec=(x,)).optimize()(x), model(x),
                               rtol=0, atol=0)

    class OfSlice(torch.nn.Module):
        def forward(self, x):
            y = (x + 1)[3:]                # a view at offset 3 of an in-graph tensor
            return torch.as_strided(y, (2,), (2,), 4), torch.as_strided(y, (2,), (2,), 0)

    with pytest.raises(UnsupportedOpError, match="storage element 0, outside its input's view"):
        NpuGraph(OfSlice(), input_spec=(torch.randn(8),))


def test_as_strided_scatter_on_a_view_is_refused():
    class Scatter(torch.nn.Module):
        def forward(self, x, y):
            return torch.as_strided_scatter(x, y, (2, 2), (1, 2), 0)

    with pytest.raises(UnsupportedOpError, match="aten.as_strided_scatter.default x1"):
        NpuGraph(Scatter(), input_spec=(partial_view(), torch.ones(2, 2)))


def test_set_takes_the_other_tensors_values_and_set_of_a_storage_is_refused():
    class SetTensor(torch.nn.Module):
        def forward(self, x, y):
            z = x.clone()
            z.set_(y)
            return z + 1

    class SetStorage(torch.nn.Module):
        def forward(self, x):
            z = torch.empty(0)
            z.set_(x.untyped_storage(), 0, (2, 2), (1, 2))
            return z + 1

    x, y = partial_view(), torch.randn(3)
    graph = NpuGraph(SetTensor(), input_spec=(x, y)).optimize()
    torch.testing.assert_close(graph(x, y), SetTensor()(x, y), rtol=0, atol=0)
    # set_ to a view: torch's own decomposition cannot trace it, and that is what is said
    with pytest.raises(GEImportError, match="decomposing SetTensor to core ATen failed"):
        NpuGraph(SetTensor(), input_spec=(x, torch.randn(8)[2:5]))
    with pytest.raises(GEImportError, match="torch.export could not trace SetStorage"):
        NpuGraph(SetStorage(), input_spec=(x,))


@pytest.mark.parametrize("x", [partial_view(), torch.randn(4, 6).t()[1]],
                         ids=["offset", "strided"])
def test_unfold_of_a_view_matches_eager(x):
    class Unfold(torch.nn.Module):
        def forward(self, x):
            return x.unfold(0, 3, 1) * 2

    graph = NpuGraph(Unfold(), input_spec=(x,)).optimize()
    torch.testing.assert_close(graph(x), Unfold()(x), rtol=0, atol=0)


def test_view_of_a_non_contiguous_input():
    class View(torch.nn.Module):
        def forward(self, x):
            return x.view(-1) + 1

    transposed = torch.randn(4, 6).t()
    # eager refuses this view, so tracing it does too
    with pytest.raises(GEImportError, match="Cannot view a tensor with shape"):
        NpuGraph(View(), input_spec=(transposed,))
    # traced contiguous: a view into an offset is what eager computes
    graph = NpuGraph(View(), input_spec=(torch.randn(6, 4),)).optimize()
    sliced = torch.randn(7, 4)[1:]
    torch.testing.assert_close(graph(sliced), View()(sliced), rtol=0, atol=0)
