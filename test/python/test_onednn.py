"""runtime/host/onednn.py: oneDNN primitives created once for fixed views, against
torch's own conv and pooling on the same inputs."""

import os
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F

from xdsl.dialects.builtin import TensorType, f32
from xdsl.ir import Block

from ge_dialect import ge
from runtime.host import activations, onednn

pytestmark = pytest.mark.skipif(not onednn.available(), reason="no oneDNN library (onednn-cpu-gomp)")
TOL = dict(rtol=1e-4, atol=1e-4)


def nhwc(*shape) -> torch.Tensor:
    return torch.randn(*shape).contiguous(memory_format=torch.channels_last)


CONVS = [  # (n, cin, cout, size, kernel, stride, padding, dilation, groups, bias)
    (1, 16, 32, 9, 1, 1, 0, 1, 1, True),
    (2, 8, 12, 10, 3, 1, 1, 1, 1, True),
    (2, 8, 12, 11, 3, 2, 1, 1, 1, False),
    (1, 3, 16, 15, 7, 2, 3, 1, 1, True),    # a stem: three input channels
    (1, 8, 8, 9, 3, 1, 2, 2, 1, True),      # dilated
    (2, 12, 12, 8, 3, 1, 1, 1, 12, True),   # depthwise
    (1, 8, 16, 8, 3, 1, 1, 1, 2, True),     # grouped
]


@pytest.mark.parametrize("shape", CONVS, ids=str)
def test_conv_writes_the_view(shape):
    n, cin, cout, size, k, s, p, d, g, has_bias = shape
    torch.manual_seed(0)
    x, w = nhwc(n, cin, size, size), torch.randn(cout, cin // g, k, k)
    b = torch.randn(cout) if has_bias else None
    expected = F.conv2d(x, w, b, s, p, d, g)
    out = torch.full_like(expected.contiguous(memory_format=torch.channels_last), float("nan"))
    conv = onednn.conv2d(x, w, b, out, (s, s), (p, p), (d, d), g)
    conv()
    torch.testing.assert_close(out, expected, **TOL)  # no NaN left: every element written
    x.copy_(torch.randn_like(x))  # the same bytes, new values: the next call sees them
    conv()
    torch.testing.assert_close(out, F.conv2d(x, w, b, s, p, d, g), **TOL)


def _value():
    return Block(arg_types=[TensorType(f32, [4])]).args[0]


# GE activation ops, their oneDNN post-op from the activation table, and torch's op.
ACTIVATIONS = [
    (lambda: ge.ReluOp(_value()), F.relu),
    (lambda: ge.ClampOp(_value(), 0.0, 6.0), F.relu6),
    (lambda: ge.ClampOp(_value(), -1.0, 2.0), lambda y: F.hardtanh(y, -1.0, 2.0)),
    (lambda: ge.SigmoidOp(_value()), torch.sigmoid),
    (lambda: ge.TanhOp(_value()), torch.tanh),
    (lambda: ge.HardswishOp(_value()), F.hardswish),
    (lambda: ge.HardsigmoidOp(_value()), F.hardsigmoid),
    (lambda: ge.SiluOp(_value()), F.silu),
    (lambda: ge.GeluOp(_value()), F.gelu),
    (lambda: ge.GeluOp(_value(), "tanh"), lambda y: F.gelu(y, approximate="tanh")),
]


def eltwise(make_op) -> tuple:
    return activations.post_op(make_op()).dnnl_post_op()


def test_every_activation_with_a_post_op_is_tested_here():
    tested = {type(make()) for make, _ in ACTIVATIONS}
    assert tested == set(activations.ACTIVATIONS)


@pytest.mark.parametrize("post_op,reference", ACTIVATIONS, ids=lambda a: "")
def test_activation_post_ops_match_torch(post_op, reference):
    torch.manual_seed(0)
    x, w, b = nhwc(1, 4, 8, 8) * 3, torch.randn(8, 4, 3, 3), torch.randn(8)
    out = nhwc(1, 8, 8, 8)
    onednn.conv2d(x, w, b, out, (1, 1), (1, 1), (1, 1), 1, [eltwise(post_op)])()
    torch.testing.assert_close(out, reference(F.conv2d(x, w, b, 1, 1)), **TOL)


def test_sum_post_op_accumulates_into_the_residual_then_relu():
    torch.manual_seed(0)
    x, w, b = nhwc(2, 8, 6, 6), torch.randn(16, 8, 1, 1), torch.randn(16)
    residual = nhwc(2, 16, 6, 6)
    expected = F.relu(F.conv2d(x, w, b) + residual)
    onednn.conv2d(x, w, b, residual, (1, 1), (0, 0), (1, 1), 1,
                  [("sum",), activations.RELU.dnnl_post_op()])()
    torch.testing.assert_close(residual, expected, **TOL)


def test_a_source_known_only_by_shape_is_bound_per_call():
    torch.manual_seed(0)
    w, b = torch.randn(8, 3, 3, 3), torch.randn(8)
    out = nhwc(2, 8, 7, 7)
    conv = onednn.conv2d([2, 3, 7, 7], w, b, out, (1, 1), (1, 1), (1, 1), 1)
    for _ in range(2):  # fresh tensors, fresh addresses
        x = torch.randn(2, 3, 7, 7)
        conv(onednn.per_call(x))
        torch.testing.assert_close(out, F.conv2d(x, w, b, 1, 1), **TOL)


@pytest.mark.parametrize("post_op,reference", [(None, lambda y: y), ACTIVATIONS[0], ACTIVATIONS[8]],
                         ids=["none", "relu", "gelu"])
@pytest.mark.parametrize("has_bias", [True, False])
def test_linear_writes_the_rows(post_op, reference, has_bias):
    torch.manual_seed(0)
    x, w = torch.randn(6, 20), torch.randn(12, 20)
    b = torch.randn(12) if has_bias else None
    out = torch.full((6, 12), float("nan"))
    onednn.linear(x, w, b, out, [eltwise(post_op)] if post_op else [])()
    torch.testing.assert_close(out, reference(F.linear(x, w, b)), **TOL)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("has_bias", [True, False])
def test_a_plain_weight_linear_of_many_rows_reads_the_weight_where_it_is(dtype, has_bias):
    """Without prepacking, many rows run as a brgemm matmul over the weight's
    own bytes (no copy kept), bias and a residual add as post-op included."""
    torch.manual_seed(0)
    x, w = torch.randn(33, 40).to(dtype), torch.randn(24, 40).to(dtype)
    b = torch.randn(24).to(dtype) if has_bias else None
    residual, out = torch.randn(33, 24).to(dtype), torch.full((33, 24), float("nan"), dtype=dtype)
    with onednn.prepacking(False):
        linear = onednn.linear(x, w, b, out, [("add", residual)])
    if dtype == torch.bfloat16 and not linear.impl.startswith("brg"):
        pytest.skip(f"no bf16 brgemm on this CPU ({linear.impl})")
    assert linear.impl.startswith("brg"), linear.impl
    weights = [t for t in linear._keep if t.dtype == w.dtype and t.numel() == w.numel()
               and t is not x and t is not out and t is not residual]
    assert weights and all(t.data_ptr() == w.data_ptr() for t in weights)  # no reordered copy
    linear()
    expected = F.linear(x.float(), w.float(), b.float() if b is not None else None) + residual.float()
    tol = TOL if dtype == torch.float32 else dict(rtol=2e-2, atol=2e-2)
    torch.testing.assert_close(out.float(), expected, **tol)


@pytest.mark.parametrize("size", [1, 7])
def test_global_avg_pool_matches_the_mean(size):
    torch.manual_seed(0)
    x = nhwc(2, 24, size, size)
    x[0, 0, 0, 0] = float("-inf")  # -inf and NaN go through as in torch's mean
    x[1, 1, 0, 0] = float("nan")
    out = torch.full((2, 24), 7.0)
    onednn.global_avg_pool2d(x, out)()
    torch.testing.assert_close(out, x.mean(dim=(2, 3)), equal_nan=True, **TOL)


BLOCK = onednn.block()  # channels per block oneDNN runs natively here (16, 8), or None


def blocked(t: torch.Tensor, block_size: int | None = None) -> onednn.Blocked:
    if BLOCK is None and block_size is None:
        pytest.skip("oneDNN has no native blocked kernel on this CPU")
    return onednn.Blocked(onednn.Blocked.of(t, block_size).reshape(-1), t.shape, block_size)


def nan_blocked(*shape) -> onednn.Blocked:
    if BLOCK is None:
        pytest.skip("oneDNN has no native blocked kernel on this CPU")
    return onednn.Blocked(torch.full((torch.Size(shape).numel(),), float("nan")), shape)


def test_the_probed_block_runs_native_code():
    """`block()` is the largest block whose conv oneDNN builds as native code."""
    assert BLOCK in (16, 8, None)
    for b in sorted(onednn.BLOCKED_TAGS, reverse=True):
        x = torch.randn(1, 32, 8, 8)
        try:
            conv = onednn.conv2d(blocked(x, b), torch.randn(32, 32, 3, 3), None,
                                 blocked(torch.zeros(1, 32, 8, 8), b), (1, 1), (1, 1), (1, 1), 1)
        except onednn.OneDNNError:
            assert b != BLOCK
            continue
        assert b == BLOCK and not conv.impl.startswith("ref")
        return
    assert BLOCK is None


@pytest.mark.parametrize("block_size", sorted(onednn.BLOCKED_TAGS))
def test_blocked_is_nchwBc_and_round_trips(block_size):
    x = torch.arange(2 * 32 * 3 * 5, dtype=torch.float32).reshape(2, 32, 3, 5)
    b = blocked(x, block_size)
    per = 32 // block_size
    assert b.data.shape == (2, per, 3, 5, block_size)
    assert b.data[1, 1, 2, 4, 3].item() == x[1, block_size + 3, 2, 4].item()
    torch.testing.assert_close(b.logical(), x, rtol=0, atol=0)
    with pytest.raises(onednn.OneDNNError, match=f"multiple of {block_size}"):
        onednn.Blocked(torch.empty(2 * (block_size + 4) * 9), (2, block_size + 4, 3, 3),
                       block_size)
    assert onednn.same_layout(b, blocked(x, block_size)) and not onednn.same_layout(b, x)


@pytest.mark.parametrize("shape", [c for c in CONVS if c[2] % (BLOCK or 16) == 0], ids=str)
def test_conv_on_blocked_buffers(shape):
    """Blocked in and out (a graph input: plain NCHW in), every element written."""
    n, cin, cout, size, k, s, p, d, g, has_bias = shape
    torch.manual_seed(0)
    x, w = torch.randn(n, cin, size, size), torch.randn(cout, cin // g, k, k)
    b = torch.randn(cout) if has_bias else None
    expected = F.conv2d(x, w, b, s, p, d, g)
    out = nan_blocked(*expected.shape)
    if cin % BLOCK == 0 and onednn.has_blocked_conv(cin, cout, g):
        onednn.conv2d(blocked(x), w, b, out, (s, s), (p, p), (d, d), g)()
        torch.testing.assert_close(out.logical(), expected, **TOL)
    if onednn.reads_into_blocked(cin, g) and onednn.has_blocked_conv(cin, cout, g):
        # as a graph input, given per call
        out = nan_blocked(*expected.shape)
        conv = onednn.conv2d(list(x.shape), w, b, out, (s, s), (p, p), (d, d), g)
        conv(onednn.per_call(x, blocked_out=True))
        torch.testing.assert_close(out.logical(), expected, **TOL)
    else:  # what runtime/host/blocked.py relies on not to plan it
        with pytest.raises(onednn.OneDNNError, match="reference"):
            onednn.conv2d(list(x.shape), w, b, nan_blocked(*expected.shape), (s, s), (p, p),
                          (d, d), g)


@pytest.mark.parametrize("cin,cout,groups", [(32, 32, 2), (48, 48, 3), (32, 32, 32), (16, 32, 1),
                                             (16, 32, 16), (32, 64, 32), (32, 32, 4)])
def test_has_blocked_conv_says_which_grouped_convs_oneDNN_runs_blocked(cin, cout, groups):
    x, w = torch.randn(2, cin, 6, 6), torch.randn(cout, cin // groups, 3, 3)
    out = nan_blocked(2, cout, 6, 6)
    if onednn.has_blocked_conv(cin, cout, groups):
        onednn.conv2d(blocked(x), w, None, out, (1, 1), (1, 1), (1, 1), groups)()
        torch.testing.assert_close(out.logical(), F.conv2d(x, w, None, 1, 1, 1, groups), **TOL)
    else:
        with pytest.raises(onednn.OneDNNError, match="reference"):
            onednn.conv2d(blocked(x), w, None, out, (1, 1), (1, 1), (1, 1), groups)


def test_blocked_residual_sum_then_relu():
    torch.manual_seed(0)
    x, w, b = torch.randn(2, 32, 6, 6), torch.randn(16, 32, 1, 1), torch.randn(16)
    residual = torch.randn(2, 16, 6, 6)
    into = blocked(residual)
    onednn.conv2d(blocked(x), w, b, into, (1, 1), (0, 0), (1, 1), 1,
                  [("sum",), activations.RELU.dnnl_post_op()])()
    torch.testing.assert_close(into.logical(), F.relu(F.conv2d(x, w, b) + residual), **TOL)


@pytest.mark.skipif(BLOCK is None, reason="no native blocked kernel on this CPU")
def test_convs_via_nhwc_share_one_workspace_and_write_every_element():
    """Two convs between blocked buffers through NHWC copies in one workspace:
    the second reserves more than the first, which then runs on the larger bytes."""
    torch.manual_seed(0)
    workspace, runs = onednn.Workspace(), []
    for cin, cout, size, stride in ((16, 32, 6, 1), (32, 16, 9, 2)):
        x, w, b = torch.randn(2, cin, size, size), torch.randn(cout, cin, 3, 3), torch.randn(cout)
        expected = F.relu(F.conv2d(x, w, b, stride, 1))
        out = nan_blocked(*expected.shape)
        run = onednn.conv2d_via_nhwc(blocked(x), w, b, out, (stride, stride), (1, 1), (1, 1), 1,
                                     [activations.RELU.dnnl_post_op()], workspace)
        runs.append((run, out, expected))
    assert workspace.nbytes >= 4 * (2 * 32 * 81 + 2 * 16 * 25)
    for run, out, expected in runs:
        run()
        torch.testing.assert_close(out.logical(), expected, **TOL)
    with pytest.raises(onednn.OneDNNError, match="accumulate"):
        onednn.conv2d_via_nhwc(blocked(x), w, b, out, (2, 2), (1, 1), (1, 1), 1, [("sum",)],
                               workspace)


@pytest.mark.parametrize("layout", ["nhwc", "blocked"])
def test_add_post_op_reads_a_residual_held_elsewhere(layout):
    """A binary add post-op: the residual is read from its own bytes, which
    stay as they were (the sum post-op would need it copied into `out`)."""
    if layout == "blocked" and BLOCK is None:
        pytest.skip("no native blocked kernel on this CPU")
    torch.manual_seed(0)
    x, w, b = torch.randn(2, 16, 6, 6), torch.randn(16, 16, 3, 3), torch.randn(16)
    residual = torch.randn(2, 16, 6, 6)
    expected = F.relu(F.conv2d(x, w, b, 1, 1) + residual)
    if layout == "nhwc":
        src, res = (t.contiguous(memory_format=torch.channels_last) for t in (x, residual))
        out = nhwc(2, 16, 6, 6)
    else:
        src, res, out = blocked(x), blocked(residual), nan_blocked(2, 16, 6, 6)
    kept = (res.data if layout == "blocked" else res).clone()
    primitive = onednn.conv2d(src, w, b, out, (1, 1), (1, 1), (1, 1), 1,
                              [("add", res), activations.RELU.dnnl_post_op()])
    assert not primitive.impl.startswith("ref")
    primitive()
    torch.testing.assert_close(out.logical() if layout == "blocked" else out, expected, **TOL)
    assert torch.equal(res.data if layout == "blocked" else res, kept)


def test_a_conv_mixing_nhwc_and_blocked_is_refused():
    """oneDNN has only its reference loop for it: refused, not run slowly."""
    x, w = nhwc(1, 16, 8, 8), torch.randn(16, 16, 1, 1)
    with pytest.raises(onednn.OneDNNError, match="reference"):
        onednn.conv2d(x, w, None, nan_blocked(1, 16, 8, 8), (1, 1), (0, 0), (1, 1), 1)


@pytest.mark.parametrize("layout", ["blocked", "nhwc"])
@pytest.mark.parametrize("size,kernel,stride,padding,ceil", [
    (12, 3, 2, 1, False), (11, 3, 2, 1, True), (9, 2, 2, 0, True), (8, 3, 1, 1, False)])
def test_max_pool_on_relu_values_matches_torch(size, kernel, stride, padding, ceil, layout):
    torch.manual_seed(0)
    x = F.relu(torch.randn(2, 32, size, size))
    expected = F.max_pool2d(x, kernel, stride, padding, ceil_mode=ceil)
    window = ((kernel,) * 2, (stride,) * 2, (padding,) * 2, (1, 1))
    if layout == "blocked":
        out = nan_blocked(*expected.shape)
        onednn.max_pool2d(blocked(x), out, *window)()
        got = out.logical()
    else:
        got = torch.full_like(expected, float("nan")).contiguous(
            memory_format=torch.channels_last)
        onednn.max_pool2d(x.contiguous(memory_format=torch.channels_last), got, *window)()
    torch.testing.assert_close(got, expected, rtol=0, atol=0)


def test_max_pool_mixing_nhwc_and_blocked_is_refused():
    x = F.relu(torch.randn(1, 16, 8, 8))
    with pytest.raises(onednn.OneDNNError, match="laid out alike"):
        onednn.max_pool2d(blocked(x), torch.empty(1, 16, 4, 4), (2, 2), (2, 2), (0, 0), (1, 1))


def test_blocked_global_avg_pool_matches_the_mean():
    torch.manual_seed(0)
    x = torch.randn(2, 48, 7, 7)
    out = torch.full((2, 48), 7.0)
    onednn.global_avg_pool2d(blocked(x), out)()
    torch.testing.assert_close(out, x.mean(dim=(2, 3)), **TOL)


def test_a_primitive_created_at_two_threads_runs_at_one():
    """oneDNN splits the work when the primitive is created; torch's thread
    count may change after load (same OpenMP pool): still the same result."""
    torch.manual_seed(0)
    x, w, b = nhwc(2, 16, 12, 12), torch.randn(32, 16, 3, 3), torch.randn(32)
    out = nhwc(2, 32, 12, 12)
    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        conv = onednn.conv2d(x, w, b, out, (1, 1), (1, 1), (1, 1), 1)
        torch.set_num_threads(1)
        conv()
    finally:
        torch.set_num_threads(threads)
    torch.testing.assert_close(out, F.conv2d(x, w, b, 1, 1), **TOL)


def test_only_fp32_and_bf16_tensors_are_taken():
    x, w = nhwc(1, 4, 8, 8).half(), torch.randn(8, 4, 3, 3).half()
    with pytest.raises(onednn.OneDNNError, match="take fp32, or bf16 sources and weights"):
        onednn.conv2d(x, w, None, nhwc(1, 8, 8, 8).half(), (1, 1), (1, 1), (1, 1), 1)
    x, w = nhwc(1, 4, 8, 8), torch.randn(8, 4, 3, 3).bfloat16()  # source unlike the weight
    with pytest.raises(onednn.OneDNNError, match="take fp32, or bf16 sources and weights"):
        onednn.conv2d(x, w, None, nhwc(1, 8, 8, 8), (1, 1), (1, 1), (1, 1), 1)


@pytest.mark.parametrize("out_dtype", [torch.float32, torch.bfloat16])
def test_a_bf16_conv_is_built_where_the_cpu_has_one_and_refused_clearly_elsewhere(out_dtype):
    """bf16 sources and weights, fp32 accumulation, the output in `out_dtype`:
    within one bf16 rounding of the fp32 conv of the same bf16 values. On a
    CPU without bf16 instructions oneDNN has no such conv: a OneDNNError."""
    x, w, b = nhwc(1, 16, 8, 8).bfloat16(), torch.randn(32, 16, 3, 3).bfloat16(), torch.randn(32)
    out = torch.empty(1, 32, 8, 8, dtype=out_dtype).contiguous(memory_format=torch.channels_last)
    try:
        conv = onednn.conv2d(x, w, b, out, (1, 1), (1, 1), (1, 1), 1,
                             post_ops=[("eltwise", "relu", 0.0, 0.0)])
    except onednn.OneDNNError as e:
        assert "failed with status" in str(e) or "reference" in str(e)
        assert not onednn.conv_impl(torch.bfloat16).startswith(("brg", "jit"))
        return
    conv()
    want = F.relu(F.conv2d(x.float(), w.float(), b, 1, 1))
    torch.testing.assert_close(out.float(), want, rtol=8e-3, atol=8e-3 * want.abs().max().item())


def test_conv_impl_names_the_fp32_kernel():
    assert onednn.conv_impl(torch.float32).split(":")[0] in ("brgconv", "jit", "brg_conv_fwd")


def test_a_bad_shape_is_a_clear_error():
    x, w = nhwc(1, 4, 8, 8), torch.randn(8, 5, 3, 3)  # weight for 5 input channels
    with pytest.raises(onednn.OneDNNError, match="dnnl_convolution_forward_primitive_desc_create"):
        onednn.conv2d(x, w, None, nhwc(1, 8, 8, 8), (1, 1), (1, 1), (1, 1), 1)


@pytest.mark.parametrize("setting", ["/nonexistent/libdnnl.so.3", "none",
                                     "libc.so.6"])  # no file, turned off, not oneDNN
def test_without_the_library_the_runtime_keeps_torch_ops(setting):
    """GE_ONEDNN_LIBRARY naming no usable library: not available, and the
    executor's convs take torch's ops (and still compute the same thing)."""
    code = (
        "import torch; from torch import nn\n"
        "from runtime.host import onednn\n"
        "from npu_graph import NpuGraph\n"
        "assert not onednn.available()\n"
        "m = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU()).eval()\n"
        "x = torch.randn(1, 3, 8, 8)\n"
        "g = NpuGraph(m, input_spec=(x,)).optimize()\n"
        "names = {r.__name__ for r in g.executable.runners}\n"
        "assert not any('primitive' in n for n in names), names\n"
        "torch.testing.assert_close(g(x), m(x), rtol=1e-4, atol=1e-4)\n"
        "print('ok')\n")
    env = dict(os.environ, GE_ONEDNN_LIBRARY=setting)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
    # a library named and not usable is said (turning it off is not)
    assert ("GE_ONEDNN_LIBRARY=" in done.stderr) == (setting != "none"), done.stderr[-2000:]


def test_bf16_matmul_softmax_and_reorder_on_per_call_buffers():
    """Attention's bf16 pieces: a strided view reordered into a dense bf16
    buffer passed per call (a meta tensor describes it), bf16 @ bf16 into
    fp32 with post-ops, the softmax in place and rounded into bf16 by a
    reorder (as torch rounds), p @ v into a strided
    bf16 view; each against torch on the same bf16 values."""
    from runtime.host import bf16

    if not bf16.native(torch.bfloat16):
        pytest.skip("no bf16 matrix kernels on this CPU")
    torch.manual_seed(0)
    qkv = torch.randn(2, 8, 3, 4, 16).bfloat16()
    q, kt = qkv[:, :, 0].transpose(1, 2), qkv[:, :, 1].permute(0, 2, 3, 1)
    dense = torch.empty_like(q, device="meta")
    buffer = torch.empty(q.numel(), dtype=torch.bfloat16)
    onednn.reorder(q, dense)(buffer)
    assert torch.equal(buffer.view(2, 8, 4, 16).transpose(1, 2), q)
    mask = torch.randn(2, 1, 1, 8)
    scores = torch.empty(2, 4, 8, 8)
    onednn.matmul(dense, kt, scores, [("eltwise", "linear", 0.25, 0.0), ("add", mask)])(buffer)
    torch.testing.assert_close(scores, q.float() @ kt.float() * 0.25 + mask, **TOL)
    want = scores.softmax(-1)
    onednn.softmax(scores)()
    torch.testing.assert_close(scores, want, rtol=1e-6, atol=1e-7)
    p = torch.empty(2, 4, 8, 8, dtype=torch.bfloat16)
    onednn.reorder(scores, p)()
    assert torch.equal(p, scores.bfloat16())
    v = qkv[:, :, 2].transpose(1, 2)
    out = torch.empty(2, 8, 4, 16, dtype=torch.bfloat16)
    onednn.matmul(p, v, out.transpose(1, 2))()
    torch.testing.assert_close(out.transpose(1, 2).float(), p.float() @ v.float(),
                               rtol=8e-3, atol=8e-3)


def test_matmul_refuses_mixed_operand_types():
    with pytest.raises(onednn.OneDNNError, match="fp32, or bf16 operands"):
        onednn.matmul(torch.randn(2, 3).bfloat16(), torch.randn(3, 4), [2, 4])
    with pytest.raises(onednn.OneDNNError, match="fp32, or bf16 operands"):
        onednn.matmul(torch.randn(2, 3), torch.randn(3, 4), torch.empty(2, 4).bfloat16())


def test_a_primitive_bound_at_load_runs_bare_in_the_prepared_loop():
    """The executor calls such a runner's library call directly (no Python
    frame per task); one with per-call arguments has no bare form."""
    from npu_graph.compiler import compile_model

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(),
                                torch.nn.Conv2d(8, 8, 3, padding=1), torch.nn.ReLU(),
                                torch.nn.Conv2d(8, 4, 1)).eval()
    executable = compile_model(model, (torch.randn(1, 3, 8, 8),))
    bare = {executable.runners[i].bare for i in executable.host_order
            if hasattr(executable.runners[i], "bare")}
    assert bare and bare <= {run for run, _ in executable._prepared}
    for _ in range(2):
        x = torch.randn(1, 3, 8, 8)
        torch.testing.assert_close(executable.run(x)[0], model(x), **TOL)
    with pytest.raises(onednn.OneDNNError, match="per call"):
        onednn.matmul([2, 3], torch.randn(3, 4), [2, 4]).as_runner("per_call")
