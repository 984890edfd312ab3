"""How far int8 moves a model's outputs from fp32 eager: the accuracy half
of docs/BENCHMARKS.md's int8 section (`python -m bench.precision_accuracy
--int8`), and what test/python/test_int8_accuracy.py checks on small models.

- classifiers (ResNet-50, MobileNetV2: random weights, BatchNorm statistics
  non-trivial so folding them matters): `npu_graph.quantize` on calibration
  batches, then held-out inputs drawn from another seed; the fraction whose
  top-1 class equals fp32 eager's, and the logits' relative error. Random
  weights give no labels, so agreement with fp32 is the measure; the
  number of distinct fp32 classes says whether it is a real one (a model
  that maps every input to one class agrees trivially). Two set-ups: the
  zoo's randomized statistics (one class), and statistics measured on data
  with the logits centred (many classes, but a chaotic random net: the
  stress case). A small CNN trained in seconds on a synthetic task
  (`trained_small_cnn`) stands for a trained classifier's margins.
- `sensitivity`: how far fp32's own logits move under input noise of 1e-3,
  relative to their spread over the inputs; a classifier that moves far
  more than 1e-3 is chaotic, and top-1 agreement then measures that, not
  the quantizer.
- `with_ort`: ONNX Runtime's quantize_static on the same batches, the
  yardstick that tells int8's own loss from a bug of ours.
- encoders (BERT): the same quantization, the outputs' relative error.
- decoders (the zoo's Llama, built from its config): weight-only int8
  (`weight_quant="int8"`, the path decoders take; docs/int8.md), greedy
  tokens against fp32 eager's, prompt by prompt, with fp32's smallest top-2
  margin where a token flips (a flip at a margin of 1e-3 is rounding, not
  a broken kernel).
"""

from __future__ import annotations

import torch

import npu_graph
from bench.int8_peers import calibration_batches  # noqa: F401 - the tests draw with it too
from npu_graph import NpuGraph


def quantized(model, example: tuple, calibration: list[tuple], scheme: str = "minmax"):
    """`model` imported with `example`'s shapes, quantized on `calibration`
    and compiled with the default pipeline."""
    graph = NpuGraph(model.eval(), input_spec=example)
    return npu_graph.quantize(graph, calibration, scheme=scheme).optimize()


def settle_batch_norm(model: torch.nn.Module, batches: list[tuple]) -> torch.nn.Module:
    """Every BatchNorm's running statistics measured on `batches` (its affine
    parameters kept), in place. With random running statistics a deep
    random-weight net maps every input to nearly the same output (the
    shifts outweigh the input), so no error measure would see the input;
    measured statistics normalize each channel as a trained net's do, and
    are still far from the identity, so folding them is exercised."""
    norms = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    for m in norms:
        m.reset_running_stats()
        m.momentum = None  # a cumulative average over the batches
    model.train()
    with torch.no_grad():
        for b in batches:
            model(*b)
    return model.eval()


def balance_classes(model: torch.nn.Module, batches: list[tuple]) -> torch.nn.Module:
    """Shift the last linear layer's bias so that every class's mean logit over
    `batches` is 0 (in place). A random-weight classifier puts nearly every
    input into one class (BatchNorm's random shifts outweigh the input), so
    top-1 agreement would be trivially 1.0; a trained one spreads them."""
    last = [m for m in model.modules() if isinstance(m, torch.nn.Linear)][-1]
    with torch.no_grad():
        mean = torch.cat([model(*b) for b in batches]).mean(0)
        last.bias -= mean
    return model


def _outputs(value) -> tuple:
    return tuple(value) if isinstance(value, list | tuple) else (value,)


def relative_errors(got: list[tuple], want: list[tuple]) -> tuple[float, float]:
    """(max |got - want| / max |want|, ||got - want|| / ||want||), the worst over
    the outputs, each over all batches together."""
    worst_max, worst_l2 = 0.0, 0.0
    for i in range(len(want[0])):
        g = torch.cat([b[i].float().reshape(-1) for b in got])
        w = torch.cat([b[i].float().reshape(-1) for b in want])
        worst_max = max(worst_max, float((g - w).abs().max() / w.abs().max()))
        worst_l2 = max(worst_l2, float((g - w).norm() / w.norm()))
    return worst_max, worst_l2


def compare(model, calibration: list[tuple], held_out: list[tuple], balance: bool = False,
            scheme: str = "minmax", with_ort: bool = False) -> dict:
    """Quantize `model` on the `calibration` batches and run the `held_out`
    ones through it and through fp32 eager: the relative errors, and for a
    [batch, classes] output the top-1 agreement and the number of distinct
    fp32 classes. `balance` first centres a classifier's logits on the
    calibration batches (`balance_classes`); `with_ort` adds ONNX Runtime's
    int8 on the same batches (`ort_agreement`)."""
    example = calibration[0]
    if balance:
        balance_classes(model, calibration)
    compiled = quantized(model, example, calibration, scheme)
    with torch.no_grad():
        want = [_outputs(model(*b)) for b in held_out]
    got = [_outputs(compiled(*b)) for b in held_out]
    row = {"inputs": sum(b[0].shape[0] for b in held_out), **agreement(got, want),
           "cube_paths": compiled.executable.cube_paths()}
    if "top1" in row:
        row["sensitivity"] = sensitivity(model, held_out[:2])
    if with_ort:
        row["ort_int8"] = ort_agreement(model, example, calibration, held_out, want)
    return row


def sensitivity(model, batches: list[tuple], noise: float = 1e-3) -> float:
    """How far fp32 eager's logits move when white noise of `noise` times each
    image's std is added to it, relative to how far they spread over the
    inputs (||y(x + n) - y(x)|| / ||y(x) - mean over inputs of y||): what
    decides whether any rounding as small as int8's can keep top-1. A
    trained classifier moves by about `noise`; a random net that is chaotic
    by much more, and then no quantizer agrees with it (ONNX Runtime's
    neither)."""
    g = torch.Generator().manual_seed(7)
    moved, spread = 0.0, 0.0
    with torch.no_grad():
        for (x,) in batches:
            y = model(x)
            n = torch.randn(x.shape, generator=g) * noise * x.std((1, 2, 3), keepdim=True)
            moved += float((model(x + n) - y).square().sum())
            spread += float((y - y.mean(0)).square().sum())
    return (moved / spread) ** 0.5 if spread > 0 else float("inf")


def agreement(got: list[tuple], want: list[tuple]) -> dict:
    """The relative errors, and for a [batch, classes] output the top-1
    agreement and how many distinct classes fp32 chose."""
    rel_max, rel_l2 = relative_errors(got, want)
    row = {"rel_max": rel_max, "rel_l2": rel_l2}
    if len(want[0]) == 1 and want[0][0].dim() == 2:
        ref = torch.cat([w[0].argmax(1) for w in want])
        top1 = torch.cat([g[0].float().argmax(1) for g in got])
        row["top1"] = float((top1 == ref).float().mean())
        row["classes"] = int(ref.unique().numel())
    return row


def ort_agreement(model, example: tuple, calibration: list[tuple], held_out: list[tuple],
                  want: list[tuple]) -> dict | str:
    """The same measures for ONNX Runtime's quantize_static on the same
    calibration batches (bench/int8_peers.py): what the standard tool gets
    on the same model, the yardstick for ours. A string says why not."""
    import tempfile

    from bench import int8_peers
    from bench.suite import export_onnx

    missing = int8_peers.ort_missing()
    if missing:
        return missing
    with tempfile.TemporaryDirectory() as workdir:
        path, _ = export_onnx(model, example, workdir)
        session, names, _ = int8_peers.ort_int8_model(path, calibration, workdir,
                                                      torch.get_num_threads())
        got = [tuple(torch.from_numpy(o) for o in
                     session.run(None, {n: x.numpy() for n, x in zip(names, b)}))
               for b in held_out]
    return agreement(got, want)


class SmallCNN(torch.nn.Module):
    """Two conv+BatchNorm+ReLU layers, global pooling and a linear: the trained
    classifier of `trained_small_cnn`."""

    def __init__(self, classes: int = 10):
        super().__init__()
        nn = torch.nn
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU())
        self.fc = nn.Linear(32, classes)

    def forward(self, x):
        return self.fc(self.features(x).mean((2, 3)))


def template_task(seed: int = 0, classes: int = 10, size: int = 16):
    """A synthetic 10-class image task: each class is a fixed random pattern,
    an input is its pattern plus noise of 1.5 times its scale. draw(n, seed)
    -> (images, labels)."""
    templates = torch.randn(classes, 3, size, size, generator=torch.Generator().manual_seed(seed))

    def draw(n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
        g = torch.Generator().manual_seed(seed)
        labels = torch.randint(0, classes, (n,), generator=g)
        return templates[labels] + 1.5 * torch.randn(n, 3, size, size, generator=g), labels
    return draw


def trained_small_cnn(steps: int = 300, seed: int = 0):
    """(SmallCNN trained for `steps` Adam steps on `template_task`, its draw):
    a classifier with a trained one's margins (97-98% accurate with seeds
    0-2, BatchNorm statistics from training), in a few seconds on one core."""
    torch.manual_seed(seed)
    draw = template_task(seed)
    model = SmallCNN()
    optimizer = torch.optim.Adam(model.parameters(), 3e-3)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # ops this small only wait on a second thread (150x on a loaded machine)
    try:
        for step in range(steps):
            x, y = draw(64, 1000 + step)
            loss = torch.nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    finally:
        torch.set_num_threads(threads)
    return model.eval(), draw


def greedy(prefill, decode, prompt: torch.Tensor, steps: int) -> tuple[list[int], torch.Tensor]:
    """Greedy tokens and each step's last-position logits, from prefill and
    decode callables of (ids, pos, *cache) -> (logits, *cache)."""
    n = prompt.shape[1]
    logits, *cache = prefill(prompt, torch.arange(n)[None])
    steps_logits = [logits[0, -1]]
    tokens = [int(steps_logits[-1].argmax())]
    for step in range(steps - 1):
        logits, *cache = decode(torch.tensor([[tokens[-1]]]), torch.tensor([[n + step]]), *cache)
        steps_logits.append(logits[0, -1])
        tokens.append(int(steps_logits[-1].argmax()))
    return tokens, torch.stack(steps_logits)


def decoder_tokens(decoder, prompts: int = 12, steps: int = 16, prompt_len: int = 8) -> dict:
    """The zoo Llama with weight-only int8 against fp32 eager: how many of
    `prompts` prompts (seeds 0..prompts-1) give the same `steps` greedy
    tokens, and for each that differs, the step and fp32's top-2 margin there."""
    from test.models.llama import Decode, Prefill, decode_example, prefill_example

    inputs, dynamic = prefill_example(decoder)
    prefill = NpuGraph(Prefill(decoder), input_spec=inputs,
                       dynamic_shapes=dynamic).optimize(weight_quant="int8")
    inputs, dynamic = decode_example(decoder)
    decode = NpuGraph(Decode(decoder), input_spec=inputs,
                      dynamic_shapes=dynamic).optimize(weight_quant="int8")

    def eager(ids, pos, *cache):
        with torch.no_grad():
            return decoder.run(ids, pos, list(cache) if cache else None)

    equal, flips = 0, []
    for seed in range(prompts):
        prompt = torch.randint(0, decoder.c.vocab, (1, prompt_len),
                               generator=torch.Generator().manual_seed(seed))
        want, logits = greedy(eager, eager, prompt, steps)
        got, _ = greedy(prefill, decode, prompt, steps)
        if got == want:
            equal += 1
            continue
        step = next(i for i, (a, b) in enumerate(zip(got, want)) if a != b)
        top2 = logits[step].topk(2).values
        flips.append({"seed": seed, "step": step, "margin": float(top2[0] - top2[1])})
    return {"prompts": prompts, "steps": steps, "equal": equal, "flips": flips}


# --- the table of `python -m bench.precision_accuracy --int8`

def _image_model(name: str, settle: bool):
    """ResNet-50 or MobileNetV2 (random weights, the zoo's randomized BatchNorm);
    with `settle`, BatchNorm statistics measured on image-like data (seed 3)."""
    from test.models import mobilenet, resnet

    model = {"resnet50": lambda: resnet.make_resnet50()[0],
             "mobilenet_v2": lambda: mobilenet.make_v2_full()[0]}[name]()
    if settle:
        settle_batch_norm(model, calibration_batches((torch.zeros(8, 3, 224, 224),), 4, seed=3))
    return model


def classifier_rows(batch: int, calibration: int, held_out: int, with_ort: bool):
    """(label, row) for the full-size classifiers in both set-ups, and the trained small CNN."""
    example = (torch.zeros(batch, 3, 224, 224),)
    for name in ("resnet50", "mobilenet_v2"):
        for settle in (False, True):
            label = name + (", BN settled, logits centred" if settle else ", zoo BN statistics")
            model = _image_model(name, settle)
            yield label, compare(model, calibration_batches(example, calibration, seed=1),
                                 calibration_batches(example, held_out, seed=2), balance=settle,
                                 with_ort=with_ort)
    model, draw = trained_small_cnn()
    yield "small CNN, trained (test)", compare(
        model, [(draw(16, s)[0],) for s in range(4)],
        [(draw(16, 100 + s)[0],) for s in range(16)], with_ort=with_ort)


def bert_row(calibration: int, held_out: int, with_ort: bool) -> dict:
    """BERT-base as bench/suite.py builds it (random weights), sequence 128."""
    from test.models import bert

    torch.manual_seed(0)
    model = bert.Bert(vocab=30522, dim=768, heads=12, layers=12, max_len=512).eval()
    example = (torch.randint(0, 30522, (1, 128)), torch.ones(1, 128, dtype=torch.int64))
    return compare(model, calibration_batches(example, calibration, seed=1),
                   calibration_batches(example, held_out, seed=2), with_ort=with_ort)


def _cells(row: dict) -> str:
    top1 = (f"{row['top1']:.3f} ({row['classes']} classes)" if "top1" in row else "-")
    return f"{top1} | {row['rel_l2']:.1e} | {row['rel_max']:.1e}"


def report(args) -> int:
    """Print the int8 accuracy table (markdown), row by row."""
    with_ort = args.ort
    print("| model | inputs | fp32 sensitivity | ours_int8 top-1 agreement | rel. error L2 "
          "| rel. error max | ort_int8 top-1 | ort rel. L2 | ort rel. max |")
    print("|---" * 9 + "|")

    def line(label: str, row: dict) -> None:
        ort = row.get("ort_int8")
        peer = _cells(ort) if isinstance(ort, dict) else f"{ort or 'not run (--ort)'} | - | -"
        moved = f"{row['sensitivity']:.1e}" if "sensitivity" in row else "-"
        print(f"| {label} | {row['inputs']} | {moved} | {_cells(row)} | {peer} |", flush=True)

    for label, row in classifier_rows(args.batch, args.calibration_batches,
                                      args.held_out_batches, with_ort):
        line(label, row)
    line("bert_base_seq128", bert_row(args.calibration_batches, args.bert_held_out, with_ort))
    from test.models.llama import make_decoder

    d = decoder_tokens(make_decoder())
    flips = ", ".join(f"seed {f['seed']} at token {f['step']} (fp32 top-2 margin "
                      f"{f['margin']:.1e})" for f in d["flips"]) or "none"
    print(f"\ntiny Llama (test/models/llama.py Config), weight-only int8: {d['equal']} of "
          f"{d['prompts']} prompts give the same {d['steps']} greedy tokens as fp32 eager; "
          f"differing: {flips}")
    return 0
