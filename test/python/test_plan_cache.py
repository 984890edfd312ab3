"""A graph with dynamic dims plans per gear, in a bounded LRU cache, in flat memory:
every shape runs exactly as eager, the plans made are bounded by the gears, an
evicted plan frees its arena, and new shapes do not grow the process."""

import gc
import os
import threading
import weakref

import pytest
import torch
from torch import nn
from torch.export import Dim

from npu_graph.compiler import import_model, lower, optimize
from runtime.executor import Executable, Options
from runtime.gears import GearError, Gears, next_power_of_two
from test.helpers import assert_all_close, eager


def rss_mb() -> float:
    gc.collect()
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


class SmallCNN(nn.Module):
    """Five layers: conv, relu, pool, then a linear over the flattened features."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(16 * 4 * 4, 10)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(torch.relu(self.conv(x))), 1))


class Attend(nn.Module):
    """One decode step's attention: a query over a cache of length T. It returns
    the attention weights too, so some buffers have the `?` dim T."""

    def __init__(self, heads=2, dim=16):
        super().__init__()
        self.heads, self.dim = heads, dim
        self.q = nn.Linear(heads * dim, heads * dim)
        self.o = nn.Linear(heads * dim, heads * dim)

    def forward(self, x, k, v):
        q = self.q(x).view(1, self.heads, 1, self.dim)
        weights = torch.softmax(q @ k.transpose(-1, -2) / self.dim ** 0.5, dim=-1)
        return self.o((weights @ v).reshape(1, self.heads * self.dim)), weights


def compiled(model, inputs, dynamic_shapes, **options) -> Executable:
    module = import_model(model, inputs, dynamic_shapes)
    return Executable(lower(optimize(module)), options=Options(**options))


@pytest.fixture(scope="module")
def cnn():
    torch.manual_seed(0)
    model = SmallCNN().eval()
    module = lower(optimize(import_model(model, (torch.randn(2, 3, 8, 8),),
                                         ({0: Dim("batch", min=1, max=256)},))))
    return model, module


@pytest.fixture(scope="module")
def attend():
    torch.manual_seed(0)
    model = Attend().eval()
    t = Dim("T", min=2, max=4096)
    inputs = (torch.randn(1, 32), torch.randn(1, 2, 8, 16), torch.randn(1, 2, 8, 16))
    module = lower(optimize(import_model(model, inputs, ({}, {2: t}, {2: t}))))
    return model, module


def decode_inputs(t: int, cache: tuple[torch.Tensor, torch.Tensor]):
    k, v = cache
    return torch.ones(1, 32) * 0.1 * (t % 7), k[:, :, :t].contiguous(), v[:, :, :t].contiguous()


def test_cnn_every_batch_1_to_256_in_flat_memory(cnn):
    """Called with each batch size once: a plan per power of two, not per size, and
    the process grows by less than 100 MB (a plan per size held 2 GB at 32x32)."""
    model, module = cnn
    executable = Executable(module)
    executable.run(torch.randn(1, 3, 8, 8))  # first-call costs (kernels, threads) aside
    before = rss_mb()
    checked = {1, 2, 3, 5, 17, 64, 100, 129, 255, 256}
    for b in range(1, 257):
        x = torch.randn(b, 3, 8, 8)
        (y,) = executable.run(x)
        if b in checked:
            assert_all_close((y,), eager(model, x))
    grown = rss_mb() - before
    assert grown < 100, f"the process grew by {grown:.0f} MB over batch sizes 1..256"
    cache = executable.stats["plan_cache"]
    assert cache["made"] == 9  # gears 1, 2, 4, ..., 256
    assert cache["plans"] == 8 and cache["evictions"] == 1
    assert sorted(executable.plans) == [((2 ** i, 3, 8, 8),) for i in range(1, 9)]


def test_lru_evicts_the_least_recently_used_and_frees_its_arena(cnn):
    _, module = cnn
    executable = Executable(module, options=Options(plan_cache_size=2))
    executable.run(torch.randn(1, 3, 8, 8))
    executable.run(torch.randn(2, 3, 8, 8))
    arena = weakref.ref(executable.plans[((1, 3, 8, 8),)].arena)
    executable.run(torch.randn(1, 3, 8, 8))  # gear 1 is now the most recent
    executable.run(torch.randn(3, 3, 8, 8))  # gear 4 evicts gear 2
    assert list(executable.plans) == [((1, 3, 8, 8),), ((4, 3, 8, 8),)]
    executable.run(torch.randn(7, 3, 8, 8))  # gear 8 evicts gear 1
    gc.collect()
    assert arena() is None, "an evicted plan's arena is still alive"
    cache = executable.stats["plan_cache"]
    assert {k: cache[k] for k in ("size", "plans", "hits", "misses", "evictions", "made")} == \
        {"size": 2, "plans": 2, "hits": 1, "misses": 4, "evictions": 2, "made": 4}
    held = sum(executable.plans[g].arena.numel() for g in executable.plans)
    assert cache["memory"] == pytest.approx(held / 2**20)
    assert executable.stats["memory_usage"] == pytest.approx(
        (executable.arena.numel() + executable.plans[((8, 3, 8, 8),)].arena.numel()) / 2**20)


def test_one_arena_per_gear_serves_every_shape_in_it(cnn):
    """Batch 5, 6, 7 and 8 run in gear 8: one arena, views at each actual shape."""
    model, module = cnn
    executable = Executable(module)
    arenas = set()
    for b in (5, 8, 6, 7, 5):
        x = torch.randn(b, 3, 8, 8)
        assert_all_close(executable.run(x), eager(model, x))
        plan = executable.plans[((8, 3, 8, 8),)]
        arenas.add(plan.arena.data_ptr())
        start, end = plan.arena.data_ptr(), plan.arena.data_ptr() + plan.arena.numel()
        views = plan.views_at(((b, 3, 8, 8),))
        assert views and all(start <= v.data_ptr() < end and v.shape[0] == b
                             for _, v in views if v.numel())
    assert len(arenas) == 1 and executable.stats["plan_cache"]["made"] == 1


@pytest.mark.parametrize("size", [0, -1, 2.5, "8", True])
def test_a_bad_plan_cache_size_is_refused(size):
    with pytest.raises(ValueError, match=r"plan_cache_size must be an integer >= 1"):
        Options(plan_cache_size=size)


def test_decode_over_a_growing_cache_plans_per_gear_in_flat_memory(attend):
    """T = 1..300: ten gears (1, 2, 4, ..., 512), outputs equal eager at every T.
    Flat memory: the plans' arenas are bounded by the cache, each sized for its
    gear (at most twice T), so after the first pass a second one over the same
    lengths adds nothing, and the process grows by far less than a plan per
    length held (about 95 MB for 300 lengths of this graph)."""
    model, module = attend
    executable = Executable(module)
    torch.manual_seed(1)
    cache = (torch.randn(1, 2, 300, 16), torch.randn(1, 2, 300, 16))
    before = rss_mb()
    for t in range(1, 301):
        inputs = decode_inputs(t, cache)
        assert_all_close(executable.run(*inputs), eager(model, *inputs))
    stats = executable.stats["plan_cache"]
    assert stats["made"] == 10 and stats["plans"] == 8
    # The largest gear's arena holds buffers with T up to 512, not more.
    largest = executable.plans[((1, 32), (1, 2, 512, 16), (1, 2, 512, 16))]
    assert largest.arena.numel() < 2 * 512 * 2 * 16 * 4 * 4
    grown = rss_mb() - before
    assert grown < 30, f"the process grew by {grown:.0f} MB over 300 lengths"


def test_listed_gears_zip_pick_the_smallest_that_holds_the_shape(attend):
    model, module = attend
    gears = Gears.of({1: {2: [64, 128, 320]}, 2: {2: [64, 128, 320]}})
    executable = Executable(module, options=Options(gears=gears))
    torch.manual_seed(2)
    cache = (torch.randn(1, 2, 320, 16), torch.randn(1, 2, 320, 16))
    for t in (1, 63, 64, 65, 200, 320, 5):
        inputs = decode_inputs(t, cache)
        assert_all_close(executable.run(*inputs), eager(model, *inputs))
    assert sorted(g[1][2] for g in executable.plans) == [64, 128, 320]
    assert executable.stats["plan_cache"]["made"] == 3
    with pytest.raises(GearError, match=r"fit no gear: input 1 dim 2 = 321 \(gears \[64, 128, 320\]\)"):
        executable.run(*decode_inputs(321, (torch.randn(1, 2, 321, 16),) * 2))


def test_dynamic_inputs_with_only_static_buffers_load_and_run():
    """Attention fused into one task: the `?` dims are on inputs only."""
    torch.manual_seed(0)

    class Fused(Attend):
        def forward(self, x, k, v):
            return super().forward(x, k, v)[0]

    model = Fused().eval()
    t = Dim("T", min=2, max=4096)
    inputs = (torch.randn(1, 32), torch.randn(1, 2, 8, 16), torch.randn(1, 2, 8, 16))
    executable = compiled(model, inputs, ({}, {2: t}, {2: t}))
    cache = (torch.randn(1, 2, 40, 16), torch.randn(1, 2, 40, 16))
    for t in (3, 17, 40, 17):
        inputs = decode_inputs(t, cache)
        assert_all_close(executable.run(*inputs), eager(model, *inputs))
    assert executable.stats["execution_time"] > 0


def test_two_threads_with_different_shapes_get_right_answers(cnn):
    model, module = cnn
    executable = Executable(module, max_inflight=2, options=Options(plan_cache_size=3))
    failures = []

    def calls(sizes):
        try:
            for b in sizes:
                x = torch.randn(b, 3, 8, 8)
                torch.testing.assert_close(executable.run(x)[0], eager(model, x)[0],
                                           rtol=1e-4, atol=1e-4)
        except Exception as e:  # noqa: BLE001 - reported by the main thread
            failures.append(e)

    threads = [threading.Thread(target=calls, args=(sizes,))
               for sizes in ([1, 3, 9, 30, 2, 17] * 3, [5, 64, 2, 7, 33, 1] * 3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(t.is_alive() for t in threads) and not failures, failures
    stats = executable.stats["plan_cache"]
    assert stats["replicas"] <= 2 and stats["plans"] <= 3 * stats["replicas"]


@pytest.mark.parametrize("n, gear", [(0, 0), (1, 1), (2, 2), (3, 4), (255, 256), (257, 512)])
def test_default_ladder_is_the_next_power_of_two(n, gear):
    assert next_power_of_two(n) == gear


def test_product_merges_every_combination():
    gears = Gears.of({0: {0: [2, 4], 1: [10, 20]}}, merge_policy="product")
    assert gears.combos() == [(2, 10), (2, 20), (4, 10), (4, 20)]
    assert gears.gear(((3, 11),), [(-1, -1)]) == ((4, 20),)
    assert gears.gear(((1, 10),), [(-1, -1)]) == ((2, 10),)
    zipped = Gears.of({0: {0: [2, 4], 1: [20, 10]}})
    assert zipped.combos() == [(2, 20), (4, 10)]
    assert zipped.gear(((3, 5),), [(-1, -1)]) == ((4, 10),)
    with pytest.raises(GearError, match="fit no gear"):
        zipped.gear(((3, 15),), [(-1, -1)])


@pytest.mark.parametrize("dim_gears, policy, message", [
    ({0: {0: [2, 4], 1: [10]}}, "zip", "must be equally long"),
    ({0: {0: [2, 0]}}, "zip", "integers >= 1, got 0"),
    ({0: {0: []}}, "zip", "non-empty list"),
    ({0: {-1: [2]}}, "zip", "integer >= 0"),
    ({0: [2, 4]}, "zip", r"must be a dict \{dim: \[sizes\]\}"),
    ({0: {0: [2]}}, "cartesian", "allowed: zip, product"),
])
def test_bad_gears_are_refused(dim_gears, policy, message):
    with pytest.raises(GearError, match=message):
        Gears.of(dim_gears, policy)


def test_gears_on_a_static_dim_are_refused_at_load(cnn):
    _, module = cnn
    with pytest.raises(GearError, match=r"dim 1 of input 0, which is static \(3\)"):
        Executable(module, options=Options(gears=Gears.of({0: {1: [3, 6]}})))
    with pytest.raises(GearError, match=r"input 2, but the graph takes 1 input"):
        Executable(module, options=Options(gears=Gears.of({2: {0: [3, 6]}})))


class AddRelu(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)

    def forward(self, x, y):
        return torch.relu(self.fc(x)) + y


def marked_inputs(batch: int, gears: list[int]):
    from npu_graph.inference import set_dim_gears

    x, y = torch.randn(batch, 8), torch.randn(batch, 4)
    set_dim_gears(x, {0: gears})
    set_dim_gears(y, {0: gears})
    return x, y


def test_set_dim_gears_through_npu_graph():
    """TorchAir's spelling: marked inputs make their dims dynamic and list the gears;
    `plan_cache_size` is an optimize() flag."""
    from npu_graph import NpuGraph

    torch.manual_seed(0)
    model = AddRelu().eval()
    graph = NpuGraph(model, input_spec=marked_inputs(4, [2, 4, 8])).optimize(plan_cache_size=2)
    for b in (1, 3, 8, 5, 2):
        x, y = torch.randn(b, 8), torch.randn(b, 4)
        torch.testing.assert_close(graph(x, y), model(x, y), rtol=1e-4, atol=1e-4)
    assert list(graph.executable.plans) == [((8, 8), (8, 4)), ((2, 8), (2, 4))]
    assert graph.stats["plan_cache"]["size"] == 2
    with pytest.raises(GearError, match="fit no gear: input 0 dim 0 = 9"):
        graph(torch.randn(9, 8), torch.randn(9, 4))


def test_set_dim_gears_and_merge_policy_through_torch_compile():
    import npu_graph
    from npu_graph.backend import GEBackend

    torch.manual_seed(0)
    model = AddRelu().eval()
    backend = GEBackend(npu_graph.CompilerConfig(dynamic_gears_merge_policy="product",
                                                 plan_cache_size=3))
    made = []
    optimize_graph = backend._optimize
    backend._optimize = lambda *args: made.append(optimize_graph(*args)) or made[-1]
    compiled_model = torch.compile(model, backend=backend, dynamic=True)
    x, y = marked_inputs(4, [2, 4, 8])
    for inputs in [(x, y)] + [(torch.randn(b, 8), torch.randn(b, 4)) for b in (3, 8, 5, 2)]:
        torch.testing.assert_close(compiled_model(*inputs), model(*inputs), rtol=1e-4, atol=1e-4)
    (graph,) = made
    assert graph.options.plan_cache_size == 3
    assert graph.options.gears == Gears.of({0: {0: [2, 4, 8]}, 1: {0: [2, 4, 8]}}, "product")
    assert sorted(graph.executable.plans) == [((b, 8), (b, 4)) for b in (2, 4, 8)]


@pytest.mark.parametrize("keywords, message", [
    ({"plan_cache_size": 0}, "plan_cache_size must be an integer >= 1"),
    ({"dynamic_gears_merge_policy": "cartesian"}, "allowed: zip, product"),
])
def test_bad_runtime_flags_are_refused_by_compiler_config(keywords, message):
    import npu_graph
    from npu_graph.backend import BackendError, GEBackend

    with pytest.raises(ValueError, match=message):
        npu_graph.CompilerConfig(**keywords)
    config = npu_graph.CompilerConfig()
    for k, v in keywords.items():
        setattr(config, k, v)
    with pytest.raises(BackendError, match=message):
        GEBackend(config)


def test_merge_policies_agree_between_flags_and_runtime():
    from passes.pipelines import GEARS_MERGE_POLICIES
    from runtime.gears import MERGE_POLICIES

    assert GEARS_MERGE_POLICIES == MERGE_POLICIES


@pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::UserWarning")
def test_1000_generated_tokens_in_flat_memory():
    """A small Llama-style decoder's decode graph (explicit cache, dynamic length)
    over 1,000 tokens: eager's tokens, and the process holds no more after 1,000
    tokens than after 10 (within 50 MB; the KV cache itself is under 1 MB here),
    with a plan per gear of the cache length, not per token."""
    from examples.generate import compile_phases
    from test.models.llama import Config, Decoder, generate_eager

    torch.manual_seed(0)
    decoder = Decoder(Config(layers=1, max_positions=1024)).eval()
    prefill, decode = compile_phases(decoder)
    torch.manual_seed(1)
    prompt = torch.randint(0, decoder.c.vocab, (1, 8))
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny ops: threads only contend on a shared machine
    try:
        logits, *cache = prefill(prompt, torch.arange(8)[None])
        tokens = [int(logits[0, -1].argmax())]
        rss = {}
        for step in range(999):
            logits, *cache = decode(torch.tensor([[tokens[-1]]]), torch.tensor([[8 + step]]),
                                    *cache)
            tokens.append(int(logits[0, -1].argmax()))
            if len(tokens) in (10, 1000):
                rss[len(tokens)] = rss_mb()
        expected = generate_eager(decoder, prompt, 1000)
    finally:
        torch.set_num_threads(threads)
    assert tokens == expected
    assert rss[1000] - rss[10] < 50, f"RSS grew by {rss[1000] - rss[10]:.0f} MB"
    stats = decode.stats["plan_cache"]
    assert stats["made"] <= 8  # gears 8, 16, ..., 1024 of the cache length
