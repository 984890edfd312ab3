"""The host runtime's fast paths (runtime/host/runners.py, runtime/host/channels_last.py,
runtime.executor.Options) against the generic path and PyTorch eager.

Every specialization is checked to be the one actually chosen for its task,
so a recogniser that silently falls back cannot pass as tested.
"""

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from ge_dialect import ascend, ge
from ge_dialect.plan_verifier import check_module
from npu_graph.compiler import import_model, lower, optimize, plan_device
from runtime.host import conv_algorithms, onednn, runners
from runtime.host.channels_last import channels_last_buffers
from runtime.executor import GENERIC, Executable, Options
from test.models import ZOO, dynamic_shapes, resnet_block, tiny_resnet

TOL = dict(rtol=1e-4, atol=1e-4)
ALL_OFF_BUT = {
    "zero_copy": Options(True, False, False, False),
    "prepared_loop": Options(False, True, False, False),
    "channels_last": Options(False, False, True, False),
    "zero_copy+channels_last": Options(True, False, True, False),
    "all_nchw": Options(channels_last=False),
    "all_torch_ops": Options(primitives=False),
    "all": Options(),
}
PRIMITIVES = [False, True] if onednn.available() else [False]


def conv_runner(primitives: bool, torch_op: str) -> set[str]:
    """The runner names a conv task may get: oneDNN primitives (of a view, or
    of a graph input) or the torch-op form `torch_op`."""
    return {"onednn_primitive", "onednn_primitive_input"} if primitives else {torch_op}


def compiled(model, inputs, pipeline="ge-O3"):
    model.eval()
    module = plan_device(lower(optimize(import_model(model, inputs), pipeline)))
    with torch.no_grad():
        expected = model(*inputs)
    return module, expected


def kinds(executable) -> dict[str, str]:
    """task name -> the runner it got ('generic' for the generic path)."""
    return {t.name: r.__name__ for t, r in zip(executable.tasks, executable.runners)}


# --- conv algorithms on their own ----------------------------------------------

CONV_SHAPES = [  # (n, cin, cout, size, k, stride, padding, bias)
    (1, 16, 24, 9, 1, 1, 0, True),
    (2, 16, 24, 9, 1, 1, 0, False),
    (2, 8, 12, 10, 3, 1, 1, True),
    (2, 8, 12, 11, 3, 2, 1, True),
    (1, 8, 12, 10, 1, 2, 0, True),
    (1, 4, 6, 9, 3, 1, 0, False),
]


@pytest.mark.parametrize("shape", CONV_SHAPES)
@pytest.mark.parametrize("algorithm", sorted(conv_algorithms.CONV_ALGORITHMS))
@pytest.mark.parametrize("x_layout", ["nhwc", "nchw", "sliced"])
def test_conv_algorithms_match_conv2d(shape, algorithm, x_layout):
    n, cin, cout, size, k, s, p, has_bias = shape
    algo = conv_algorithms.CONV_ALGORITHMS[algorithm]
    if not algo.applies((cout, cin, k, k), (s, s), (p, p), (1, 1), 1):
        pytest.skip(f"{algorithm} does not apply to this shape")
    torch.manual_seed(0)
    x = torch.randn(n, cin, size, size)
    if x_layout == "nhwc":
        x = x.contiguous(memory_format=torch.channels_last)
    elif x_layout == "sliced":  # a strided view: every other channel of a wider tensor
        x = torch.randn(n, 2 * cin, size, size)[:, ::2]
    w, b = torch.randn(cout, cin, k, k), torch.randn(cout) if has_bias else None
    expected = F.conv2d(x, w, b, s, p)
    out = torch.full_like(expected, float("nan")).contiguous(memory_format=torch.channels_last)
    if algo.fused:
        run = algo.prepare(w, b, (s, s), (p, p), input_shape=x.shape)
        torch.testing.assert_close(run(x), expected, **TOL)
        return
    run = algo.prepare(w, b, (s, s), (p, p))
    if algo.fresh:
        torch.testing.assert_close(run(x), expected, **TOL)
        return
    run(x, out)
    torch.testing.assert_close(out, expected, **TOL)
    out.fill_(float("nan"))
    run(x, out)  # again: scratch reused, output overwritten
    torch.testing.assert_close(out, expected, **TOL)
    if "nhwc" not in algorithm:  # NCHW algorithms also write into an NCHW output
        out = torch.full_like(expected, float("nan"))
        run(x, out)
        torch.testing.assert_close(out, expected, **TOL)


@pytest.mark.skipif(not conv_algorithms._has_onednn(), reason="torch built without oneDNN")
@pytest.mark.parametrize("relu", [False, True])
@pytest.mark.parametrize("residual", [False, True])
@pytest.mark.parametrize("nhwc", [False, True])
def test_onednn_packed_epilogues(relu, residual, nhwc):
    torch.manual_seed(0)
    fmt = torch.channels_last if nhwc else torch.contiguous_format
    x = torch.randn(2, 8, 9, 9).contiguous(memory_format=fmt)
    w, b = torch.randn(16, 8, 3, 3), torch.randn(16)
    res = torch.randn(2, 16, 5, 5).contiguous(memory_format=fmt)
    expected = F.conv2d(x, w, b, 2, 1) + (res if residual else 0)
    expected = torch.relu(expected) if relu else expected
    run = conv_algorithms.CONV_ALGORITHMS["onednn_packed"].prepare(
        w, b, (2, 2), (1, 1), input_shape=x.shape, relu=relu, residual=residual)
    torch.testing.assert_close(run(x, res if residual else None), expected, **TOL)


def test_choose_conv_rule():
    nhwc = torch.empty(1, 8, 14, 14).contiguous(memory_format=torch.channels_last)
    nchw, small = torch.empty(1, 8, 14, 14), torch.empty(1, 8, 7, 7)
    one = ((8, 8, 1, 1), (1, 1), (0, 0), (1, 1), 1)
    choose = conv_algorithms.choose_conv
    nhwc_choice = "onednn_packed" if conv_algorithms._has_onednn() else "gemm_1x1_nhwc"
    assert choose(*one, nhwc) == nhwc_choice
    assert choose((8, 8, 3, 3), (1, 1), (1, 1), (1, 1), 1, nhwc) in {"onednn_packed", "library"}
    assert choose(*one, nchw) == choose(*one, small) == "gemm_1x1"
    assert choose((8, 8, 1, 1), (2, 2), (0, 0), (1, 1), 1, nchw) == "gemm_1x1"
    assert choose((8, 128, 1, 1), (1, 1), (0, 0), (1, 1), 1, nchw) == "library"  # large K
    assert choose((8, 8, 3, 3), (1, 1), (1, 1), (1, 1), 1, nchw) == "library"
    assert choose((8, 4, 1, 1), (1, 1), (0, 0), (1, 1), 2, nchw) == "library"  # grouped


# --- task specializations inside the executor -----------------------------------


class ConvEpilogues(nn.Module):
    """conv+relu (3x3), conv (1x1), conv+add+relu (1x1 residual), conv+add (3x3, no relu),
    a grouped conv, then linear+relu and linear."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(4, 8, 3, padding=1)
        self.b = nn.Conv2d(8, 8, 1)
        self.c = nn.Conv2d(8, 8, 1, bias=False)
        self.d = nn.Conv2d(8, 8, 3, padding=1)
        self.g = nn.Conv2d(8, 8, 3, padding=1, groups=2)
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 5)

    def forward(self, x):
        y = torch.relu(self.a(x))
        z = self.b(y)
        r = torch.relu(self.c(z) + y)
        s = self.d(r) + z
        t = self.g(s)
        v = torch.relu(self.fc1(t.mean((2, 3))))
        return self.fc2(v)


@pytest.mark.parametrize("config", sorted(ALL_OFF_BUT))
def test_conv_and_linear_tasks_match_generic_and_eager(config):
    torch.manual_seed(0)
    inputs = (torch.randn(2, 4, 16, 16),)
    module, expected = compiled(ConvEpilogues(), inputs, pipeline="op-fusion")
    generic = Executable(module, options=GENERIC).run(*inputs)[0]
    fast = Executable(module, options=ALL_OFF_BUT[config])
    out = fast.run(*inputs)[0]
    torch.testing.assert_close(out, expected, **TOL)
    torch.testing.assert_close(out, generic, **TOL)
    torch.testing.assert_close(fast.run(*inputs)[0], out)  # a second run: same numbers
    used = set(kinds(fast).values())
    if ALL_OFF_BUT[config].zero_copy:
        conv_runners = {k for n, k in kinds(fast).items() if n.startswith("conv")}
        linear = "onednn_linear" if ALL_OFF_BUT[config].algorithms and \
            runners._has_onednn_linear() else "linear"
        if ALL_OFF_BUT[config].algorithms and ALL_OFF_BUT[config].primitives and \
                onednn.available():
            linear = "onednn_primitive_linear"
        assert linear in used and conv_runners <= {
            "library", "gemm", "onednn", "onednn_in_place", "onednn_in_place_act",
            "onednn_primitive", "onednn_primitive_input"}, kinds(fast)
    if config == "all_nchw":
        assert "gemm" in used, kinds(fast)  # the 1x1 convs as GEMMs
    if config == "all_torch_ops" and conv_algorithms._has_onednn():
        # prepacked oneDNN convs accumulating into their output views: the
        # residual's bytes (planned in place) or a zeroed view, never a copy
        assert "onednn_in_place" in used and "onednn" not in used, kinds(fast)
    if config == "all" and onednn.available():
        # every conv a primitive created at load: the first one reads the input
        assert conv_runners == {"onednn_primitive", "onednn_primitive_input"}, kinds(fast)
    if not ALL_OFF_BUT[config].zero_copy:
        assert used == {"generic"}


def test_graph_input_feeding_a_gemm_conv_in_nchw():
    """The first conv reads the caller's NCHW tensor, not an arena view."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(6, 8, 1), nn.ReLU(), nn.Conv2d(8, 4, 1))
    inputs = (torch.randn(2, 6, 5, 5),)
    module, expected = compiled(model, inputs)
    executable = Executable(module, options=Options(channels_last=False))
    assert list(kinds(executable).values()).count("gemm") == 2, kinds(executable)
    for x in (inputs[0], inputs[0].contiguous(memory_format=torch.channels_last)):
        (out,) = executable.run(x)
        torch.testing.assert_close(out, expected, **TOL)
        assert out.is_contiguous()  # results leave in the caller's layout


class ConvActivations(nn.Module):
    """conv + ReLU6 / hardswish / SiLU: accumulated into the zeroed view, the
    activation then in place; clamp(min=0) is a ReLU (a oneDNN post-op); the
    ReLU6 after the residual add stays a task of its own."""

    def __init__(self):
        super().__init__()
        self.convs = nn.ModuleList(nn.Conv2d(8, 8, 3, padding=1) for _ in range(5))

    def forward(self, x):
        a = nn.functional.relu6(self.convs[0](x))
        b = nn.functional.hardswish(self.convs[1](a))
        c = nn.functional.silu(self.convs[2](b))
        d = torch.clamp(self.convs[3](c), min=0.0)
        return nn.functional.relu6(self.convs[4](d) + a)


@pytest.mark.skipif(not conv_algorithms._has_onednn(), reason="torch built without oneDNN")
@pytest.mark.parametrize("primitives", PRIMITIVES)
def test_conv_activations_in_place_after_onednn(primitives):
    """Torch's ops: the activation in place after accumulating into the view.
    Primitives: the activation as a oneDNN post-op, writing the view."""
    torch.manual_seed(0)
    inputs = (torch.randn(2, 8, 10, 10) * 4,)  # wide enough to reach both ReLU6 bounds
    module, expected = compiled(ConvActivations(), inputs)
    fast = Executable(module, options=Options(primitives=primitives))
    runners = kinds(fast)
    conv_tasks = {n: r for n, r in runners.items() if n.startswith("conv")}
    assert len(conv_tasks) == 5, runners
    if primitives:
        assert sorted(conv_tasks.values()) == ["onednn_primitive"] * 4 + [
            "onednn_primitive_input"], runners
    else:
        assert sorted(conv_tasks.values()) == ["onednn_in_place", "onednn_in_place",
                                               *["onednn_in_place_act"] * 3], runners
    out = fast.run(*inputs)[0]
    torch.testing.assert_close(out, expected, **TOL)
    torch.testing.assert_close(out, Executable(module, options=GENERIC).run(*inputs)[0], **TOL)


@pytest.mark.skipif(not conv_algorithms._has_onednn(), reason="torch built without oneDNN")
@pytest.mark.parametrize("activation", [
    nn.Sigmoid(), nn.Tanh(), nn.Hardsigmoid(), nn.GELU(), nn.GELU(approximate="tanh"),
    nn.Hardtanh(-1.0, 2.0)], ids=lambda m: repr(m))
@pytest.mark.parametrize("primitives", PRIMITIVES)
def test_each_in_place_activation_after_a_conv(activation, primitives):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(4, 8, 3, padding=1), activation, nn.Conv2d(8, 4, 1))
    inputs = (torch.randn(2, 4, 9, 9) * 3,)
    module, expected = compiled(model, inputs)
    fast = Executable(module, options=Options(primitives=primitives))
    first = "onednn_primitive_input" if primitives else "onednn_in_place_act"
    assert first in kinds(fast).values(), kinds(fast)
    torch.testing.assert_close(fast.run(*inputs)[0], expected, **TOL)


@pytest.mark.parametrize("primitives", PRIMITIVES)
def test_global_avg_pool_reads_the_nhwc_view_as_rows(primitives):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                          nn.Flatten(), nn.Linear(16, 4))
    inputs = (torch.randn(2, 3, 7, 7),)
    module, expected = compiled(model, inputs)
    fast = Executable(module, options=Options(primitives=primitives))
    runner = "onednn_global_avg_pool" if primitives else "global_avg_pool"
    assert runner in kinds(fast).values(), kinds(fast)
    torch.testing.assert_close(fast.run(*inputs)[0], expected, **TOL)
    nchw = Executable(module, options=Options(channels_last=False))  # no NHWC view: generic
    assert not any("global_avg_pool" in r for r in kinds(nchw).values()), kinds(nchw)
    torch.testing.assert_close(nchw.run(*inputs)[0], expected, **TOL)


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b, self.c = nn.Linear(8, 16), nn.Linear(16, 12), nn.Linear(12, 4, bias=False)

    def forward(self, x):
        h = nn.functional.gelu(self.a(x))                       # linear, reshape, gelu
        h = nn.functional.gelu(self.b(h), approximate="tanh")
        return torch.relu(self.c(h))


@pytest.mark.parametrize("algorithms,primitives", [(True, True), (True, False), (False, False)])
def test_linear_tasks_with_reshape_and_activation(algorithms, primitives):
    """All forms: a oneDNN primitive, torch's oneDNN op, both with the activation
    as a post-op, and addmm + the activation in place."""
    torch.manual_seed(0)
    inputs = (torch.randn(2, 6, 8),)
    module, expected = compiled(Mlp(), inputs)
    fast = Executable(module, options=Options(algorithms=algorithms, primitives=primitives))
    runner = "onednn_linear" if algorithms and runners._has_onednn_linear() else "linear"
    if primitives and onednn.available():
        runner = "onednn_primitive_linear"  # the first reads the graph input: rows per call
        assert kinds(fast)["matmul_gelu_0"] == "onednn_primitive_linear_input", kinds(fast)
        assert list(kinds(fast).values()).count(runner) == 2, kinds(fast)
    else:
        assert list(kinds(fast).values()).count(runner) == 3, kinds(fast)
    out = fast.run(*inputs)[0]
    torch.testing.assert_close(out, expected, **TOL)
    torch.testing.assert_close(out, Executable(module, options=GENERIC).run(*inputs)[0])
    torch.testing.assert_close(fast.run(*inputs)[0], out)


class Shared(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(8, 16), nn.Linear(16, 4)

    def forward(self, x):
        h = self.a(x)
        return h, self.b(h)  # h is a result and read by another task


@pytest.mark.skipif(not onednn.available(), reason="no oneDNN library (onednn-cpu-gomp)")
def test_a_result_is_written_straight_into_the_tensor_returned():
    """b(h) by its primitive into the tensor `run` returns; h, which b reads,
    is copied out of the arena as before."""
    torch.manual_seed(0)
    model = Shared().eval()
    x = torch.randn(3, 8)
    module, expected = compiled(model, (x,))
    fast = Executable(module)
    assert list(fast.direct_outputs) == [1]
    first = fast.run(x)
    second = fast.run(2 * x)
    assert second[1].data_ptr() != first[1].data_ptr()
    for o, e in zip(first, expected):  # not overwritten by the next run
        torch.testing.assert_close(o, e, **TOL)
    with torch.no_grad():
        for o, e in zip(second, model(2 * x)):
            torch.testing.assert_close(o, e, **TOL)
    # after a run the runner writes its arena view again (the benches call runners alone)
    slot = fast.outputs[1]
    task = next(i for i, t in enumerate(fast.tasks) if slot in t.outs)
    fast.values[slot].fill_(float("nan"))
    del first, second
    fast.runners[task](*(fast.values[s] for s in fast.tasks[task].ins))
    with torch.no_grad():
        torch.testing.assert_close(fast.values[slot], model(2 * x)[1], **TOL)
    assert not Executable(module, options=Options(prepared_loop=False)).direct_outputs


class Pools(nn.Module):
    def forward(self, x):
        y = nn.functional.max_pool2d(x, 3, 2, 1)
        z = nn.functional.max_pool2d(x[:, :, 1:], 2, 2, 0, ceil_mode=True)  # after a slice task
        return y * 2.0, z + 1.0


def test_max_pool_via_nhwc_matches_eager():
    torch.manual_seed(0)
    inputs = (torch.randn(2, 5, 9, 11),)
    module, expected = compiled(Pools(), inputs, pipeline="canonicalize")
    fast = Executable(module)
    assert list(kinds(fast).values()).count("max_pool_nhwc") == 2, kinds(fast)
    for o, e in zip(fast.run(*inputs), expected):
        torch.testing.assert_close(o, e)  # max is exact


class ReluPool(nn.Module):
    def __init__(self, relu=True):
        super().__init__()
        self.conv, self.relu = nn.Conv2d(3, 8, 3, padding=1), relu

    def forward(self, x):
        y = self.conv(x)
        return nn.functional.max_pool2d(torch.relu(y) if self.relu else y, 3, 2, 1) * 2.0


@pytest.mark.skipif(not onednn.available(), reason="needs the oneDNN library")
@pytest.mark.parametrize("relu, primitives, pool", [
    (True, True, "onednn_max_pool"),    # a ReLU'd conv primitive wrote its input
    (False, True, "max_pool_nhwc"),     # no ReLU: -inf and NaN may reach it
    (True, False, "max_pool_nhwc"),     # torch's conv and ReLU keep NaN
])
def test_max_pool_is_onednns_only_after_a_relu_d_conv_primitive(relu, primitives, pool):
    torch.manual_seed(0)
    inputs = (torch.randn(1, 3, 10, 10),)
    module, expected = compiled(ReluPool(relu), inputs)
    fast = Executable(module, options=Options(primitives=primitives))
    assert not fast.blocked
    assert pool in kinds(fast).values(), kinds(fast)
    torch.testing.assert_close(fast.run(*inputs)[0], expected, **TOL)


class ElementwiseTails(nn.Module):
    def forward(self, x, y):
        a = torch.sigmoid(x * 2.0) - y      # ends in sub
        b = torch.relu(a) + 1.0             # ends in add
        c = torch.tanh(b.reshape(4, -1))    # reshape then tanh
        return c.transpose(0, 1), torch.maximum(a, y)


def test_elementwise_tails_write_into_their_views():
    torch.manual_seed(0)
    inputs = (torch.randn(2, 2, 3, 4), torch.randn(2, 2, 3, 4))
    module, expected = compiled(ElementwiseTails(), inputs, pipeline="canonicalize")
    fast = Executable(module)
    outs = fast.run(*inputs)
    for o, e, g in zip(outs, expected, Executable(module, options=GENERIC).run(*inputs)):
        torch.testing.assert_close(o, e, **TOL)
        torch.testing.assert_close(o, g)
    used = list(kinds(fast).values())
    assert "tail" in used and "copy_view" in used, used


class BoundTails(nn.Module):
    """One-op tails and a view copy whose operands are arena buffers."""

    def forward(self, x):
        y = x * 3.0
        return torch.sin(y), torch.cos(y), y[:, 1:] + 0.0, y[:, :2]


def test_one_op_tasks_on_buffers_are_bare_calls_bound_at_load():
    """Their operands are views of the arena, known at load: the prepared loop
    calls the out= op (or the copy from a view made once) with no frame."""
    module, _ = compiled(BoundTails(), (torch.randn(4, 3),), pipeline="canonicalize")
    fast = Executable(module)
    bare = {}  # runner kind -> whether each of its tasks reading no graph input is bare
    for task, runner in zip(fast.tasks, fast.runners):
        if all(s >= len(fast.arg_types) for s in task.ins):
            bare.setdefault(runner.__name__, []).append(hasattr(runner, "bare"))
        else:  # x * 3.0 reads the graph input: bound per capture, not at load
            assert not hasattr(runner, "bare") and hasattr(runner, "bind"), runner
    assert bare["tail"] == [True, True] and bare["copy_view"] == [True, True], bare
    for trial in range(3):  # the views made at load follow the buffers' new values
        x = torch.randn(4, 3) * (trial + 1)
        with torch.no_grad():
            want = BoundTails()(x)
        for got, w in zip(fast.run(x), want):
            torch.testing.assert_close(got, w, **TOL)


@pytest.mark.parametrize("nhwc", [False, True])
def test_in_place_tasks_keep_their_meaning(nhwc):
    """Unfused, ReLU and the residual add write over their inputs (same bytes):
    the tail runners then write an output that is also their input."""
    model, inputs = tiny_resnet.make()
    module, expected = compiled(model, inputs, pipeline="fold-batch-norm,dce")
    check_module(module)
    executable = Executable(module, options=Options(channels_last=nhwc))
    in_place = []
    for t, runner in zip(executable.tasks, executable.runners):
        ins = {v.owner.offset.value.data for v in t.op.ins if isinstance(v.owner, ascend.BufferOp)}
        if any(v.owner.offset.value.data in ins for v in t.op.outs):
            in_place.append(runner.__name__)
    assert len(in_place) >= 3 and set(in_place) <= {"tail", "in_place_view"}, set(in_place)
    torch.testing.assert_close(executable.run(*inputs)[0], expected, **TOL)


class FlattenInPlace(nn.Module):
    """conv -> flatten (written in place over the conv's bytes) -> linear: the
    4-D buffer must keep NCHW bytes, or the flatten would reorder them."""

    def __init__(self):
        super().__init__()
        self.conv, self.fc = nn.Conv2d(3, 4, 3, padding=1), nn.Linear(4 * 5 * 5, 3)

    def forward(self, x):
        return self.fc(torch.flatten(self.conv(x), 1) * 2.0)


def test_in_place_groups_of_mixed_shapes_stay_nchw():
    torch.manual_seed(0)
    inputs = (torch.randn(2, 3, 5, 5),)
    module, expected = compiled(FlattenInPlace(), inputs, pipeline="canonicalize")
    ops = list(next(op for op in module.walk() if op.name == "func.func").body.block.ops)
    bufs = [op for op in ops if isinstance(op, ascend.BufferOp)]
    conv_out = next(b for b in bufs if len(b.output.type.get_shape()) == 4)
    flat = [b for b in bufs if len(b.output.type.get_shape()) == 2
            and b.offset == conv_out.offset and b.output.type.get_shape()[1] == 100]
    assert flat, "the plan should put the flatten in place over the conv output"
    assert conv_out not in channels_last_buffers(ops)
    for options in (Options(), Options(channels_last=True)):
        torch.testing.assert_close(Executable(module, options=options).run(*inputs)[0],
                                   expected, **TOL)


def test_buffers_are_nhwc_views_of_the_arena():
    model, inputs = resnet_block.make()
    module, expected = compiled(model, inputs)
    executable = Executable(module, options=Options(channels_last=True))
    start = executable.arena.data_ptr()
    end = start + executable.arena.numel()
    nhwc = [v for v in executable.values if v is not None and v.dim() == 4
            and runners.is_nhwc(v) and not v.is_contiguous()]
    assert nhwc
    for v in nhwc:
        assert start <= v.data_ptr() < end
    executable.arena.zero_()  # the views see the arena's bytes
    assert all(not v.any() for v in nhwc)
    torch.testing.assert_close(executable.run(*inputs)[0], expected, **TOL)
    assert any(v.any() for v in nhwc)


def test_host_orders_and_options_agree_on_resnet_block():
    model, inputs = resnet_block.make()
    module, expected = compiled(model, inputs)
    executable = Executable(module)
    (out,) = executable.run(*inputs)
    executable.set_host_order("timeline")
    torch.testing.assert_close(executable.run(*inputs)[0], out)
    torch.testing.assert_close(out, expected, **TOL)
    stats = executable.stats
    assert 0 <= stats["host_overhead_ms"] <= stats["host_time"]


def test_dynamic_graphs_run_the_generic_path():
    model, inputs = ZOO["dynamic_batch"]()
    module = lower(optimize(import_model(model, inputs, dynamic_shapes(model))))
    executable = Executable(module, options=Options())
    assert executable.options == GENERIC
    assert set(kinds(executable).values()) == {"generic"}
    for batch in (1, 3, 1):
        x = torch.randn(batch, 3, 16, 16)
        with torch.no_grad():
            torch.testing.assert_close(executable.run(x)[0], model(x), **TOL)


class Attention(nn.Module):
    """4-D scores [B, heads, T, T] that no conv touches: they keep NCHW bytes."""

    def forward(self, q, k):
        return torch.softmax(q @ k.transpose(-1, -2), dim=-1) * 2.0


def test_only_buffers_of_conv_and_pool_tasks_go_nhwc():
    torch.manual_seed(0)
    inputs = (torch.randn(2, 3, 5, 4), torch.randn(2, 3, 5, 4))
    module, expected = compiled(Attention(), inputs)
    ops = list(next(op for op in module.walk() if op.name == "func.func").body.block.ops)
    assert any(isinstance(op, ascend.BufferOp) and len(op.output.type.get_shape()) == 4
               for op in ops)
    assert not channels_last_buffers(ops)
    torch.testing.assert_close(Executable(module).run(*inputs)[0], expected, **TOL)
    model, inputs = resnet_block.make()
    module, _ = compiled(model, inputs)
    ops = list(next(op for op in module.walk() if op.name == "func.func").body.block.ops)
    assert channels_last_buffers(ops)


class RuntimeWeights(nn.Module):
    """Conv and linear weights computed at run time (a task's output buffer):
    nothing may be read from them at load time."""

    def forward(self, x, w, v):
        y = torch.relu(F.conv2d(x, w * 2.0, padding=1))
        return F.linear(y.mean((2, 3)), v + 1.0)


def test_weights_computed_at_run_time_are_read_at_run_time():
    torch.manual_seed(0)
    inputs = (torch.randn(2, 3, 6, 6), torch.randn(4, 3, 3, 3), torch.randn(5, 4))
    module, _ = compiled(RuntimeWeights(), inputs)
    executable = Executable(module)
    for _ in range(2):
        inputs = (torch.randn(2, 3, 6, 6), torch.randn(4, 3, 3, 3), torch.randn(5, 4))
        with torch.no_grad():
            expected = RuntimeWeights()(*inputs)
        torch.testing.assert_close(executable.run(*inputs)[0], expected, **TOL)


def test_fp16_convs_keep_the_library_conv():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(4, 8, 1), nn.ReLU()).half()
    inputs = (torch.randn(1, 4, 16, 16).half(),)
    module, expected = compiled(model, inputs)
    executable = Executable(module)
    assert set(kinds(executable).values()) == {"library"}, kinds(executable)
    torch.testing.assert_close(executable.run(*inputs)[0], expected, rtol=1e-3, atol=1e-3)


def test_nan_at_a_fused_relu_is_zeroed_and_algorithms_off_keeps_it():
    """The documented difference (README, host runtime speed): oneDNN's ReLU
    post-op maps NaN to 0; torch's conv then relu, as eager, keep it."""
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())
    x = torch.randn(1, 3, 8, 8)
    x[0, 0, 3, 3] = float("nan")
    module, expected = compiled(model, (x,))
    assert expected.isnan().any()
    exact = Executable(module, options=Options(algorithms=False)).run(x)[0]
    torch.testing.assert_close(exact, expected, equal_nan=True, **TOL)
    if onednn.available():
        assert not Executable(module).run(x)[0].isnan().any()


# --- the activation table -----------------------------------------------------


def _activation_ops():
    from xdsl.dialects.builtin import TensorType, f32
    from xdsl.ir import Block

    from runtime.host import activations

    def x():
        return Block(arg_types=[TensorType(f32, [2, 3, 4, 5])]).args[0]
    ops = [ge.ReluOp(x()), ge.ClampOp(x(), 0.0, 6.0), ge.ClampOp(x(), 0.0), ge.ClampOp(x(), -1.0),
           ge.SigmoidOp(x()), ge.TanhOp(x()), ge.HardswishOp(x()), ge.HardsigmoidOp(x()),
           ge.SiluOp(x()), ge.GeluOp(x()), ge.GeluOp(x(), "tanh")]
    assert {type(op) for op in ops} == set(activations.ACTIVATIONS)
    return ops


@pytest.mark.parametrize("op", _activation_ops(), ids=lambda op: op.name)
def test_every_activation_form_computes_the_kernel_table_s_op(op):
    """One table (runtime/host/activations.py): its in-place and out= forms, and
    its torch post-op with the packed conv, agree with the kernel table."""
    from runtime import kernels
    from runtime.host import activations

    torch.manual_seed(0)
    y = torch.randn(2, 3, 4, 5) * 4
    expected = kernels.prepare(op)(y)
    row = activations.ACTIVATIONS[type(op)]
    in_place = y.clone()
    row.in_place(op)(in_place)
    torch.testing.assert_close(in_place, expected, **TOL)
    if row.out is not None:
        out = torch.full_like(y, float("nan"))
        row.out(y, out=out)
        torch.testing.assert_close(out, expected, **TOL)
    post_op = activations.post_op(op)
    if post_op is None:  # a one-sided clamp below zero has no post-op form
        assert isinstance(op, ge.ClampOp)
        return
    if conv_algorithms._has_onednn():
        x, w = torch.randn(2, 3, 6, 7), torch.randn(3, 3, 3, 3)
        run = conv_algorithms.CONV_ALGORITHMS["onednn_packed"].prepare(
            w, None, (1, 1), (0, 0), input_shape=x.shape, unary=post_op.torch_post_op())
        torch.testing.assert_close(run(x), kernels.prepare(op)(F.conv2d(x, w)), **TOL)


def matches_eager_then_generic(fast, module, inputs, expected, scales):
    """`fast` gives eager's results on `inputs`, then the generic path's on
    fresh values (the first input scaled) in the same views."""
    for got, want in zip(fast.run(*inputs), expected):
        torch.testing.assert_close(got, want, **TOL)
    for scale in scales:
        fresh = (torch.randn_like(inputs[0]) * scale, *map(torch.randn_like, inputs[1:]))
        for got, ref in zip(fast.run(*fresh), Executable(module, options=GENERIC).run(*fresh)):
            torch.testing.assert_close(got, ref, **TOL)


class AddNorms(nn.Module):
    """BERT's Add & Norm after a linear, an embedding-style sum into a norm
    without affine parameters, a norm alone, and one over two dims."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(16, 16)
        self.norm, self.plain = nn.LayerNorm(16, eps=1e-12), nn.LayerNorm(16, elementwise_affine=False)
        self.wide = nn.LayerNorm([3, 16])

    def forward(self, x, y):
        h = self.lin(x)
        a = self.norm(x + h)
        b = self.plain(h + y + 1000.0)  # a large mean: the variance must not cancel
        c = self.norm(self.lin(a))
        return a, b, c, self.wide(h * 2.0)


@pytest.mark.skipif(not onednn.available(), reason="needs the oneDNN library")
def test_layer_norms_write_their_views_through_onednn():
    torch.manual_seed(0)
    inputs = (torch.randn(2, 3, 16), torch.randn(2, 3, 16))
    module, expected = compiled(AddNorms(), inputs)
    fast = Executable(module)
    used = kinds(fast)
    assert sorted(n for n in used.values() if "layer_norm" in n) == [
        "add_layer_norm", "add_layer_norm", "layer_norm"], used
    matches_eager_then_generic(fast, module, inputs, expected, scales=(3.0, 0.01))


def test_layer_norms_without_primitives_keep_the_generic_path():
    torch.manual_seed(0)
    inputs = (torch.randn(2, 3, 16), torch.randn(2, 3, 16))
    module, expected = compiled(AddNorms(), inputs)
    executable = Executable(module, options=Options(primitives=False))
    assert not any("layer_norm" in n for n in kinds(executable).values())
    for got, want in zip(executable.run(*inputs), expected):
        torch.testing.assert_close(got, want, **TOL)


class Residuals(nn.Module):
    """Residual joins after projections (op-fusion's matmul_add): one the plan
    may put over its residual's bytes, one whose residual is read later, one
    adding a graph input."""

    def __init__(self):
        super().__init__()
        self.inp, self.lin, self.out = nn.Linear(16, 16), nn.Linear(16, 16), nn.Linear(16, 16)

    def forward(self, x, y):
        h = torch.relu(self.inp(x))
        a = h + self.lin(x)        # h's last reader: the output may take its bytes
        b = self.out(a) + a        # a is read again below
        return b, a * 2.0, self.lin(b) + y


@pytest.mark.parametrize("algorithms,primitives", [(True, True), (True, False), (False, False)])
def test_linear_residual_adds_match_eager_and_generic(algorithms, primitives):
    torch.manual_seed(0)
    inputs = (torch.randn(2, 5, 16), torch.randn(2, 5, 16))
    module, expected = compiled(Residuals(), inputs)
    fast = Executable(module, options=Options(algorithms=algorithms, primitives=primitives))
    used = {name: kind for name, kind in kinds(fast).items() if name.startswith("matmul_add")}
    assert len(used) == 3 and "generic" not in used.values(), used
    matches_eager_then_generic(fast, module, inputs, expected, scales=(3.0, 0.1))


@pytest.mark.skipif(not onednn.available(), reason="needs the oneDNN library")
def test_bf16_linear_residual_adds_keep_their_bf16_runners():
    """A residual into fp32 rows is a post-op, into bf16 rows it is added
    after the kernel, as the body's bf16 add does."""
    torch.manual_seed(0)
    inputs = (torch.randn(2, 5, 16), torch.randn(2, 5, 16))
    model = Residuals().eval()
    module = plan_device(lower(optimize(import_model(model, inputs), "ge-O3",
                                        precision_mode="allow_mix_precision_bf16")))
    executable = Executable(module)
    paths = {t.name: getattr(r, "path", r.__name__)
             for t, r in zip(executable.tasks, executable.runners) if t.name.startswith("matmul_add")}
    # the first writes its bf16 result over its residual's bytes: op by op
    assert paths["matmul_add_0"].startswith("generic"), paths
    assert not any(paths[f"matmul_add_{i}"].startswith("generic") for i in (1, 2)), paths
    with torch.no_grad():
        want = model(*inputs)
    for got, ref in zip(executable.run(*inputs), want):
        torch.testing.assert_close(got, ref, rtol=5e-2, atol=5e-2)


class AddNorm(nn.Module):
    """BERT's "Add & Norm" under the mix lists: a bf16 residual (the earlier
    projection's bf16 result) added to a projection whose sum the fp32 layer
    norm reads, so the matmul_add writes fp32 rows."""

    def __init__(self):
        super().__init__()
        self.pre, self.lin, self.norm = nn.Linear(16, 16), nn.Linear(16, 16), nn.LayerNorm(16)

    def forward(self, x):
        h = self.pre(x)
        return self.norm(h + self.lin(h))


@pytest.mark.skipif(not onednn.available(), reason="needs the oneDNN library")
def test_a_bf16_residual_of_fp32_rows_is_the_kernels_post_op():
    """Read in bf16 by a binary post-op where oneDNN has it (AVX-512): one
    kernel, no add after it; elsewhere added after the kernel. Either way
    the body's sum, within bf16 rounding (the body rounds it to bf16 once
    more before casting it back)."""
    from runtime.executor import GENERIC
    from runtime.host import bf16

    torch.manual_seed(0)
    inputs = (torch.randn(2, 5, 16),)
    module = plan_device(lower(optimize(import_model(AddNorm().eval(), inputs), "ge-O3",
                                        precision_mode="allow_mix_precision_bf16")))
    executable = Executable(module)
    (runner,) = [r for t, r in zip(executable.tasks, executable.runners)
                 if t.name.startswith("matmul_add")]
    assert not runner.path.startswith("generic"), runner.path
    if bf16.native(torch.bfloat16):
        assert runner.path.startswith("onednn-bf16") and runner.__name__ != "linear_then_add"
    generic = Executable(module.clone(), options=GENERIC)
    for _ in range(2):
        x = torch.randn(2, 5, 16)
        (got,), (want,) = executable.run(x), generic.run(x)
        torch.testing.assert_close(got, want, rtol=3e-2, atol=3e-2)


class NormThenLinear(nn.Module):
    def __init__(self):
        super().__init__()
        self.pre, self.norm, self.lin = nn.Linear(16, 16), nn.LayerNorm(16), nn.Linear(16, 8)

    def forward(self, x):
        return self.lin(self.norm(self.pre(x)))


@pytest.mark.skipif(not onednn.available(), reason="needs the oneDNN library")
def test_a_layer_norm_read_in_bf16_stores_bf16_through_onednn():
    """precision-mode groups the norm with its cast to bf16: oneDNN's layer
    norm writes the bf16 view (its fp32 result rounded once), and the next
    linear reads that view as it is, with no conversion of its own."""
    from runtime.executor import GENERIC
    from runtime.host import bf16

    torch.manual_seed(0)
    inputs = (torch.randn(2, 5, 16),)
    module = plan_device(lower(optimize(import_model(NormThenLinear().eval(), inputs), "ge-O3",
                                        precision_mode="allow_mix_precision_bf16")))
    executable = Executable(module)
    used = kinds(executable)
    norm = next(t for t in executable.tasks if t.name.startswith("layer_norm"))
    assert executable.values[norm.outs[0]].dtype == torch.bfloat16
    if bf16.native(torch.bfloat16):  # oneDNN 3.2 stores bf16 from AVX-512 on
        assert used[norm.name] == "layer_norm", used
    generic = Executable(module.clone(), options=GENERIC)
    for _ in range(2):
        x = torch.randn(2, 5, 16) * 3
        (got,), (want,) = executable.run(x), generic.run(x)
        torch.testing.assert_close(got, want, rtol=2e-2, atol=2e-2)


class Lookups(nn.Module):
    def __init__(self):
        super().__init__()
        self.tokens, self.positions = nn.Embedding(50, 16), nn.Embedding(8, 16)

    def forward(self, ids):
        return self.tokens(ids) + self.positions(torch.arange(ids.shape[1]))


def test_embeddings_gather_into_their_views():
    torch.manual_seed(0)
    model = Lookups().eval()
    inputs = (torch.randint(0, 50, (2, 8)),)
    module, _ = compiled(model, inputs)
    executable = Executable(module)
    used = kinds(executable)
    assert [n for n in used.values() if n == "embedding"], used
    for _ in range(2):  # new ids: the graph input is read per call
        ids = torch.randint(0, 50, (2, 8))
        torch.testing.assert_close(executable.run(ids)[0], model(ids), **TOL)
    for fast in (True, False):  # an id outside the table: said plainly on either path
        run = executable if fast else Executable(module.clone(), options=GENERIC)
        with pytest.raises(IndexError, match=r"from 0 to 50, outside the table's 50 rows"):
            run.run(torch.tensor([[0] * 7 + [50]] * 2))


class ResidualResult(nn.Module):
    """A graph result planned over its residual's bytes: the kernel adds into
    them, so it must not write the returned tensor instead."""

    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(16, 16), nn.Linear(16, 16)

    def forward(self, x):
        return torch.relu(self.a(x)) + self.b(x)


def test_a_result_accumulated_over_its_residual_is_correct_call_after_call():
    torch.manual_seed(0)
    inputs = (torch.randn(4, 16),)
    module, expected = compiled(ResidualResult(), inputs)
    fast = Executable(module)
    assert any(name.startswith("matmul_add") for name in kinds(fast)), kinds(fast)
    matches_eager_then_generic(fast, module, inputs, (expected,), scales=(3.0, 0.1, 1.0))


@pytest.mark.skipif(not onednn.available(), reason="needs the oneDNN library")
def test_a_conv_reads_a_graph_input_through_an_nhwc_copy_in_the_workspace():
    """A contiguous NCHW input is reordered by oneDNN into the workspace; an
    input in another layout (channels_last) is still read right."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 1)).eval()
    inputs = (torch.randn(2, 3, 12, 12),)
    module, _ = compiled(model, inputs)
    executable = Executable(module)
    assert "onednn_primitive_input" in kinds(executable).values(), kinds(executable)
    assert executable.workspace.nbytes >= inputs[0].numel() * 4
    for layout in (torch.contiguous_format, torch.channels_last, torch.contiguous_format):
        x = torch.randn(2, 3, 12, 12).contiguous(memory_format=layout)
        torch.testing.assert_close(executable.run(x)[0], model(x), **TOL)


class RMSNorms(nn.Module):
    """Llama's RMSNorm written as HF writes it (recomposed into ge.rms_norm):
    after a sum (add_rms_norm, with a constant too), alone after a linear, and
    without a weight."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(16, 16)
        self.weight = nn.Parameter(torch.randn(16))

    def norm(self, x, weight=True):
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
        return self.weight * x if weight else x

    def forward(self, x, y):
        a = self.norm(x + y + 1000.0)  # a large mean: nothing may cancel
        return a, self.norm(self.lin(x)), self.norm(self.lin(a), weight=False)


def test_rms_norms_write_their_views():
    torch.manual_seed(0)
    inputs = (torch.randn(2, 3, 16), torch.randn(2, 3, 16))
    module, expected = compiled(RMSNorms(), inputs)
    fast = Executable(module)
    used = kinds(fast)
    assert sorted(n for n in used.values() if "rms_norm" in n) == [
        "add_rms_norm", "rms_norm", "rms_norm"], used
    matches_eager_then_generic(fast, module, inputs, expected, scales=(3.0, 0.01))


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class Rotary(nn.Module):
    """Llama's rotary embedding of q and k after their projections, cos and
    sin given per position (graph inputs), and a look-alike that rotates by
    uneven parts (x[..., 3:] and x[..., :3]), which the runner must refuse."""

    def __init__(self):
        super().__init__()
        self.q, self.k = nn.Linear(16, 16), nn.Linear(16, 8)

    def forward(self, x, cos, sin):
        b, t, _ = x.shape
        q = self.q(x).view(b, t, 4, 4).transpose(1, 2)
        k = self.k(x).view(b, t, 2, 4).transpose(1, 2)
        cos, sin = cos[:, None], sin[:, None]
        v = self.q(x * 2.0).view(b, t, 4, 4).transpose(1, 2)
        uneven = torch.cat((-v[..., 3:], v[..., :3]), dim=-1)
        return (q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin,
                v * cos + uneven * sin)


def test_rotary_embeddings_run_as_one_runner():
    torch.manual_seed(0)
    angles = torch.randn(2, 3, 4)
    inputs = (torch.randn(2, 3, 16), angles.cos(), angles.sin())
    module, expected = compiled(Rotary(), inputs)
    fast = Executable(module)
    used = kinds(fast)
    assert sorted(n for n in used.values() if n == "rotary") == ["rotary"] * 2, used
    assert sum(t.name.startswith("rotary_embedding") for t in fast.tasks) == 3, used
    matches_eager_then_generic(fast, module, inputs, expected, scales=(3.0,))


class GatedMLPs(nn.Module):
    """Llama's SwiGLU MLP (no biases), one with biases, and one whose
    projections read different inputs (not one linear: the generic path)."""

    def __init__(self):
        super().__init__()
        self.gate, self.up = nn.Linear(16, 24, bias=False), nn.Linear(16, 24, bias=False)
        self.gate_b, self.up_b = nn.Linear(16, 24), nn.Linear(16, 24)

    def forward(self, x, y):
        h = x * 2.0
        return (F.silu(self.gate(h)) * self.up(h), self.up_b(h) * F.silu(self.gate_b(h)),
                F.silu(self.gate(y)) * self.up(y * 3.0))


@pytest.mark.parametrize("primitives", PRIMITIVES)
def test_gated_mlps_run_as_one_linear(primitives):
    torch.manual_seed(0)
    inputs = (torch.randn(2, 3, 16), torch.randn(2, 3, 16))
    module, expected = compiled(GatedMLPs(), inputs)
    fast = Executable(module, options=Options(primitives=primitives))
    used = kinds(fast)
    assert sum(t.name.startswith("gated_mlp") for t in fast.tasks) == 3, used
    assert sorted(n for n in used.values() if n == "gated_mlp") == ["gated_mlp"] * 2, used
    matches_eager_then_generic(fast, module, inputs, expected, scales=(3.0,))
