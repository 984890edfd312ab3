"""runtime/host/blocked.py: which buffers the executor holds in oneDNN's
blocked layout (nChw16c with AVX-512, nChw8c with AVX2), and that models
still compute what eager computes.

Every positive case checks that buffers really are blocked and which runner
each pool got; every negative case names the rule that keeps a group NHWC."""

import pytest
import torch
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st
from torch import nn

from npu_graph.compiler import import_model, lower, optimize, plan_device
from runtime.host import blocked as blocked_layout
from runtime.host import onednn
from runtime.host.runners import is_nhwc
from runtime.executor import GENERIC, Executable, Options
from test.models.common import randomize_batch_norm
from test.models.resnet import Bottleneck, ResNet
from test.models.resnet_block import make_tiny_resnet

pytestmark = pytest.mark.skipif(onednn.block() is None,
                                reason="no oneDNN library, or no native blocked kernel on this CPU")
TOL = dict(rtol=1e-4, atol=1e-4)


@pytest.fixture(autouse=True)
def any_size(monkeypatch, request):
    """The rules on test-sized graphs: no minimum activation size, except
    where a test is about it."""
    if "default_size_rule" not in request.node.name:
        monkeypatch.setattr(blocked_layout, "MIN_ROWS", 0)


def compiled(model, inputs):
    model.eval()
    module = plan_device(lower(optimize(import_model(model, inputs), "ge-O3")))
    with torch.no_grad():
        expected = model(*inputs)
    return module, expected


def blocked_shapes(executable) -> list[tuple]:
    return sorted(tuple(executable.values[s].shape) for s in executable.blocked)


def runners(executable) -> list[str]:
    return [r.__name__ for r in executable.runners]


def check(module, expected, inputs, executable):
    outs = executable.run(*inputs)
    for o, e in zip(outs, expected if isinstance(expected, tuple) else (expected,)):
        torch.testing.assert_close(o, e, **TOL)
    unblocked = Executable(module, options=Options(blocked=False))
    for o, u, g in zip(outs, unblocked.run(*inputs), Executable(module, options=GENERIC).run(*inputs)):
        torch.testing.assert_close(o, u, **TOL)
        torch.testing.assert_close(o, g, **TOL)
    second = executable.run(*inputs)  # same bytes, same numbers
    for o, s in zip(outs, second):
        torch.testing.assert_close(o, s, rtol=0, atol=0)


def test_tiny_resnet_is_blocked_from_stem_to_pool():
    model, inputs = make_tiny_resnet()
    module, expected = compiled(model, inputs)
    executable = Executable(module)
    check(module, expected, inputs, executable)
    four_d = [s for s, _ in executable._buffers if executable.values[s].shape[2:] != (1, 1)
              and len(executable.values[s].shape) == 4]
    assert sorted(four_d) == sorted(executable.blocked)  # every activation between the two
    assert all(isinstance(executable.values[s], onednn.Blocked) for s in executable.blocked)
    names = runners(executable)
    assert "onednn_max_pool" in names and "onednn_global_avg_pool" in names, names
    assert "onednn_primitive_input" in names, names  # the stem reads the NCHW input
    assert not Executable(module, options=Options(blocked=False)).blocked


def test_bottlenecks_with_residuals_in_place_and_strided_shortcuts():
    """Also: with AVX2's nChw8c, 3x3 convs of 128 channels and more run oneDNN's
    NHWC kernel between reorders (onednn.prefers_nhwc); their buffers stay blocked."""
    torch.manual_seed(0)
    model = randomize_batch_norm(ResNet(Bottleneck, [2, 1, 1, 1], width=16, num_classes=10))
    inputs = (torch.randn(2, 3, 64, 64),)
    module, expected = compiled(model, inputs)
    executable = Executable(module)
    check(module, expected, inputs, executable)
    assert (2, 64, 16, 16) in blocked_shapes(executable)  # the first stage's outputs
    assert (2, 512, 2, 2) in blocked_shapes(executable)   # the last stage's
    assert (2, 128, 2, 2) in blocked_shapes(executable)   # its 3x3 conv's output
    via = runners(executable).count("onednn_primitive_via_nhwc")
    assert via == (1 if onednn.block() == 8 else 0), runners(executable)  # that 3x3 conv


def test_replicas_running_at_once_each_have_their_own_workspace():
    """Calls in flight at once run on replicas; the NHWC detour's scratch is
    per replica, so no call reads another's reordered activations."""
    from concurrent.futures import ThreadPoolExecutor

    torch.manual_seed(0)
    model = randomize_batch_norm(ResNet(Bottleneck, [1, 1, 1, 1], width=16, num_classes=10))
    inputs = [(torch.randn(2, 3, 64, 64),) for _ in range(24)]
    module, _ = compiled(model, inputs[0])
    executable = Executable(module)
    with torch.no_grad():
        expected = [model(*x) for x in inputs]
    with ThreadPoolExecutor(4) as pool:
        outs = list(pool.map(lambda x: executable.run(*x)[0], inputs))
    for o, e in zip(outs, expected):
        torch.testing.assert_close(o, e, **TOL)
    replicas = {id(r): r for r in (executable, *executable._idle)}.values()
    assert executable._replicas > 1
    assert ("onednn_primitive_via_nhwc" in runners(executable)) == (onednn.block() == 8)
    assert len({id(r.workspace) for r in replicas}) == len(replicas)


class Chain(nn.Module):
    """conv relu -> conv relu [-> maxpool] -> conv -> global pool; the middle
    width and what follows the second conv vary per case."""

    def __init__(self, mid=32, relu=True, pool=False, tail=None, first_in=3, groups=1):
        super().__init__()
        self.a = nn.Conv2d(first_in, 16, 3, padding=1, groups=groups)
        self.b = nn.Conv2d(16, mid, 3, padding=1)
        self.c = nn.Conv2d(mid, 32, 1)
        self.relu, self.pool, self.tail = relu, pool, tail

    def forward(self, x):
        y = torch.relu(self.a(x))
        y = self.b(y)
        y = torch.relu(y) if self.relu else y
        if self.pool:
            y = nn.functional.max_pool2d(y, 3, 2, 1)
        z = self.c(y)
        if self.tail == "result":
            return z.mean((2, 3)), y
        if self.tail == "sigmoid":
            z = z * torch.sigmoid(z)  # a torch task reads the conv output
        return z.mean((2, 3))


def executable_for(model, shape=(2, 3, 12, 12)):
    torch.manual_seed(0)
    inputs = (torch.randn(*shape),)
    module, expected = compiled(model, inputs)
    executable = Executable(module)
    check(module, expected, inputs, executable)
    return executable


def test_a_chain_of_convs_and_a_pool_after_relu_is_blocked():
    """The positive twin of each negative case below, which changes one thing."""
    executable = executable_for(Chain(pool=True))
    assert blocked_shapes(executable) == [(2, 16, 12, 12), (2, 32, 6, 6), (2, 32, 6, 6),
                                          (2, 32, 12, 12)]
    assert "onednn_max_pool" in runners(executable)
    executable = executable_for(Chain())
    assert blocked_shapes(executable) == [(2, 16, 12, 12), (2, 32, 12, 12), (2, 32, 12, 12)]


def test_channels_not_a_multiple_of_the_block_keep_the_whole_group_nhwc():
    assert not executable_for(Chain(mid=onednn.block() * 3 // 2)).blocked


def test_a_max_pool_not_after_a_relu_keeps_torch_and_nhwc():
    """oneDNN's max differs from torch's on -inf and NaN, which only a ReLU rules out."""
    executable = executable_for(Chain(relu=False, pool=True))
    assert not executable.blocked
    assert "max_pool_nhwc" in runners(executable)


def test_a_buffer_a_torch_task_reads_keeps_its_group_nhwc():
    executable = executable_for(Chain(tail="sigmoid"))
    assert not executable.blocked


def test_a_graph_result_is_not_blocked():
    executable = executable_for(Chain(tail="result"))
    assert not executable.blocked  # y is returned: its group, the whole chain, stays NHWC


def test_a_graph_input_of_a_block_or_more_channels_is_reordered_into_blocks_per_call():
    executable = executable_for(Chain(first_in=32), shape=(2, 32, 12, 12))
    assert blocked_shapes(executable)[0] == (2, 16, 12, 12)
    assert "onednn_primitive_input" in runners(executable)


def test_a_grouped_conv_on_a_narrow_graph_input_leaves_its_output_nhwc():
    """oneDNN reads NCHW into blocks only for an ungrouped first conv."""
    executable = executable_for(Chain(first_in=8, groups=2), shape=(2, 8, 12, 12))
    assert (2, 16, 12, 12) not in blocked_shapes(executable)


def test_a_primitive_oneDNN_declines_lays_everything_out_nhwc(monkeypatch):
    def decline(*args):
        raise onednn.OneDNNError("declined for this test")
    monkeypatch.setattr(onednn, "max_pool2d", decline)
    executable = executable_for(Chain(pool=True))
    assert not executable.blocked
    assert "max_pool_nhwc" in runners(executable)


def test_default_size_rule_blocks_only_large_activations():
    """MIN_ROWS: the FLOP-weighted output rows of the group's convs."""
    assert blocked_layout.MIN_ROWS == 2048
    small = executable_for(Chain(), shape=(2, 3, 12, 12))    # 288 rows
    large = executable_for(Chain(), shape=(2, 3, 40, 40))    # 3200 rows
    assert not small.blocked
    assert blocked_shapes(large) == [(2, 16, 40, 40), (2, 32, 40, 40), (2, 32, 40, 40)]


def test_a_blocked_buffer_given_to_a_torch_task_is_refused_not_misread(monkeypatch):
    """Were the analysis wrong, the runtime would not run torch on blocked bytes:
    the task refuses them and the executor lays everything out NHWC."""
    monkeypatch.setattr(blocked_layout, "blocked_buffers",
                        lambda ops, nhwc: {b for b in nhwc if b.output.type.get_shape()[1] % onednn.block() == 0})
    executable = executable_for(Chain(tail="sigmoid"))
    assert not executable.blocked
    assert any(is_nhwc(v) and not v.is_contiguous()  # the NHWC views stay
               for v in executable.values if isinstance(v, torch.Tensor))


class RandomNet(nn.Module):
    """Layers drawn by `nets`: ("conv", out, kernel, stride, padding, groups,
    activation), ("residual", kernel) (relu(conv(x) + x)), ("pool", kernel,
    stride, padding, ceil_mode) after a ReLU; then a global average pool."""

    ACTIVATIONS = {None: lambda y: y, "relu": torch.relu, "relu6": nn.functional.relu6,
                   "hardswish": nn.functional.hardswish, "sigmoid": torch.sigmoid}

    def __init__(self, channels: int, layers: list[tuple]):
        super().__init__()
        self.layers, self.convs = layers, nn.ModuleList()
        for layer in layers:
            if layer[0] == "conv":
                _, out, k, s, p, g, _ = layer
                self.convs.append(nn.Conv2d(channels, out, k, s, p, groups=g))
                channels = out
            elif layer[0] == "residual":
                self.convs.append(nn.Conv2d(channels, channels, layer[1], padding=layer[1] // 2))

    def forward(self, x):
        convs = iter(self.convs)
        for layer in self.layers:
            if layer[0] == "conv":
                x = self.ACTIVATIONS[layer[-1]](next(convs)(x))
            elif layer[0] == "residual":
                x = torch.relu(next(convs)(x) + x)
            else:
                x = nn.functional.max_pool2d(x, layer[1], layer[2], layer[3], ceil_mode=layer[4])
        return x.mean((2, 3))


def pooled(size: int, k: int, s: int, p: int, ceil: bool) -> int:
    """torch's max_pool2d output size (a ceil_mode window may not start in the padding)."""
    out = (size + 2 * p - k + (s - 1 if ceil else 0)) // s + 1
    return out - 1 if ceil and (out - 1) * s >= size + p else out


@st.composite
def nets(draw):
    """(channels, layers, batch, size) of a net whose buffers may all be blocked."""
    channels, size = draw(st.sampled_from([3, 16])), draw(st.integers(6, 14))
    start = size
    c, relu, layers = channels, False, []
    for i in range(draw(st.integers(1, 4))):
        kind = "conv" if i == 0 else draw(st.sampled_from(["conv", "residual", "pool"]))
        if kind == "pool" and relu and size >= 3:
            k = draw(st.sampled_from([2, 3]))
            s, p, ceil = draw(st.integers(1, 2)), draw(st.integers(0, k // 2)), draw(st.booleans())
            layers.append(("pool", k, s, p, ceil))
            size = pooled(size, k, s, p, ceil)
        elif kind == "residual" and c % 16 == 0:
            layers.append(("residual", draw(st.sampled_from([1, 3]))))
            relu = True
        else:
            out = draw(st.sampled_from([16, 32]))
            k, s = draw(st.sampled_from([1, 3])), draw(st.integers(1, 2))
            p = draw(st.integers(0, k // 2))
            g = draw(st.sampled_from([1] + ([c] if out == c else [])  # depthwise
                                     + ([2] if c % 32 == 0 and out % 32 == 0 else [])))
            act = draw(st.sampled_from(list(RandomNet.ACTIVATIONS)))
            layers.append(("conv", out, k, s, p, g, act))
            size, c, relu = (size + 2 * p - k) // s + 1, out, act == "relu"
        if size < 2:  # a 1x1 map is no NHWC buffer (runtime/host/channels_last.py): nor blocked
            reject()
    return channels, layers, draw(st.integers(1, 2)), start


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(net=nets())
def test_random_conv_nets_compute_what_eager_computes(net):
    """Blocked, NHWC and the generic path on random conv stacks; every buffer
    between the first conv and the pool qualifies, so some must be blocked."""
    channels, layers, batch, size = net
    torch.manual_seed(0)
    model = RandomNet(channels, layers)
    inputs = (torch.randn(batch, channels, size, size),)
    module, expected = compiled(model, inputs)
    executable = Executable(module)
    check(module, expected, inputs, executable)
    assert executable.blocked, layers
