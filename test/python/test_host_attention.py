"""runtime/host/attention.py: op-fusion's attention group runs as torch's
fused attention kernel, with the body's scale and mask, and exactly the
body's answer where a query sees no key."""

import math

import pytest
import torch
import torch.nn.functional as F

from npu_graph.compiler import compile_model


class Attention(torch.nn.Module):
    """softmax(q @ k^T / sqrt(d) + mask) @ v over heads split from one qkv tensor."""

    def __init__(self, heads=4, scale_by="div"):
        super().__init__()
        self.heads, self.scale_by = heads, scale_by

    def forward(self, qkv, mask):
        b, t, three_d = qkv.shape
        d = three_d // 3 // self.heads
        q, k, v = (x.reshape(b, t, self.heads, d).transpose(1, 2) for x in qkv.split(three_d // 3, -1))
        scores = q @ k.transpose(-1, -2)
        scores = scores / math.sqrt(d) if self.scale_by == "div" else scores * 0.125
        return torch.softmax(scores + mask, dim=-1) @ v


def runs(executable) -> dict[str, str]:
    return {task.name: runner.__name__ for task, runner in zip(executable.tasks, executable.runners)}


@pytest.mark.parametrize("scale_by", ["div", "mul"])
@pytest.mark.parametrize("mask_shape", [(2, 1, 1, 16), (1, 1, 16, 16), (2, 4, 16, 16)])
def test_attention_runs_fused_and_matches_eager(scale_by, mask_shape):
    torch.manual_seed(0)
    model = Attention(scale_by=scale_by).eval()
    inputs = (torch.randn(2, 16, 3 * 32), torch.randn(*mask_shape))
    executable = compile_model(model, inputs)
    assert "attention" in runs(executable).values(), runs(executable)
    for trial in range(2):  # new inputs: nothing is bound at load
        inputs = (torch.randn(2, 16, 3 * 32), 3 * torch.randn(*mask_shape))
        (got,) = executable.run(*inputs)
        torch.testing.assert_close(got, model(*inputs), rtol=1e-5, atol=1e-5)


def test_a_query_that_sees_no_key_gets_the_bodys_nan():
    """Eager's softmax over a row of -inf is NaN; the fused kernel is not asked."""
    torch.manual_seed(0)
    model = Attention().eval()
    mask = torch.zeros(2, 1, 16, 16)
    executable = compile_model(model, (torch.randn(2, 16, 96), mask))
    assert "attention" in runs(executable).values()
    mask[1, 0, 3, :] = float("-inf")
    inputs = (torch.randn(2, 16, 96), mask)
    (got,) = executable.run(*inputs)
    want = model(*inputs)
    assert torch.equal(got.isnan(), want.isnan()) and want.isnan().any()
    torch.testing.assert_close(got.nan_to_num(), want.nan_to_num(), rtol=1e-5, atol=1e-5)


class MaskedFill(torch.nn.Module):
    """GPT-2's way: the scores of masked keys replaced by a fill."""

    def __init__(self, fill):
        super().__init__()
        self.fill = fill

    def forward(self, q, k, v, keep):
        scores = (q @ k.transpose(-1, -2) / 2.0).masked_fill(~keep, self.fill)
        return torch.softmax(scores, dim=-1) @ v


def qkv_and_keep(seed=0):
    g = torch.Generator().manual_seed(seed)
    keep = torch.rand(2, 1, 8, 8, generator=g) > 0.3
    keep[..., 0] = True
    return (*(torch.randn(2, 3, 8, 4, generator=g) for _ in range(3)), keep)


def test_a_fill_that_absorbs_the_scores_runs_fused():
    """masked_fill with finfo.min: the same softmax as an additive mask, even
    for a query that sees no key (uniform over the keys both ways)."""
    model = MaskedFill(torch.finfo(torch.float32).min).eval()
    executable = compile_model(model, qkv_and_keep())
    assert "attention" in runs(executable).values(), runs(executable)
    inputs = qkv_and_keep(1)
    inputs[3][1, 0, 2, :] = False
    (got,) = executable.run(*inputs)
    torch.testing.assert_close(got, model(*inputs), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dead_row", [False, True])
def test_sdpa_with_a_boolean_mask_runs_fused(dead_row):
    """torch's own attention with a boolean mask exports as where(keep, scores,
    -inf) and a safe softmax; a query that sees no key gets 0, from the body."""

    class Sdpa(torch.nn.Module):
        def forward(self, q, k, v, keep):
            return F.scaled_dot_product_attention(q, k, v, attn_mask=keep)

    model = Sdpa().eval()
    executable = compile_model(model, qkv_and_keep())
    assert "attention" in runs(executable).values(), runs(executable)
    inputs = qkv_and_keep(2)
    if dead_row:
        inputs[3][0, 0, 5, :] = False
    (got,) = executable.run(*inputs)
    want = model(*inputs)
    assert not want.isnan().any()
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)


def test_causal_sdpa_runs_fused():
    class Causal(torch.nn.Module):
        def forward(self, q, k, v):
            return F.scaled_dot_product_attention(q, k, v, is_causal=True)

    inputs = qkv_and_keep()[:3]
    executable = compile_model(Causal().eval(), inputs)
    assert "attention" in runs(executable).values(), runs(executable)
    inputs = qkv_and_keep(3)[:3]
    (got,) = executable.run(*inputs)
    torch.testing.assert_close(got, Causal()(*inputs), rtol=1e-5, atol=1e-5)


def test_masked_fill_attention_keeps_the_op_by_op_path():
    """where(mask, fill, scores) with a fill a score can move (-1e4) is not an
    additive mask: not rewritten."""

    class MaskedFill(torch.nn.Module):
        def forward(self, q, k, v, keep):
            scores = (q @ k.transpose(-1, -2)).masked_fill(~keep, -1e4)
            return torch.softmax(scores, dim=-1) @ v

    torch.manual_seed(0)
    inputs = (torch.randn(1, 2, 8, 4), torch.randn(1, 2, 8, 4), torch.randn(1, 2, 8, 4),
              torch.rand(1, 1, 8, 8) > 0.3)
    executable = compile_model(MaskedFill().eval(), inputs)
    assert "attention" not in runs(executable).values()
    (got,) = executable.run(*inputs)
    torch.testing.assert_close(got, MaskedFill()(*inputs), rtol=1e-5, atol=1e-5)


def test_bf16_attention_on_graph_inputs_keeps_the_op_by_op_path():
    """Only oneDNN's primitives, on views bound at load, run a bf16 body;
    torch's fused kernel would compute it in another precision."""
    torch.manual_seed(0)
    inputs = (torch.randn(2, 16, 96), torch.randn(2, 1, 1, 16))
    executable = compile_model(Attention().eval(), inputs,
                               precision_mode="allow_mix_precision_bf16")
    assert "attention" not in runs(executable).values()


def test_keys_shared_across_heads_keep_the_op_by_op_path():
    """One key and value head for all query heads: the body's matmuls
    broadcast it, the fused kernel would not, so the runner is not taken."""

    class SharedKV(torch.nn.Module):
        def forward(self, q, k, v, mask):
            return torch.softmax(q @ k.transpose(-1, -2) * 0.5 + mask, dim=-1) @ v

    torch.manual_seed(0)
    inputs = (torch.randn(1, 4, 8, 16), torch.randn(1, 1, 8, 16), torch.randn(1, 1, 8, 16),
              torch.randn(1, 1, 8, 8))
    executable = compile_model(SharedKV().eval(), inputs)
    assert "attention" not in runs(executable).values()
    (got,) = executable.run(*inputs)
    torch.testing.assert_close(got, SharedKV()(*inputs), rtol=1e-5, atol=1e-5)


class Encoder(torch.nn.Module):
    """BERT's attention: q, k, v from one linear, an additive mask made from the
    0/1 attention mask (`fill` for masked keys): all arena views at load."""

    def __init__(self, fill=torch.finfo(torch.float32).min, heads=4, width=32, merge=False):
        super().__init__()
        self.qkv, self.heads, self.fill = torch.nn.Linear(width, 3 * width), heads, fill
        self.merge = merge  # the heads back into [b, t, width], as BERT does next

    def forward(self, x, keep):
        b, t, width = x.shape
        d = width // self.heads
        q, k, v = (y.reshape(b, t, self.heads, d).transpose(1, 2)
                   for y in self.qkv(x).split(width, -1))
        mask = torch.zeros(b, 1, 1, t).masked_fill(keep[:, None, None, :] == 0, self.fill)
        o = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(d) + mask, dim=-1) @ v
        return o.transpose(1, 2).reshape(b, t, width) if self.merge else o


def encoder_inputs(seed, masked=3):
    g = torch.Generator().manual_seed(seed)
    keep = torch.ones(2, 16, dtype=torch.int64)
    keep[1, -masked:] = 0
    return torch.randn(2, 16, 32, generator=g), keep


@pytest.mark.parametrize("merge", [False, True])
def test_attention_on_views_runs_as_onednn_primitives(merge):
    """q, k, v and the mask bound at load: three oneDNN primitives, scores in
    the shared workspace; new values call after call in the same views. The
    transpose merging the heads back is the group's: no task of its own."""
    from runtime.host import onednn

    if not onednn.available():
        pytest.skip("oneDNN's library is not installed")
    torch.manual_seed(0)
    model = Encoder(merge=merge).eval()
    executable = compile_model(model, encoder_inputs(0))
    assert "onednn_attention" in runs(executable).values(), runs(executable)
    assert not any(name.startswith("transpose") for name in runs(executable)), runs(executable)
    assert executable.stats["host_workspace"] > 0
    for seed in (1, 2):
        inputs = encoder_inputs(seed, masked=seed * 4)
        (got,) = executable.run(*inputs)
        torch.testing.assert_close(got, model(*inputs), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("merge", [False, True])
def test_onednn_attention_gives_the_bodys_nan_for_a_query_with_no_key(merge):
    from runtime.host import onednn

    if not onednn.available():
        pytest.skip("oneDNN's library is not installed")
    torch.manual_seed(0)
    model = Encoder(fill=float("-inf"), merge=merge).eval()
    executable = compile_model(model, encoder_inputs(0))
    assert "onednn_attention" in runs(executable).values(), runs(executable)
    inputs = encoder_inputs(1, masked=16)  # the second sequence sees no key at all
    (got,) = executable.run(*inputs)
    want = model(*inputs)
    assert want[1].isnan().all() and not want[0].isnan().any()
    assert torch.equal(got.isnan(), want.isnan())
    torch.testing.assert_close(got.nan_to_num(), want.nan_to_num(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("merge", [False, True])
def test_attention_on_views_without_primitives_runs_torchs_kernel(merge):
    from runtime.executor import Executable, Options
    from npu_graph.compiler import import_model, lower, optimize, plan_device

    torch.manual_seed(0)
    model = Encoder(merge=merge).eval()
    module = plan_device(lower(optimize(import_model(model, encoder_inputs(0)))))
    executable = Executable(module, options=Options(primitives=False))
    assert "attention" in runs(executable).values(), runs(executable)
    inputs = encoder_inputs(3)
    (got,) = executable.run(*inputs)
    torch.testing.assert_close(got, model(*inputs), rtol=1e-5, atol=1e-5)


def test_long_sequences_keep_torchs_kernel():
    """Past 256 x 256 scores per head torch's flash kernel, which never
    writes the scores, is the faster one."""
    torch.manual_seed(0)
    model = Encoder().eval()
    inputs = (torch.randn(1, 272, 32), torch.ones(1, 272, dtype=torch.int64))
    executable = compile_model(model, inputs)
    assert "attention" in runs(executable).values(), runs(executable)
    (got,) = executable.run(*inputs)
    torch.testing.assert_close(got, model(*inputs), rtol=1e-5, atol=1e-5)


def bf16_attention(mode, merge, fill=torch.finfo(torch.float32).min):
    """The encoder compiled under `mode`, and the same graph op by op (the
    generic path: the body's own casts and 16-bit kernels)."""
    from npu_graph.compiler import import_model, lower, optimize, plan_device
    from runtime.executor import GENERIC, Executable

    torch.manual_seed(0)
    model = Encoder(fill=fill, merge=merge).eval()
    module = plan_device(lower(optimize(import_model(model, encoder_inputs(0)),
                                        precision_mode=mode)))
    return model, Executable(module), Executable(module.clone(), options=GENERIC)


@pytest.mark.parametrize("mode", ["allow_mix_precision_bf16", "allow_fp32_to_bf16"])
@pytest.mark.parametrize("merge", [False, True])
def test_bf16_attention_on_views_runs_as_onednn_bf16_primitives(mode, merge):
    """bf16 matmuls (q, k, v bf16 views of the QKV linear's result under the
    mix lists, fp32 ones converted per call under allow_fp32_to_bf16): bf16
    primitives with fp32 scores, on a CPU with bf16 kernels; else the body
    op by op. Either way the body's answer to bf16 rounding, call after call."""
    from runtime.host import bf16, onednn

    model, executable, generic = bf16_attention(mode, merge)
    task = next(t for t in executable.tasks if t.name.startswith("attention"))
    runner = executable.runners[executable.tasks.index(task)]
    if onednn.available() and bf16.native(torch.bfloat16):
        assert runner.__name__ == "onednn_attention"
        assert runner.path.startswith("onednn-bf16:brg"), runner.path  # dense copies: brgemm
    else:
        assert runner.__name__ == "generic"
    for seed in (1, 2):
        inputs = encoder_inputs(seed, masked=seed * 4)
        (got,), (body,) = executable.run(*inputs), generic.run(*inputs)
        want = model(*inputs)
        torch.testing.assert_close(got.float(), body.float(), rtol=2e-2, atol=2e-2)
        assert ((got.float() - want).norm() / want.norm()) < 1e-2


def test_bf16_onednn_attention_gives_the_bodys_nan_for_a_query_with_no_key():
    """A -inf fill: bf16 keeps it, and oneDNN's softmax makes the row NaN as
    the body's does."""
    model, executable, generic = bf16_attention("allow_mix_precision_bf16", True,
                                                fill=float("-inf"))
    inputs = encoder_inputs(1, masked=16)
    (got,), (body,) = executable.run(*inputs), generic.run(*inputs)
    assert body[1].isnan().all() and not body[0].isnan().any()
    assert torch.equal(got.isnan(), body.isnan())
    torch.testing.assert_close(got[0].float(), body[0].float(), rtol=2e-2, atol=2e-2)


class GroupedQuery(torch.nn.Module):
    """Llama's attention over a cache: repeat_kv's KV heads, a float mask."""

    def __init__(self, heads=8, kv_heads=2):
        super().__init__()
        self.groups = heads // kv_heads

    def forward(self, q, k, v, mask):
        b, kvh, s, d = k.shape
        k = k[:, :, None].expand(b, kvh, self.groups, s, d).reshape(b, kvh * self.groups, s, d)
        v = v[:, :, None].expand(b, kvh, self.groups, s, d).reshape(b, kvh * self.groups, s, d)
        scores = q @ k.transpose(2, 3) * d ** -0.5 + mask
        return (torch.softmax(scores, dim=-1) @ v).transpose(1, 2)


@pytest.mark.parametrize("queries,mask_heads", [(1, 1), (3, 1), (3, 8), (1, 8)])
def test_grouped_query_attention_reads_the_kv_heads_without_repeating_them(queries, mask_heads):
    """The repeat of each KV head joins the attention task, whose kernel then
    reads the 2 cached heads for 8 query heads: no copy of the cache, eager's numbers."""
    torch.manual_seed(0)
    model = GroupedQuery().eval()

    def inputs():
        mask = torch.randn(2, mask_heads, queries, 12)
        return (torch.randn(2, 8, queries, 16), torch.randn(2, 2, 12, 16),
                torch.randn(2, 2, 12, 16), mask)
    executable = compile_model(model, inputs())
    fused = [r for r in executable.runners if getattr(r, "groups", 1) > 1]
    assert [r.groups for r in fused] == [4], runs(executable)
    assert not any("expand" in t.name for t in executable.tasks), runs(executable)
    for trial in range(2):
        x = inputs()
        (got,) = executable.run(*x)
        torch.testing.assert_close(got, model(*x), rtol=1e-4, atol=1e-4)
