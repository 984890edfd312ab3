"""The host's small C kernels (runtime/host/cc.py): RMSNorm
(runtime/host/rms_norm.py) and the rotary embedding (runtime/host/rotary.py)
against torch, what they refuse, the task runners that use them, and the
torch ops those runners keep without a C compiler."""

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from runtime.executor import GENERIC, Executable
from runtime.host import cc, gemv, rms_norm, rotary, row_attention
from test.python.test_host_runners import compiled

TOL = dict(rtol=1e-5, atol=1e-5)

pytestmark = pytest.mark.skipif(None in (rms_norm.library(), rotary.library(),
                                        row_attention.library()),
                                reason="no C compiler: the torch paths are tested elsewhere")


# --- RMSNorm ---------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(1, 1, 512), (3, 7, 37), (40, 1024), (1, 1), (5,)])
@pytest.mark.parametrize("weighted", [True, False])
@pytest.mark.parametrize("residual", [True, False])
def test_rms_norm_matches_torch(shape, weighted, residual):
    torch.manual_seed(0)
    x = torch.randn(shape) + 3.0
    r = torch.randn(shape) if residual else None
    w = torch.randn(shape[-1]) if weighted else None
    out = torch.full(shape, float("nan"))
    call = rms_norm.kernel(x, w, out, 1e-6, residual=r)
    assert call is not None
    call()
    torch.testing.assert_close(out, rms_norm.reference(x, w, 1e-6, r), **TOL)


def test_rms_norm_in_place_and_on_strided_rows():
    torch.manual_seed(0)
    x, r, w = torch.randn(4, 24), torch.randn(4, 24), torch.randn(24)
    want = rms_norm.reference(x, w, 1e-5, r)
    rms_norm.kernel(x, w, x, 1e-5, residual=r)()  # out is x: each element read first
    torch.testing.assert_close(x, want, **TOL)
    wide = torch.randn(6, 40)
    rows, out = wide[::2, 3:27], torch.empty(6, 40)[1::2, :24]  # evenly spaced rows
    rms_norm.kernel(rows, w, out, 1e-5)()
    torch.testing.assert_close(out, rms_norm.reference(rows, w, 1e-5), **TOL)


def test_rms_norm_refuses_what_it_cannot_run():
    w = torch.randn(8)
    buf = torch.randn(5, 8)
    cases = {
        "a row not contiguous": (torch.randn(4, 16)[:, ::2], torch.empty(4, 8)),
        "rows not evenly spaced": (torch.randn(3, 4, 8)[:, :3], torch.empty(3, 3, 8)),
        "fp64": (torch.randn(2, 8, dtype=torch.float64), torch.empty(2, 8, dtype=torch.float64)),
        "out partly over x": (buf[:4], buf[1:]),
        "shapes differ": (torch.randn(2, 8), torch.empty(1, 8)),
    }
    for name, (x, out) in cases.items():
        assert rms_norm.kernel(x, w, out, 1e-6) is None, name
    assert rms_norm.kernel(torch.randn(2, 8), torch.randn(7), torch.empty(2, 8), 1e-6) is None
    assert rms_norm.kernel(torch.randn(2, 8), torch.randn(8)[None].expand(2, 8)[0],
                           torch.empty(2, 8), 1e-6) is not None  # a contiguous row is fine


# --- rotary embedding --------------------------------------------------------------

ROTARY_SHAPES = [  # x, cos and sin
    ((1, 8, 1, 64), (1, 1, 1, 64)),  # a decode step's heads
    ((2, 3, 5, 6), (2, 1, 5, 6)),
    ((3, 5, 2, 4), (5, 1, 4)),  # fewer dims than x
    ((7, 10), (7, 10)),
    ((2,), (2,)),
    ((4, 9, 70, 32), (1, 1, 70, 32)),  # rows enough for the thread pool
]


@pytest.mark.parametrize("shapes", ROTARY_SHAPES)
def test_rotary_matches_torch(shapes):
    torch.manual_seed(0)
    x, cos, sin = torch.randn(shapes[0]), torch.randn(shapes[1]), torch.randn(shapes[1])
    out = torch.full(shapes[0], float("nan"))
    rotary.kernel(x, cos, sin, out)()
    torch.testing.assert_close(out, rotary.reference(x, cos, sin), **TOL)


def test_rotary_reads_heads_split_by_a_transpose():
    torch.manual_seed(0)
    x = torch.randn(1, 3, 8, 16).transpose(1, 2)  # [b, heads, t, d], not contiguous
    cos, sin = torch.randn(1, 1, 3, 16), torch.randn(1, 1, 3, 16)
    out = torch.empty(1, 8, 3, 16)
    rotary.kernel(x, cos, sin, out)()
    torch.testing.assert_close(out, rotary.reference(x, cos, sin), **TOL)


def test_rotary_refuses_what_it_cannot_run():
    c = torch.randn(1, 6)
    buf = torch.randn(4, 6)
    cases = {
        "odd last dim": (torch.randn(2, 5), torch.randn(1, 5), torch.empty(2, 5)),
        "last dim strided": (torch.randn(2, 12)[:, ::2], c, torch.empty(2, 6)),
        "out over x": (buf, c, buf),
        "5-D": (torch.randn(1, 1, 1, 2, 6), c, torch.empty(1, 1, 1, 2, 6)),
        "fp64": (torch.randn(2, 6, dtype=torch.float64), c.double(),
                 torch.empty(2, 6, dtype=torch.float64)),
        "cos does not broadcast": (torch.randn(2, 6), torch.randn(3, 6), torch.empty(2, 6)),
    }
    for name, (x, cos, out) in cases.items():
        assert rotary.kernel(x, cos, cos, out) is None, name


# --- the task runners ----------------------------------------------------------------

class Llamaish(nn.Module):
    """An RMSNorm after a sum of two task results (one C call with the add),
    one alone after a linear, and the rotary embedding of heads."""

    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(16, 16), nn.Linear(16, 16)
        self.w = nn.Parameter(torch.randn(16))

    def norm(self, x):
        return self.w * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6))

    def forward(self, x, pos):
        h, g = self.a(x), self.b(x)
        q = self.norm(self.a(x)).view(1, 3, 4, 4).transpose(1, 2)
        cos, sin = torch.cos(pos)[:, None], torch.sin(pos)[:, None]
        half = torch.cat((-q[..., 2:], q[..., :2]), dim=-1)
        return self.norm(h + g), h * 2, g * 3, q * cos + half * sin


def _bare(executable) -> dict[str, bool]:
    """runner name -> whether it is a call bound at load (no Python frame)."""
    return {r.__name__: hasattr(r, "bare") for r in executable.runners}


def test_runners_make_one_bound_c_call_and_match_eager():
    torch.manual_seed(0)
    inputs = (torch.randn(1, 3, 16), torch.randn(1, 3, 4))
    module, expected = compiled(Llamaish(), inputs)
    fast = Executable(module)
    bare = _bare(fast)
    assert bare.get("add_rms_norm") and bare.get("rms_norm") and bare.get("rotary"), bare
    for trial in range(2):
        args = inputs if trial == 0 else tuple(torch.randn_like(v) for v in inputs)
        want = expected if trial == 0 else Executable(module, options=GENERIC).run(*args)
        for got, ref in zip(fast.run(*args), want):
            torch.testing.assert_close(got, ref, rtol=1e-4, atol=1e-4)


def test_without_a_compiler_the_runners_keep_torch_ops(monkeypatch):
    torch.manual_seed(0)
    inputs = (torch.randn(1, 3, 16), torch.randn(1, 3, 4))
    module, expected = compiled(Llamaish(), inputs)
    monkeypatch.setenv("GE_HOST_C_KERNELS", "none")
    cc._load.cache_clear()
    try:
        assert rms_norm.library() is None
        fast = Executable(module)
    finally:
        monkeypatch.delenv("GE_HOST_C_KERNELS")
        cc._load.cache_clear()
    bare = _bare(fast)
    assert {"add_rms_norm", "rms_norm", "rotary"} <= set(bare), bare
    assert not any(bare[n] for n in ("add_rms_norm", "rms_norm", "rotary")), bare
    for got, want in zip(fast.run(*inputs), expected):
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)


# --- attention of a few queries --------------------------------------------------------

ATTENTION_CASES = [  # B, H, KVH, T, S, D, E, mask kind
    (1, 8, 4, 1, 160, 64, 64, row_attention.KEEP_TRUE),  # a Llama decode step
    (1, 8, 4, 1, 161, 64, 64, row_attention.KEEP_FALSE),
    (2, 6, 2, 3, 37, 10, 12, row_attention.ADDITIVE),
    (2, 4, 4, 5, 33, 8, 8, row_attention.NO_MASK),
    (1, 16, 8, 1, 600, 64, 64, row_attention.KEEP_TRUE),  # enough work for the pool
    (1, 4, 2, 2, 3000, 16, 8, row_attention.KEEP_FALSE),  # a long cache, keys skipped
    (1, 2, 1, 1, 1, 3, 5, row_attention.NO_MASK),
]


def _attention_inputs(b, h, kvh, t, s, d, e, kind, seed=0):
    g = torch.Generator().manual_seed(seed)
    q, k, v = (torch.randn(shape, generator=g)
               for shape in ((b, h, t, d), (b, kvh, s, d), (b, kvh, s, e)))
    mask = {row_attention.NO_MASK: None,
            row_attention.ADDITIVE: torch.randn((b, 1, t, s), generator=g)}.get(
        kind, torch.rand((1, 1, t, s), generator=g) > 0.3)
    return q, k, v, mask


@pytest.mark.parametrize("case", ATTENTION_CASES)
@pytest.mark.parametrize("bound", [True, False])
def test_row_attention_matches_torch(case, bound):
    *dims, kind = case
    b, h, kvh, t, s, d, e = dims
    q, k, v, mask = _attention_inputs(*case)
    groups = h // kvh
    kt = k.transpose(-1, -2) if groups == 1 else k  # ungrouped bodies give k^T
    fill = torch.finfo(torch.float32).min if kind == row_attention.KEEP_FALSE else float("-inf")
    out = torch.full((b, h, t, e), float("nan"))
    given = [q, kt, v, mask]
    operands = [(i, x if bound else None, tuple(x.shape)) for i, x in enumerate(given)
                if x is not None]
    call = row_attention.runner(*operands[:3], operands[3] if mask is not None else None, kind,
                                fill, 0.125, out, groups, k_transposed=groups == 1)
    assert call is not None and call(given)
    want = row_attention.reference(q, k, v, mask, kind, fill, 0.125, groups)
    torch.testing.assert_close(out, want, **TOL)
    if not bound:  # new tensors per call are read where they are
        q2, k2, v2, _ = _attention_inputs(*case, seed=1)
        assert call([q2, k2.transpose(-1, -2) if groups == 1 else k2, v2, mask])
        want = row_attention.reference(q2, k2, v2, mask, kind, fill, 0.125, groups)
        torch.testing.assert_close(out, want, **TOL)
        assert not call([q2[..., :-1], kt, v2, mask])  # not the shape bound: torch's turn


def test_row_attention_rows_without_keys():
    q, k, v, _ = _attention_inputs(1, 4, 2, 2, 6, 8, 8, row_attention.KEEP_TRUE)
    mask = torch.tensor([[True] * 6, [False] * 6])[None, None]  # the second query sees none
    for safe in (False, True):
        out = torch.empty(1, 4, 2, 8)
        call = row_attention.runner((0, q, q.shape), (1, k, k.shape), (2, v, v.shape),
                                    (3, mask, mask.shape), row_attention.KEEP_TRUE,
                                    float("-inf"), 0.5, out, 2, False, safe=safe)
        assert call([q, k, v, mask])
        want = row_attention.reference(q, k, v, mask, row_attention.KEEP_TRUE, float("-inf"),
                                       0.5, 2, safe=safe)
        torch.testing.assert_close(out, want, **TOL, equal_nan=True)
        assert bool(out[:, :, 1].isnan().all()) != safe


def test_row_attention_refuses_what_it_cannot_run():
    q, k, v, mask = _attention_inputs(1, 4, 2, 1, 6, 8, 8, row_attention.KEEP_TRUE)
    ok = dict(q=(0, q, q.shape), k=(1, k, k.shape), v=(2, v, v.shape), mask=(3, mask, mask.shape))
    out = torch.empty(1, 4, 1, 8)

    def make(target=out, **change):
        args = {**ok, **change}
        return row_attention.runner(args["q"], args["k"], args["v"], args["mask"],
                                    row_attention.KEEP_TRUE, float("-inf"), 1.0, target, 2,
                                    False)
    assert make() is not None
    many = torch.randn(1, 4, row_attention.MAX_QUERIES + 1, 8)
    assert make(q=(0, many, many.shape)) is None, "prefill: too many queries"
    strided = torch.randn(1, 2, 6, 16)[..., ::2]
    assert make(k=(1, strided, strided.shape)) is None, "head dim not contiguous"
    assert make(target=torch.empty(1, 4, 1, 8, dtype=torch.float64)) is None
    wrong = torch.rand(1, 1, 1, 5) > 0.5
    assert make(mask=(3, wrong, wrong.shape)) is None, "the mask does not broadcast"


def test_row_attention_with_a_finite_fill_everywhere_averages_v():
    """finfo.min as the fill (Hugging Face's masks): a query that sees no key
    gets equal scores, so the mean of v's rows, as the body computes it."""
    q, k, v, _ = _attention_inputs(1, 4, 2, 2, 6, 8, 8, row_attention.KEEP_TRUE)
    mask = torch.tensor([[True, False, True, False, False, True], [False] * 6])[None, None]
    fill = torch.finfo(torch.float32).min
    out = torch.empty(1, 4, 2, 8)
    call = row_attention.runner((0, q, q.shape), (1, k, k.shape), (2, v, v.shape),
                                (3, mask, mask.shape), row_attention.KEEP_TRUE, fill, 0.5, out,
                                2, False)
    assert call([q, k, v, mask])
    want = row_attention.reference(q, k, v, mask, row_attention.KEEP_TRUE, fill, 0.5, 2)
    torch.testing.assert_close(out, want, **TOL)
    torch.testing.assert_close(out[0, :, 1], v.mean(2)[0].repeat_interleave(2, 0), **TOL)


# --- the one-row linear (runtime/host/gemv.py) -------------------------------------------

needs_gemv = pytest.mark.skipif(gemv.library() is None, reason="no AVX-512 or no C compiler")


@needs_gemv
@pytest.mark.parametrize("n,k", [(1024, 512), (37, 21), (3, 16), (1, 5), (8000, 64)])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("residual", [None, "apart", "the output's bytes"])
def test_gemv_matches_torch(n, k, bias, residual):
    torch.manual_seed(0)
    x, w = torch.randn(1, 1, k), torch.randn(n, k)
    b = torch.randn(n) if bias else None
    out = torch.full((1, n), float("nan"))
    r = {None: None, "apart": torch.randn(1, n), "the output's bytes": out}[residual]
    if r is out:
        out.normal_()
    want = torch.nn.functional.linear(x.view(1, k), w, b) + (r.clone() if r is not None else 0)
    run = gemv.linear(x, w, b, out, r)
    assert run is not None and hasattr(run, "bare")
    run.bare()
    torch.testing.assert_close(out, want, rtol=1e-4, atol=1e-4)


@needs_gemv
@pytest.mark.parametrize("n,k", [(1376, 512), (13, 35)])
@pytest.mark.parametrize("bias", [True, False])
def test_gated_gemv_matches_torch(n, k, bias):
    torch.manual_seed(0)
    x, g, u = torch.randn(1, k), torch.randn(n, k), torch.randn(n, k)
    gb, ub = (torch.randn(n), torch.randn(n)) if bias else (None, None)
    out = torch.full((1, n), float("nan"))
    run = gemv.gated(x, g, u, gb, ub, out)
    assert run is not None
    run()
    want = torch.nn.functional.silu(torch.nn.functional.linear(x, g, gb)) \
        * torch.nn.functional.linear(x, u, ub)
    torch.testing.assert_close(out, want, rtol=1e-4, atol=1e-4)


@needs_gemv
def test_gemv_refuses_what_it_cannot_run():
    x, w, out = torch.randn(1, 8), torch.randn(4, 8), torch.empty(1, 4)
    cases = {
        "two rows": (torch.randn(2, 8), w, out),
        "weight transposed": (x, torch.randn(8, 4).t(), out),
        "bf16 weight, fp32 rows": (x, w.bfloat16(), out),
        "strided output": (x, w, torch.empty(1, 8)[:, ::2]),
        "output over the input": (x, w, x[:, :4]),
    }
    for name, (xi, wi, oi) in cases.items():
        assert gemv.linear(xi, wi, None, oi) is None, name
    assert gemv.gated(x, w, torch.randn(4, 7), None, None, out) is None


# --- bf16: a bf16 model's decode step ----------------------------------------------------

BF16_ULP = dict(rtol=2**-7, atol=0.0)  # one bf16 rounding step, relative


def _mostly_equal(got: torch.Tensor, want: torch.Tensor, share: float = 0.99) -> None:
    """Equal bit for bit but for a few elements, those one rounding step off:
    the kernel rounds where torch's bf16 ops round; only fp32 sums taken in
    another order may land a value on the other side of a bf16 rounding."""
    assert got.dtype == want.dtype == torch.bfloat16
    torch.testing.assert_close(got.float(), want.float(), **BF16_ULP)
    assert (got == want).float().mean() >= share


@pytest.mark.parametrize("n,k", [(7, 33), (1024, 1024), (1024, 2816)])
def test_gemv_bf16_rounds_as_the_model(n, k):
    """A bf16 decode step's linear (bias; the residual added in place, rounded
    again as the body's add is) and gated MLP (silu, then the product, each
    rounded), against torch's bf16 ops."""
    torch.manual_seed(0)
    x, w, up = torch.randn(1, k).bfloat16(), torch.randn(n, k).bfloat16(), torch.randn(n, k).bfloat16()
    bias, residual = torch.randn(n).bfloat16(), torch.randn(1, n).bfloat16()
    rows = residual.clone()  # the memory plan's in-place residual
    gemv.linear(x, w, bias, rows, rows)()
    _mostly_equal(rows, F.linear(x, w, bias) + residual)
    out = torch.full((1, n), float("nan"), dtype=torch.bfloat16)
    gemv.gated(x, w, up, None, bias, out)()
    _mostly_equal(out, F.silu(F.linear(x, w)) * F.linear(x, up, bias))


@pytest.mark.parametrize("n,k", [(7, 33), (64, 1000)])
def test_gemv_bf16_without_avx512_bf16_rounds_as_the_model(n, k):
    """The loops a CPU without AVX512_BF16 builds (rows widened to fp32,
    x widened once into the scratch), built here with the feature's macro
    taken away."""
    if gemv.library() is None:
        pytest.skip("no AVX-512 or no C compiler")
    # after the intrinsics' headers, whose target pragmas define the macro again
    source = gemv._SOURCE.replace("#ifdef __AVX512BF16__",
                                  "#undef __AVX512BF16__\n#ifdef __AVX512BF16__", 1)
    lib = cc.load("gemv_widened", source, gemv._SIGNATURES)
    torch.manual_seed(0)
    x, w, up = torch.randn(k).bfloat16(), torch.randn(n, k).bfloat16(), torch.randn(n, k).bfloat16()
    bias, scratch = torch.randn(n).bfloat16(), torch.full((k,), float("nan"))
    out = torch.full((n,), float("nan"), dtype=torch.bfloat16)
    lib.gemv_bf16(w.data_ptr(), x.data_ptr(), scratch.data_ptr(), bias.data_ptr(), None,
                  out.data_ptr(), n, k)
    _mostly_equal(out, F.linear(x, w, bias))
    assert torch.equal(scratch, x.float())  # the widening loop ran, not vdpbf16ps
    lib.gated_bf16(w.data_ptr(), up.data_ptr(), x.data_ptr(), scratch.data_ptr(), None,
                   bias.data_ptr(), out.data_ptr(), n, k)
    _mostly_equal(out, F.silu(F.linear(x, w)) * F.linear(x, up, bias))


@pytest.mark.parametrize("shape", [(1, 1, 512), (3, 7, 37), (40, 1024), (5,)])
@pytest.mark.parametrize("weighted", [True, False])
def test_rms_norm_bf16_rounds_as_the_model(shape, weighted):
    """HF's RMSNorm on bf16: normalized in fp32, rounded, times the weight, rounded."""
    torch.manual_seed(0)
    x = (torch.randn(shape) + 3.0).bfloat16()
    w = torch.randn(shape[-1]).bfloat16() if weighted else None
    out = torch.full(shape, float("nan"), dtype=torch.bfloat16)
    call = rms_norm.kernel(x, w, out, 1e-6)
    assert call is not None
    call()
    _mostly_equal(out, rms_norm.reference(x, w, 1e-6))
    assert rms_norm.kernel(x, w, torch.empty(shape), 1e-6) is None  # bf16 in, fp32 out


@pytest.mark.parametrize("shapes", ROTARY_SHAPES)
def test_rotary_bf16_is_the_bf16_body_bit_for_bit(shapes):
    torch.manual_seed(0)
    x, cos, sin = (torch.randn(s).bfloat16() for s in (shapes[0], shapes[1], shapes[1]))
    out = torch.full(shapes[0], float("nan"), dtype=torch.bfloat16)
    rotary.kernel(x, cos, sin, out)()
    assert torch.equal(out, rotary.reference(x, cos, sin))  # each op rounded as torch's
    assert rotary.kernel(x, cos.float(), sin, out) is None  # mixed types


@pytest.mark.parametrize("case", ATTENTION_CASES)
def test_row_attention_bf16_is_fp32_inside(case):
    """bf16 q, k, v: the fp32 attention of the same values, rounded once."""
    *dims, kind = case
    b, h, kvh, t, s, d, e = dims
    q, k, v, mask = (x.bfloat16() if x is not None and x.is_floating_point() else x
                     for x in _attention_inputs(*case))
    groups = h // kvh
    kt = k.transpose(-1, -2) if groups == 1 else k
    out = torch.full((b, h, t, e), float("nan"), dtype=torch.bfloat16)
    given = [q, kt, v, mask]
    operands = [(i, None, tuple(x.shape)) for i, x in enumerate(given) if x is not None]
    call = row_attention.runner(*operands[:3], operands[3] if mask is not None else None, kind,
                                float("-inf"), 0.125, out, groups, k_transposed=groups == 1)
    assert call is not None and call(given)
    want = row_attention.reference(q.float(), k.float(), v.float(),
                                   mask.float() if kind == row_attention.ADDITIVE else mask,
                                   kind, float("-inf"), 0.125, groups).bfloat16()
    _mostly_equal(out, want, share=0.95)
    assert not call([q.float(), kt, v, mask])  # fp32 q where bf16 was bound: not taken


def test_bf16_decode_tails_match_torch():
    """A linear added into its residual's bytes, and the gated MLP, at one
    row: oneDNN's bf16 GEMV, then the body's bf16 add, or silu and product."""
    from runtime.host import bf16

    torch.manual_seed(0)
    x = torch.randn(1, 64).bfloat16()
    w, wg, wu = (torch.randn(48, 64).div(8).bfloat16() for _ in range(3))
    residual = torch.randn(1, 48).bfloat16()
    rows = residual.clone()
    run = bf16.linear_add(x, w, None, rows, [])
    assert run is not None
    run()
    _mostly_equal(rows, residual + nn.functional.linear(x, w), share=0.95)
    out = torch.empty(1, 48, dtype=torch.bfloat16)
    run = bf16.gated_mlp(x, [wg, wu], [None, None], out)
    assert run is not None
    run()
    linear = nn.functional.linear
    _mostly_equal(out, nn.functional.silu(linear(x, wg)) * linear(x, wu), share=0.9)
    assert bf16.gated_mlp(x, [wg, wu], [None, None], torch.empty(8, 48, dtype=torch.bfloat16)) \
        is None  # prefill rows: the body op by op


def test_bf16_llama_decode_step_runs_bound_kernels_and_matches_eager():
    """A bf16 Llama's decode step over its static cache: norms, rotary and
    linears (the GEMV, runtime/host/gemv.py) are C calls, attention the C
    loop; logits as eager bf16's."""
    import transformers
    from transformers.integrations.executorch import TorchExportableModuleWithStaticCache

    import npu_graph

    torch.manual_seed(0)
    config = transformers.LlamaConfig(vocab_size=256, hidden_size=64, intermediate_size=128,
                                      num_hidden_layers=2, num_attention_heads=4,
                                      num_key_value_heads=2, max_position_embeddings=64)
    model = transformers.LlamaForCausalLM(config).eval().to(torch.bfloat16)
    with torch.no_grad():  # weights other than ones: the norms keep their products
        for layer in model.model.layers:
            layer.input_layernorm.weight.uniform_(0.5, 1.5)
    model.generation_config.cache_implementation = "static"
    eager, ours = (TorchExportableModuleWithStaticCache(model, batch_size=1, max_cache_len=32)
                   for _ in range(2))
    compiled = npu_graph.NpuGraph(ours, input_spec=(torch.tensor([[1]]), None,
                                                    torch.tensor([0]))).optimize()
    exe = compiled.executable
    paths = {}
    for task, runner in zip(exe.tasks, exe.runners):
        kind = "+".join(op.name.removeprefix("ge.") for op in task.op.body.block.ops
                        if op.name != "ge.yield")
        paths.setdefault(kind, set()).add(
            getattr(runner, "path", "bare" if hasattr(runner, "bare") else
                    getattr(runner, "__name__", "generic")))
    assert paths["cast+rms_norm+cast+mul"] == paths["cast+rms_norm+cast"] == {"bare"}, paths
    assert paths["mul+slice+slice+neg+concat+mul+add"] == {"bare"}, paths
    assert {p for k, ps in paths.items() if "linear" in k for p in ps} == {"bare"}, paths
    assert {p for k, ps in paths.items() if "softmax" in k for p in ps} \
        == {"c-loop-bf16:row_attention"}, paths
    for pos, token in enumerate([3, 17, 99, 5]):
        got = compiled(torch.tensor([[token]]), None, torch.tensor([pos]))
        with torch.no_grad():
            want = eager(torch.tensor([[token]]), cache_position=torch.tensor([pos]))
        torch.testing.assert_close(got.float(), want.float(), rtol=2e-2, atol=2e-2)
        assert got.argmax() == want.argmax()


def test_row_attention_over_a_cache_of_any_length():
    """k, v and the mask with a `?` number of keys (a dynamic cache's): each
    call reads the length from k; a call whose tensors disagree is refused."""
    unknown = -(2**63)  # xDSL's `?`
    b, h, kvh, d = 1, 4, 2, 8
    q = torch.randn(b, h, 1, d)
    out = torch.empty(b, h, 1, d)
    call = row_attention.runner((0, q, q.shape), (1, None, (b, kvh, unknown, d)),
                                (2, None, (b, kvh, unknown, d)), (3, None, (1, 1, 1, unknown)),
                                row_attention.KEEP_TRUE, float("-inf"), 0.3, out, 2, False)
    assert call is not None and call.any_length and not hasattr(call, "bind")
    for length in (5, 11, 1, 300):
        k, v = torch.randn(b, kvh, length, d), torch.randn(b, kvh, length, d)
        mask = torch.rand(1, 1, 1, length) > 0.3
        mask[..., 0] = True
        assert call([q, k, v, mask])
        want = row_attention.reference(q, k, v, mask, row_attention.KEEP_TRUE,
                                       float("-inf"), 0.3, 2)
        torch.testing.assert_close(out, want, **TOL)
    k = torch.randn(b, kvh, 6, d)
    assert not call([q, k, torch.randn(b, kvh, 7, d), torch.ones(1, 1, 1, 6, dtype=torch.bool)])
    assert not call([q, k, k, torch.ones(1, 1, 1, 5, dtype=torch.bool)])
    long = torch.randn(b, kvh, row_attention.MAX_KEYS + 1, d)
    assert not call([q, long, long, torch.ones(1, 1, 1, long.shape[2], dtype=torch.bool)])
