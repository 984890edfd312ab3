"""Hugging Face architectures nobody here wrote import, optimize and run on the
runtime within 1e-4 of eager: BERT without token_type_ids, RoBERTa, DistilBERT,
GPT-2 with its default cache, a Llama decoder (rotary, grouped-query attention,
RMSNorm, gated SiLU MLP), T5's encoder, ViT, Swin, ConvNeXt and wav2vec2.
Built from small configs with random weights, offline."""

import pytest

pytest.importorskip("transformers")

from ge_dialect import ge  # noqa: E402
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


# The fusion rules must recognise these models' blocks as they do the repo's own
# BERT: attention, Add & Norm (LayerNorm or RMSNorm; after a projection the add
# is the projection's epilogue, matmul_add), GELU after a projection,
# rotary embeddings and the gated MLP. And the task counts (two layers each, plus
# embeddings and head) must not grow: docs/importing.md reports them per layer.
EXPECTED_FUSIONS = {
    "bert": ({"attention_keep_mask", "add_layer_norm", "matmul_add", "matmul_gelu"}, 24),
    "roberta": ({"attention_keep_mask", "add_layer_norm", "matmul_gelu"}, 31),
    "distilbert": ({"attention_keep_mask", "add_layer_norm", "matmul_gelu"}, 24),
    "gpt2": ({"attention_keep_mask", "elementwise"}, 52),
    "llama": ({"attention_keep_mask", "rotary_embedding", "gated_mlp"}, 51),
    "t5_encoder": ({"attention", "matmul_add"}, 29),
    "vit": ({"attention_keep_mask", "matmul_gelu"}, 31),
    "swin": ({"attention", "matmul_gelu"}, 57),
    "convnext": ({"matmul_gelu"}, 24),
    "wav2vec2": ({"attention_keep_mask", "add_layer_norm", "matmul_gelu"}, 37),
}


@pytest.mark.parametrize("name", sorted(HF_ZOO))
def test_imports_fuses_and_matches_eager(name):
    model, inputs = make(name)
    module = import_module(model, inputs)
    module.verify()
    ops = {op.name for op in module.walk()}
    assert EXPECTED_OPS.get(name, set()) <= ops, f"{name} lacks {EXPECTED_OPS[name] - ops}"
    fn = optimize(module).body.block.first_op
    tasks = [op for op in fn.body.block.ops if not isinstance(op, ge.ConstOp)][:-1]
    kinds = {op.kind.data for op in tasks if isinstance(op, ge.FusedOp)}
    expected, most = EXPECTED_FUSIONS[name]
    assert expected <= kinds, f"{name}: no {sorted(expected - kinds)} group"
    assert len(tasks) <= most, f"{name}: {len(tasks)} tasks, {most} before"
    out = Executable(lower(module)).run(*inputs)
    assert_all_close(tuple(out), eager(model, *inputs))
