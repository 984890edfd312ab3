"""Hugging Face architectures nobody here wrote import, optimize and run on the
runtime within 1e-4 of eager: BERT without token_type_ids, RoBERTa, DistilBERT,
GPT-2 with its default cache, a Llama decoder (rotary, grouped-query attention,
RMSNorm, gated SiLU MLP), T5's encoder, ViT, Swin, ConvNeXt and wav2vec2.
Built from small configs with random weights, offline."""

import pytest

pytest.importorskip("transformers")

from lowering.torch_to_ge import import_module  # noqa: E402
from npu_graph.compiler import lower, optimize  # noqa: E402
from runtime.executor import Executable  # noqa: E402
from test.helpers import assert_all_close, eager  # noqa: E402
from test.models.hf import HF_ZOO, make  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::UserWarning",
                                        "ignore::DeprecationWarning")

# Ops each architecture must reach GE as, so a test keeps covering what it was added for.
EXPECTED_OPS = {
    "bert": {"ge.gather_elements", "ge.layer_norm"},
    "roberta": {"ge.cumsum", "ge.gather_elements"},
    "llama": {"ge.sin", "ge.cos"},
    "swin": {"ge.index", "ge.pad"},
    "wav2vec2": {"ge.conv1d"},
}


@pytest.mark.parametrize("name", sorted(HF_ZOO))
def test_imports_optimizes_and_matches_eager(name):
    model, inputs = make(name)
    module = import_module(model, inputs)
    module.verify()
    ops = {op.name for op in module.walk()}
    assert EXPECTED_OPS.get(name, set()) <= ops, f"{name} lacks {EXPECTED_OPS[name] - ops}"
    program = Executable(lower(optimize(module)))
    out = program.run(*inputs)
    assert_all_close(tuple(out), eager(model, *inputs))
