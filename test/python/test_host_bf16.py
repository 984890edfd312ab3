"""runtime/host/bf16.py: bf16 convs and linears compute bf16 numbers (bf16
inputs and weights, fp32 accumulation, one rounding of the output when it is
bf16) on whichever path this CPU has, and say which path ran."""

import pytest
import torch
import torch.nn.functional as F

from runtime.host import bf16, onednn

pytestmark = pytest.mark.skipif(not onednn.available(), reason="no oneDNN library")


def nhwc(*shape, dtype=torch.float32):
    return torch.randn(*shape).to(dtype).contiguous(memory_format=torch.channels_last)


def close(got, want, rounded: bool):
    """Within one bf16 rounding of the output if it is stored in bf16, else
    within fp32 summation-order noise (the inputs are the same bf16 values)."""
    scale = want.abs().max().item()
    tol = 8e-3 if rounded else 1e-5
    assert (got.float() - want).abs().max().item() <= tol * scale


@pytest.mark.parametrize("out_dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("src_cast", [False, True])
def test_conv_with_residual_and_relu(out_dtype, src_cast):
    g = torch.Generator().manual_seed(0)
    x32 = torch.randn(2, 16, 10, 10, generator=g)
    w = torch.randn(32, 16, 3, 3, generator=g).bfloat16()
    b = torch.randn(32, generator=g).bfloat16()
    residual = nhwc(2, 32, 10, 10, dtype=out_dtype)
    out = nhwc(2, 32, 10, 10, dtype=out_dtype)
    x = x32 if src_cast else x32.bfloat16().contiguous(memory_format=torch.channels_last)
    runner = bf16.conv(x.shape, None if src_cast else x, src_cast, w, b, out, residual,
                       ((1, 1), (1, 1), (1, 1), 1), [("eltwise", "relu", 0.0, 0.0)], 0, 1)
    assert runner is not None
    assert runner.path.split(":")[0] in ("onednn-bf16", "emulated-fp32")
    if onednn.conv_impl(torch.bfloat16).startswith(("none", "ref")):
        assert runner.path.startswith("emulated-fp32")  # never a bf16 claim without a kernel
    runner(x, residual)
    want = F.relu(F.conv2d(x32.bfloat16().float(), w.float(), b.float(), 1, 1)
                  + residual.float())
    close(out, want, out_dtype == torch.bfloat16)


@pytest.mark.parametrize("layout", [torch.contiguous_format, torch.channels_last])
def test_an_fp32_input_in_either_layout_is_converted_right(layout):
    """Contiguous NCHW (a graph input) goes through oneDNN's converting
    reorder, another layout through torch's copy: the same bf16 input."""
    g = torch.Generator().manual_seed(1)
    x = torch.randn(2, 8, 6, 6, generator=g).contiguous(memory_format=layout)
    w = torch.randn(16, 8, 3, 3, generator=g).bfloat16()
    out = nhwc(2, 16, 6, 6)
    runner = bf16.conv(x.shape, None, True, w, None, out, None, ((1, 1), (1, 1), (1, 1), 1),
                       [], 0, None)
    for _ in range(2):
        x.mul_(2)
        runner(x)
        close(out, F.conv2d(x.bfloat16().float(), w.float(), None, 1, 1), rounded=False)


def test_an_fp32_residual_into_a_bf16_output():
    """The residual keeps fp32 while the conv stores bf16: oneDNN's bf16 conv
    reads it with a binary add post-op, the emulated path (a CPU without a
    bf16 conv, such as AVX2 only) sums it in fp32; either way it is read,
    not written."""
    g = torch.Generator().manual_seed(2)
    x = torch.randn(1, 16, 6, 6, generator=g).bfloat16().contiguous(
        memory_format=torch.channels_last)
    w = torch.randn(16, 16, 3, 3, generator=g).bfloat16()
    residual = nhwc(1, 16, 6, 6) * 4
    kept = residual.clone()
    out = nhwc(1, 16, 6, 6, dtype=torch.bfloat16)
    runner = bf16.conv(x.shape, x, False, w, None, out, residual, ((1, 1), (1, 1), (1, 1), 1),
                       [("eltwise", "relu", 0.0, 0.0)], 0, 1)
    assert runner is not None
    runner(x, residual)
    close(out, F.relu(F.conv2d(x.float(), w.float(), None, 1, 1) + residual), rounded=True)
    assert torch.equal(residual, kept)  # read, not written


@pytest.mark.parametrize("out_dtype", [torch.float32, torch.bfloat16])
def test_linear_with_gelu(out_dtype):
    g = torch.Generator().manual_seed(1)
    x32 = torch.randn(6, 64, generator=g)
    w = torch.randn(48, 64, generator=g).bfloat16()
    b = torch.randn(48, generator=g).bfloat16()
    rows = torch.empty(6, 48, dtype=out_dtype)
    runner = bf16.linear(0, 64, None, w, b, rows, [("eltwise", "gelu_erf", 0.0, 0.0)])
    assert runner is not None and runner.path.split(":")[0] in ("onednn-bf16", "emulated-fp32")
    runner(x32)
    want = F.gelu(F.linear(x32.bfloat16().float(), w.float(), b.float()))
    close(rows, want, out_dtype == torch.bfloat16)


def test_an_fp32_input_is_rounded_to_bf16_as_the_cast_does():
    """The emulated path must not compute on the unrounded fp32 input."""
    x = torch.full((1, 8), 1.0 + 2**-10)  # 1 + 2^-10 rounds to 1.0 in bf16
    w = torch.eye(8).bfloat16()
    rows = torch.empty(1, 8)
    bf16.linear(0, 8, None, w, None, rows, [])(x)
    assert torch.equal(rows, torch.ones(1, 8))


@pytest.mark.parametrize("mode", ["allow_fp32_to_bf16", "allow_mix_precision_bf16"])
def test_a_conv_adding_a_graph_input_keeps_the_residual(mode):
    """The residual of a fused conv + add is a graph input: no arena view is
    known at load, so no bf16 runner may take the task (it would drop the add)."""
    from npu_graph.compiler import compile_model

    class ConvPlusInput(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(8, 8, 3, padding=1)

        def forward(self, x, y):
            return torch.relu(self.conv(x) + y)

    torch.manual_seed(0)
    model = ConvPlusInput().eval()
    inputs = (torch.randn(1, 8, 6, 6), 10 * torch.randn(1, 8, 6, 6))
    (got,) = compile_model(model, inputs, precision_mode=mode).run(*inputs)
    want = model(*inputs)
    assert (got - want).abs().max().item() <= 2e-2 * want.abs().max().item()


def test_widened_matmul_is_the_cube_rounding_of_fp32_products():
    """A 16-bit matmul of the kernel table: the exact products summed in fp32
    and rounded once, whichever kernel this CPU runs it with."""
    g = torch.Generator().manual_seed(0)
    a, b = (torch.randn(2, 3, 16, 24, generator=g).bfloat16(),
            torch.randn(2, 3, 24, 8, generator=g).bfloat16())
    got = bf16.widened(torch.matmul, torch.bfloat16)(a, b)
    assert got.dtype == torch.bfloat16
    close(got, a.float() @ b.float(), rounded=True)


@pytest.mark.parametrize("mode", ["allow_fp32_to_bf16", "allow_mix_precision_bf16"])
def test_an_op_by_op_cube_task_names_its_path(mode):
    """Attention's matmuls run op by op: the executable says whether on torch's
    16-bit kernels (this CPU has 16-bit matrix instructions) or widened to fp32,
    and the numbers stay within bf16 rounding of fp32 eager."""
    from npu_graph.compiler import compile_model

    class Attention(torch.nn.Module):
        def forward(self, q, k, v):
            return torch.softmax(q @ k.transpose(-1, -2) / 8.0, dim=-1) @ v

    torch.manual_seed(0)
    inputs = tuple(torch.randn(1, 4, 32, 16) for _ in range(3))
    executable = compile_model(Attention().eval(), inputs, precision_mode=mode)
    (got,) = executable.run(*inputs)
    want = Attention()(*inputs)
    assert (got.float() - want).abs().max().item() <= 3e-2 * want.abs().max().item()
    expected = ("generic:torch-bfloat16" if bf16.native(torch.bfloat16)
                else "generic:emulated-fp32")
    paths = executable.cube_paths()
    assert paths and all(key == f"bf16 {expected}" for key in paths), paths


def test_bf16_staging_is_one_workspace_per_replica():
    """The per-call buffers of bf16 convs (the input rounded to bf16 and
    widened, an fp32 result before its rounding) share the executable's
    workspace: sized for the largest conv, not the sum; replicas running at
    once each have their own and compute what a lone run computes."""
    import threading

    from npu_graph.compiler import compile_model

    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(8, 16, 3, padding=1), torch.nn.ReLU(),
        torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(),
        torch.nn.Conv2d(32, 8, 1)).eval()
    executable = compile_model(model, (torch.randn(2, 8, 12, 12),),
                               precision_mode="allow_fp32_to_bf16")
    assert all("bf16" in key for key in executable.cube_paths()), executable.cube_paths()
    # The largest need: conv 3's 32-channel input rounded to bf16 and widened
    # to fp32 (6 bytes an element; 2 where the CPU has a bf16 kernel). The
    # three convs' needs summed would be 8 + 16 + 32 channels' worth.
    plane = 2 * 12 * 12
    assert 0 < executable.workspace.nbytes <= plane * 32 * 6 + 2 * 64
    assert executable.stats["host_workspace"] * 2**20 == executable.workspace.nbytes
    inputs = [torch.randn(2, 8, 12, 12) for _ in range(4)]
    alone = [executable.run(x)[0].clone() for x in inputs]
    got = [None] * len(inputs)

    def worker(i):
        for _ in range(10):
            got[i] = executable.run(inputs[i])[0].clone()
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(inputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for want, out in zip(alone, got):
        assert torch.equal(out, want)
    for x, want in zip(inputs, alone):
        assert (want - model(x)).abs().max().item() <= 2e-2 * model(x).abs().max().item()


def test_a_bf16_max_pool_after_a_relu_conv_is_onednns():
    """The stem of a ResNet under the mix lists: the max-pool reads the bf16
    ReLU'd conv's output, so oneDNN's pooling (whose max differs from torch's
    only on NaN and -inf) writes its view, as in fp32, where the CPU has it;
    within bf16 rounding of the graph op by op (the convs' sums differ in
    order, the max-pool does not)."""
    from npu_graph.compiler import import_model, lower, optimize, plan_device
    from runtime.executor import GENERIC, Executable

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.ReLU(),
                                torch.nn.MaxPool2d(3, 2, 1), torch.nn.Conv2d(16, 8, 1)).eval()
    x = torch.randn(2, 3, 16, 16)
    module = plan_device(lower(optimize(import_model(model, (x,)),
                                        precision_mode="allow_mix_precision_bf16")))
    executable, generic = Executable(module), Executable(module.clone(), options=GENERIC)
    pool = next(r for t, r in zip(executable.tasks, executable.runners)
                if t.name.startswith("max_pool"))
    if bf16.native(torch.bfloat16):
        assert pool.__name__ == "onednn_max_pool"
    for _ in range(2):
        x = torch.randn(2, 3, 16, 16)
        (got,), (want,) = executable.run(x), generic.run(x)
        close(got, want.float(), rounded=True)
