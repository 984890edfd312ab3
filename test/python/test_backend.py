"""torch.compile(backend="ge"): Dynamo's graphs through the importer, the
pipeline and the runtime, checked against eager; graph breaks, explain(),
no_grad / inference_mode, recompiles and the two modes."""

import pytest
import torch
import torch._dynamo

import npu_graph
from npu_graph import CompilerConfig, get_npu_backend
from npu_graph.backend import BackendError


@torch.library.custom_op("ge_test::mystery", mutates_args=())
def mystery(x: torch.Tensor) -> torch.Tensor:
    """An op the importer has no mapping for: a graph break."""
    return x * 2 + 1


@mystery.register_fake
def _(x):
    return torch.empty_like(x)


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(8, 16)
        self.fc2 = torch.nn.Linear(16, 4)
        self.register_buffer("shift", torch.linspace(-1, 1, 4))

    def forward(self, x):
        return self.fc2(torch.nn.functional.gelu(self.fc1(x))) + self.shift


class Broken(Mlp):
    def forward(self, x):
        h = torch.relu(self.fc1(x))
        return self.fc2(torch.ops.ge_test.mystery(h)) + self.shift, h.sum(-1)


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def _model(cls=Mlp):
    torch.manual_seed(0)
    return cls().eval()


def close(a, b):
    torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-4)


def test_backend_by_name_matches_eager():
    model, x = _model(), torch.randn(3, 8)
    compiled = torch.compile(model, backend="ge")
    with torch.no_grad():
        close(compiled(x), model(x))


def test_get_npu_backend_reports_one_compiled_graph():
    backend = get_npu_backend(compiler_config=CompilerConfig(precision_mode="force_fp32"))
    model, x = _model(), torch.randn(3, 8)
    with torch.no_grad():
        close(torch.compile(model, backend=backend)(x), model(x))
    assert [(r.status, r.pieces) for r in backend.reports] == [("compiled", 1)]


def test_graph_break_on_an_unsupported_op_stays_right():
    backend = get_npu_backend()
    model, x = _model(Broken), torch.randn(3, 8)
    with torch.no_grad():
        got, want = torch.compile(model, backend=backend)(x), model(x)
    close(got[0], want[0])
    close(got[1], want[1])
    (report,) = backend.reports
    assert report.status == "split" and report.pieces == 2
    assert [b.op for b in report.breaks] == ["ge_test.mystery.default"]


def test_explain_lists_the_break_with_its_source_line():
    out = npu_graph.explain(_model(Broken), torch.randn(3, 8))
    assert out.graph_count == 1 and out.graph_break_count == 1
    (reason,) = out.break_reasons
    assert "ge_test.mystery.default" in reason and "test_backend.py" in reason
    assert "split: 2 compiled piece(s), eager for ge_test.mystery.default" in str(out)


def test_one_log_line_per_graph(caplog):
    model, x = _model(), torch.randn(3, 8)
    with caplog.at_level("INFO", logger="npu_graph.backend"), torch.no_grad():
        torch.compile(model, backend=get_npu_backend())(x)
    lines = [r.getMessage() for r in caplog.records if r.name == "npu_graph.backend"]
    assert lines == ["ge graph 0: 4 ops, compiled whole"]


@pytest.mark.parametrize("context", [torch.no_grad, torch.inference_mode])
def test_no_grad_and_inference_mode(context):
    model, x = _model(), torch.randn(2, 8)
    with context():
        close(torch.compile(model, backend="ge")(x), model(x))


def test_static_recompiles_per_shape():
    backend = get_npu_backend()
    model = _model()
    compiled = torch.compile(model, backend=backend, dynamic=False)
    with torch.no_grad():
        for n in (2, 5):
            x = torch.randn(n, 8)
            close(compiled(x), model(x))
    assert [r.status for r in backend.reports] == ["compiled", "compiled"]


def test_dynamic_compiles_once_for_every_batch():
    backend = get_npu_backend()
    model = _model()
    compiled = torch.compile(model, backend=backend, dynamic=True)
    with torch.no_grad():
        for n in (2, 5, 7):
            x = torch.randn(n, 8)
            close(compiled(x), model(x))
    assert [r.status for r in backend.reports] == ["compiled"]


def test_a_symbolic_integer_input_is_carried_as_a_dim():
    """`n` is no tensor's size: it reaches the GE graph as the dim of an empty
    tensor, so one graph serves every n (and a negative n runs in eager)."""
    def head(x, n):
        return torch.tanh(x[:, :n]) * 2

    backend = get_npu_backend()
    compiled = torch.compile(head, backend=backend, dynamic=True)
    x = torch.randn(3, 10)
    for n in (4, 6, 9, -2):
        close(compiled(x, n), head(x, n))
    assert backend.reports[0].status == "compiled"


def test_a_break_in_a_symbolic_graph_runs_it_in_eager_and_says_why():
    backend = get_npu_backend()
    model = _model(Broken)
    compiled = torch.compile(model, backend=backend, dynamic=True)
    with torch.no_grad():
        for n in (2, 5):
            x = torch.randn(n, 8)
            close(compiled(x)[0], model(x)[0])
    (report,) = backend.reports
    assert report.status == "eager" and "symbolic sizes" in report.reason
    assert "ge_test.mystery.default" in report.reason


def test_reduce_overhead_refuses_symbolic_sizes():
    backend = get_npu_backend(compiler_config=CompilerConfig(mode="reduce-overhead"))
    compiled = torch.compile(_model(), backend=backend, dynamic=True)
    with pytest.raises(Exception, match="reduce-overhead.*static shapes only.*dynamic=False"):
        compiled(torch.randn(2, 8))


def test_reduce_overhead_static_matches_eager():
    backend = get_npu_backend(compiler_config=CompilerConfig(mode="reduce-overhead"))
    model, x = _model(), torch.randn(3, 8)
    with torch.no_grad():
        close(torch.compile(model, backend=backend, dynamic=False)(x), model(x))


def test_bad_mode_names_the_allowed_ones():
    with pytest.raises(BackendError, match="'fast'; allowed: max-autotune, reduce-overhead"):
        get_npu_backend(compiler_config=CompilerConfig(mode="fast"))


def test_bad_precision_mode_is_refused_when_the_backend_is_made():
    with pytest.raises(BackendError, match="mode must be one of must_keep_origin_dtype"):
        get_npu_backend(compiler_config=CompilerConfig(precision_mode="fp8"))


def test_changed_weights_are_an_error_not_a_stale_answer():
    model, x = _model(), torch.randn(3, 8)
    compiled = torch.compile(model, backend="ge")
    with torch.no_grad():
        compiled(x)
        model.fc1.weight.add_(1.0)
        with pytest.raises(BackendError, match="changed after torch.compile"):
            compiled(x)
