"""npu_graph.custom_op: the escape hatch for ops the importer does not know."""

import pytest
import torch
from torch import nn
from xdsl.parser import Parser

import npu_graph
from ge_dialect import ge, make_context
from lowering.torch_to_ge import GEImportError, UnsupportedOpError, import_module
from npu_graph.compiler import lower, optimize
from runtime.custom_ops import CustomOpError, lookup, unregister
from runtime.executor import Executable
from runtime.reference import evaluate
from test.helpers import TOL
from test.models import ZOO



class LogCumSumExp(nn.Module):
    def forward(self, x):
        return torch.relu(torch.logcumsumexp(x, dim=1))


@pytest.fixture
def registered_logcumsumexp():
    """Registers aten.logcumsumexp for one test only (the registry is process-wide)."""
    npu_graph.custom_op("aten.logcumsumexp", shape_fn=lambda x, dim: x)(
        lambda x, dim: torch.logcumsumexp(x, dim))
    yield
    unregister("aten.logcumsumexp")


def test_library_custom_op_runs_end_to_end():
    model, inputs = ZOO["custom_op"]()
    module = import_module(model, inputs)
    module.verify()
    (op,) = [op for op in module.walk() if isinstance(op, ge.CustomOp)]
    assert op.op_name.data == "ge_zoo.soft_clip"
    assert str(op.params) == "{limit = 5.000000e-01 : f64}"
    with torch.no_grad():
        expected = model(*inputs)
    torch.testing.assert_close(evaluate(module, *inputs)[0], expected, **TOL)
    executable = Executable(lower(optimize(module)))
    torch.testing.assert_close(executable.run(*inputs)[0], expected, **TOL)


def test_unsupported_aten_op_named_by_its_aten_name(registered_logcumsumexp):
    x = torch.randn(3, 4)
    module = import_module(LogCumSumExp(), (x,))
    text = str(module)
    assert 'ge.custom(%x) {name = "aten.logcumsumexp", params = {dim = 1 : i64}}' in text
    torch.testing.assert_close(evaluate(module, x)[0], LogCumSumExp()(x), **TOL)
    # The printed IR names the kernel, so it parses back and runs too.
    parsed = Parser(make_context(), text).parse_module()
    torch.testing.assert_close(Executable(lower(parsed)).run(x)[0], LogCumSumExp()(x), **TOL)


def test_names_accept_both_spellings():
    npu_graph.custom_op("mylib::thing")(lambda x: x)
    try:
        assert lookup("mylib.thing") is lookup("mylib::thing") is not None
    finally:
        unregister("mylib.thing")
    with pytest.raises(CustomOpError, match="must be qualified"):
        npu_graph.custom_op("thing")


def test_unregistered_op_error_names_custom_op():
    with pytest.raises(UnsupportedOpError) as info:
        import_module(LogCumSumExp(), (torch.randn(3, 4),))
    msg = str(info.value)
    assert "aten.logcumsumexp.default" in msg and "npu_graph.custom_op" in msg
    assert '@npu_graph.custom_op("aten.logcumsumexp")' in msg


def test_shape_function_is_checked_at_import():
    npu_graph.custom_op("aten.logcumsumexp", shape_fn=lambda x, dim: (x[1], x[0]))(
        lambda x, dim: torch.logcumsumexp(x, dim))
    try:
        with pytest.raises(GEImportError, match=r"shape_fn of custom op 'aten.logcumsumexp' "
                                                r"at node "
                                                r"'logcumsumexp' .* returned 4x3, but PyTorch infers 3x4"):
            import_module(LogCumSumExp(), (torch.randn(3, 4),))
    finally:
        unregister("aten.logcumsumexp")


def test_kernel_breaking_its_contract_is_a_clear_error():
    npu_graph.custom_op("aten.logcumsumexp")(lambda x, dim: torch.logcumsumexp(x, dim)[:1])
    try:
        module = import_module(LogCumSumExp(), (torch.randn(3, 4),))
        with pytest.raises(CustomOpError, match="output 0 has shape 1x4, the graph expects 3x4"):
            evaluate(module, torch.randn(3, 4))
    finally:
        unregister("aten.logcumsumexp")


def test_missing_kernel_at_run_time_names_the_fix():
    text = """func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %y = ge.custom(%x) {name = "mylib.missing", params = {}} : (tensor<4xf32>) -> tensor<4xf32>
      func.return %y : tensor<4xf32>
    }"""
    module = Parser(make_context(), text).parse_module()
    with pytest.raises(CustomOpError, match=r"npu_graph.custom_op\('mylib.missing'\)"):
        evaluate(module, torch.randn(4))


def test_example_script_runs_end_to_end(capsys):
    from examples.custom_op import main

    try:
        assert main() == 0
    finally:
        unregister("aten.logcumsumexp")
    out = capsys.readouterr().out
    assert "aten.logcumsumexp.default x1" in out and "custom_op" in out
    assert "max |ours - eager|" in out


class SinhTwice(nn.Module):
    def forward(self, x):
        return torch.sinh(x) * 2


def test_a_kernel_registered_for_a_mapped_op_is_honoured():
    """GE maps aten.sinh; a kernel the user registers for it replaces the mapping."""
    calls = []

    def sinh(x):
        calls.append(1)
        return torch.sinh(x)

    npu_graph.custom_op("aten.sinh")(sinh)
    try:
        x = torch.randn(3, 4)
        graph = npu_graph.NpuGraph(SinhTwice(), input_spec=(x,))
        assert '"aten.sinh"' in graph.to_mlir() and "ge.sinh" not in graph.to_mlir()
        torch.testing.assert_close(graph.optimize()(x), torch.sinh(x) * 2)
        assert calls
    finally:
        unregister("aten.sinh")
