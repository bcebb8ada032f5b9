"""`lengthgen bench`: throughput on this machine; the speed targets live here, not in timed tests.

Suites: `vv` (the vanishing-variance probe), `mla` (GRU seq2seq training and greedy decoding per mechanism),
`transformer` (our decoder against PyTorch's own encoder layers; cached against uncached generation), `compile` (our
decoder's training step in eager mode and compiled, per width; a leaderboard cell's training, a length drawn every
step, both ways), `arithmetic`
(the attention-bias-calibration chapter's evaluation: decoding speed against the machine's matrix-product limit),
`dropout` (a training step of that chapter's model with dropout 0.3, by how it draws its masks) and `ensemble` (the
most that training several seeds as one batched model could gain on this machine).
"""

import functools
import time
from dataclasses import replace

import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from lengthgen.data import EOS, LMBatch
from lengthgen.device import device_of
from lengthgen.leaderboard.grid import LEADERBOARD_PROFILES
from lengthgen.leaderboard.grid import build_run as build_leaderboard_run
from lengthgen.models import build_model
from lengthgen.models.dropout import DROPOUT_MASKS
from lengthgen.models.gru_seq2seq import Seq2SeqConfig
from lengthgen.models.probe import ProbeConfig
from lengthgen.models.transformer import DecoderOnly, TransformerConfig
from lengthgen.papers.abc.experiments import ARITHMETIC_PROFILES, build_arithmetic
from lengthgen.papers.mla.experiments import Seq2SeqRun, build_run
from lengthgen.seeding import generator
from lengthgen.tasks import TASKS
from lengthgen.train.evaluate import DECODE_BATCH, accuracy_by_length, sequence_metrics
from lengthgen.train.loop import EpochConfig, TrainConfig, train, update

EVAL_TARGET_S = 60.0  # target: evaluate 1,000 sets at one length within a minute
# The public implementation of Chowdhury & Caragea (2023), timed on this machine class: ~900 training
# samples/s (batch 32, Copy, any mechanism); greedy decoding of 2,000 length-100 sequences at 87 / 230 / 243
# sequences/s (Content / OneStep / LocAttn). Our target is twice that.
PUBLIC_TRAIN = 900.0
PUBLIC_DECODE = {"content": 87.0, "onestep": 230.0, "locattn": 243.0}
TORCH_RATIO = 0.9  # target: our pluggable decoder trains at >= 0.9x the tokens/s of torch's own layers
CACHE_RATIO = 5.0  # target: cached generation >= 5x the tokens/s of recomputing the sequence at every step
ENSEMBLE_MEMBERS = 5  # seeds of one cell trained together
ENSEMBLE_RATIO = 3.0  # target: an ensemble of 5 seeds trains >= 3x the runs/hour of 5 solo runs
DROPOUT_RATIO = 1.3  # target: a training step with "bits" masks >= 1.3x the steps/s of one with torch's


def bench(suite: str = "all", train_steps: int = 200) -> pd.DataFrame:
    """The rows of the chosen suite(s): vv, mla, transformer, compile, arithmetic, dropout, ensemble or all."""
    suites = {"vv": lambda: bench_probe(train_steps), "mla": bench_seq2seq, "transformer": bench_transformer,
              "compile": bench_compile,
              "arithmetic": bench_arithmetic, "dropout": bench_dropout, "ensemble": bench_ensemble}
    chosen = suites if suite == "all" else {suite: suites[suite]}
    rows = pd.concat([fn() for fn in chosen.values()], ignore_index=True)
    threads = {"what": "torch threads", "N": 0, "measured": str(torch.get_num_threads()), "rate": "", "target": ""}
    return pd.concat([rows, pd.DataFrame([threads])], ignore_index=True)


def _verdict(rate: float, target: float, unit: str) -> str:
    return f"{'met' if rate >= target else 'missed'} (target {target:g} {unit})"


def bench_seq2seq(train_batches: int = 200, decode_samples: int = 2000, length: int = 100) -> pd.DataFrame:
    """Training samples/s (batch 32 on Copy, the full update: AdamW, clipping) and greedy sequences/s at `length`.

    Decoding is timed over the full length (<eos> suppressed), as a trained model decodes a length-100 Copy input.
    """
    rows = []
    for mechanism in PUBLIC_DECODE:
        task, model = build_run(Seq2SeqRun(task="copy", seed=0, model=Seq2SeqConfig(attention=mechanism)))
        examples = task.examples("train", 32 * (train_batches + 5))
        batches = [task.batch(examples[i: i + 32]) for i in range(0, len(examples), 32)]
        opt = torch.optim.AdamW(model.parameters(), lr=EpochConfig.lr, weight_decay=0.0, fused=True)
        model.train()
        for b in batches[:5]:  # warm-up
            update(model, opt, b, EpochConfig.clip)
        start = time.perf_counter()
        for b in batches[5:]:
            update(model, opt, b, EpochConfig.clip)
        rate = 32 * train_batches / (time.perf_counter() - start)
        rows.append({"what": f"train {mechanism} (Copy, batch 32)", "N": 10, "measured": f"{train_batches} steps",
                     "rate": f"{rate:.0f} samples/s", "target": _verdict(rate, 2 * PUBLIC_TRAIN, "samples/s")})
        model.eval()
        with torch.no_grad():
            model.out_bias[EOS] = -1e4
        test = task.examples(str(length), decode_samples)
        start = time.perf_counter()
        for i in range(0, decode_samples, DECODE_BATCH):
            model.predict(task.batch(test[i: i + DECODE_BATCH]).to(device_of(model)), length + 1)
        rate = decode_samples / (time.perf_counter() - start)
        rows.append({"what": f"greedy decode {mechanism}", "N": length, "measured": f"{decode_samples} sequences",
                     "rate": f"{rate:.0f} sequences/s",
                     "target": _verdict(rate, 2 * PUBLIC_DECODE[mechanism], "sequences/s")})
    return pd.DataFrame(rows)


def bench_probe(train_steps: int = 200, eval_lengths=(2**14, 2**16, 2**20), eval_sets: int = 4) -> pd.DataFrame:
    """Training steps/s (batch 128, N <= 16) per task, and evaluation time projected to 1,000 sets per length."""
    rows = []
    for name in ("argmax", "dictionary"):
        task = TASKS[name]()
        model = build_model("probe", ProbeConfig(), task, seed=0)
        stats = train(model, task, TrainConfig(steps=train_steps, progress=False), generator(0, "bench"))
        rows.append({"what": f"train {name}", "N": 16, "measured": f"{train_steps} steps in {stats['seconds']:.1f} s",
                     "rate": f"{train_steps / stats['seconds']:.0f} steps/s", "target": ""})
        if name != "argmax":
            continue
        for n in eval_lengths:
            start = time.perf_counter()
            accuracy_by_length(model, task, [n], eval_sets, seed=0, adaptive_too=True, progress=False)
            projected = (time.perf_counter() - start) * 1000 / eval_sets
            rows.append({"what": "evaluate argmax (plain + adaptive)", "N": n,
                         "measured": f"{eval_sets} sets", "rate": f"{projected:.0f} s per 1,000 sets",
                         "target": "met" if projected <= EVAL_TARGET_S else f"missed (target {EVAL_TARGET_S:.0f} s)"})
    return pd.DataFrame(rows)


def _seconds_per_update(model: nn.Module, opt: torch.optim.Optimizer, batches: list, clip: float | None) -> float:
    """Mean wall time of one `update` over `batches` (the first two are a warm-up, not timed)."""
    model.train()
    for b in batches[:2]:
        update(model, opt, b, clip)
    start = time.perf_counter()
    for b in batches[2:]:
        update(model, opt, b, clip)
    return (time.perf_counter() - start) / (len(batches) - 2)


def bench_dropout(steps: int = 20, rounds: int = 3) -> pd.DataFrame:
    """Training steps/s of the arithmetic chapter's `cpu` model on Successor (operands padded to 51 digits, batch of
    its size) with dropout 0.3 everywhere the public code has it, its masks drawn by torch and by "bits"
    (`models.dropout`): `rounds` rounds of `steps` steps each, the two masks alternating within a round so that the
    machine's speed swings reach both alike; the best round of each counts."""
    sizes = replace(ARITHMETIC_PROFILES["cpu"], dropout=0.3, operand_width=51, eval_lengths=(50,), max_positions=128)
    best = {}
    for _ in range(rounds):
        for mask in DROPOUT_MASKS:
            cfg = sizes.run("successor", "sinusoidal", 0)
            cfg = replace(cfg, model=replace(cfg.model, dropout_mask=mask))
            task, models = build_arithmetic(cfg)
            model = models["trained"].train()
            optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
            numbers = task.interpolation_numbers("train", cfg.train.batch_size, generator(0, "bench dropout"))
            batch = task.batch([task.example(n) for n in numbers])
            update(model, optimizer, batch, clip=1.0)  # the first step allocates
            start = time.perf_counter()
            for _ in range(steps):
                update(model, optimizer, batch, clip=1.0)
            best[mask] = max(best.get(mask, 0.0), steps / (time.perf_counter() - start))
    ratio = best["bits"] / best["torch"]
    rows = [{"what": f"dropout 0.3, masks by {mask}: training step (arithmetic cpu model, 51 digits)",
             "N": cfg.train.batch_size, "measured": f"best of {rounds} x {steps} steps", "rate": f"{rate:.2f} steps/s",
             "target": ""} for mask, rate in best.items()]
    return pd.DataFrame([*rows, {"what": "dropout: bits against torch masks", "N": cfg.train.batch_size,
                                 "measured": "ratio", "rate": f"{ratio:.2f} x",
                                 "target": _verdict(ratio, DROPOUT_RATIO, "x torch")}])


def bench_ensemble(steps: int = 60, rounds: int = 3) -> pd.DataFrame:
    """The ceiling of ensemble training on this machine: seconds per update at a run's batch size B and at
    ENSEMBLE_MEMBERS x B, alternated over `rounds` rounds (best of each).

    An ensemble of 5 seeds trained as one batched model does at least the work of one model on a 5x larger batch: the
    same elementwise operations, the same number of them, and per-member weight products (a batched matmul) where the
    larger batch shares one weight matrix. So 5 x t(B) / t(5B), the runs/hour of the larger batch against 5 solo
    runs, bounds from above what any ensemble implementation could gain. Measured on the GRU seq2seq model (Copy,
    batch 32, AdamW and clipping as `train_epochs`; Content and OneStep) and on the vanishing-variance probe
    (argmax, batch 128, Adam; the lengths 2-16 in turn, the same for both sizes).
    """
    def seq2seq(mechanism: str, batch: int):
        task, model = build_run(Seq2SeqRun(task="copy", seed=0, model=Seq2SeqConfig(attention=mechanism)))
        examples = task.examples("train", batch * (steps + 2))
        opt = torch.optim.AdamW(model.parameters(), lr=EpochConfig.lr, weight_decay=0.0, fused=True)
        return model, opt, [task.batch(examples[i: i + batch]) for i in range(0, len(examples), batch)], \
            EpochConfig.clip

    def probe(batch: int):
        task = TASKS["argmax"]()
        model = build_model("probe", ProbeConfig(), task, seed=0)
        gen = generator(0, "bench")
        cfg = TrainConfig()
        lengths = [cfg.min_length + i % (cfg.max_length - cfg.min_length + 1) for i in range(steps + 2)]
        return model, cfg.optimizer(model.parameters()), [task.sample(batch, n, gen) for n in lengths], cfg.clip

    cases = {"GRU seq2seq, Content (Copy)": (functools.partial(seq2seq, "content"), 32),
             "GRU seq2seq, OneStep (Copy)": (functools.partial(seq2seq, "onestep"), 32),
             "probe (argmax, N <= 16)": (probe, 128)}
    rows = []
    for what, (make, batch) in cases.items():
        best = {b: float("inf") for b in (batch, ENSEMBLE_MEMBERS * batch)}
        for _ in range(rounds):
            for b in best:
                best[b] = min(best[b], _seconds_per_update(*make(b)))
        ratio = ENSEMBLE_MEMBERS * best[batch] / best[ENSEMBLE_MEMBERS * batch]
        rows.append({"what": f"ensemble ceiling: {what}", "N": ENSEMBLE_MEMBERS,
                     "measured": f"{1e3 * best[batch]:.1f} ms per update at batch {batch}, "
                                 f"{1e3 * best[ENSEMBLE_MEMBERS * batch]:.1f} ms at {ENSEMBLE_MEMBERS * batch}",
                     "rate": f"{ratio:.2f}x the runs/hour of {ENSEMBLE_MEMBERS} solo runs, at most",
                     "target": _verdict(ratio, ENSEMBLE_RATIO, "x")})
    return pd.DataFrame(rows)


class TorchDecoder(nn.Module):
    """The reference of the transformer suite: PyTorch's `nn.TransformerEncoderLayer` stack with a causal mask (pre-LN,
    GELU, no dropout), embeddings and head as ours, no positional information; the same `loss` as `DecoderOnly`."""

    def __init__(self, cfg: TransformerConfig, vocab_size: int):
        super().__init__()
        layer = nn.TransformerEncoderLayer(cfg.width, cfg.heads, cfg.ff, dropout=0.0, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.embed = nn.Embedding(vocab_size, cfg.width)
        self.layers = nn.TransformerEncoder(layer, cfg.layers, enable_nested_tensor=False)
        self.norm, self.head = nn.LayerNorm(cfg.width), nn.Linear(cfg.width, vocab_size)

    def loss(self, batch: LMBatch) -> torch.Tensor:
        x = batch.tokens[:, :-1]
        mask = nn.Transformer.generate_square_subsequent_mask(x.shape[1], device=x.device)
        h = self.norm(self.layers(self.embed(x), mask=mask, is_causal=True))[:, batch.prompt - 1:]
        return F.cross_entropy(self.head(h).transpose(1, 2), batch.answer)


def _tokens_per_second(model: nn.Module, batch: LMBatch, steps: int) -> float:
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for _ in range(3):  # warm-up
        update(model, opt, batch)
    start = time.perf_counter()
    for _ in range(steps):
        update(model, opt, batch)
    return steps * batch.tokens.numel() / (time.perf_counter() - start)


def bench_transformer(steps: int = 30, rounds: int = 3, batch: int = 64, length: int = 64, generate: int = 500,
                      prompts: int = 8) -> pd.DataFrame:
    """Training tokens/s of our decoder (RoPE, and NoPE) against torch's encoder layers of the same size (2 layers,
    D = 128, 4 heads, FF 512, batch 64 x 64 tokens), timed alternately over `rounds` rounds (best of each), and greedy
    generation of `generate` tokens from `prompts` one-token prompts with and without the key/value cache."""
    cfg = TransformerConfig(width=128, heads=4, layers=2, ff=512, max_positions=generate + 1)
    vocab = 32
    tokens = torch.randint(4, vocab, (batch, length), generator=generator(0, "bench"))
    data = LMBatch(tokens, None, prompt=1)
    models = {"torch nn.TransformerEncoderLayer": TorchDecoder(cfg, vocab),
              "ours, RoPE": DecoderOnly(cfg, vocab), "ours, NoPE": DecoderOnly(replace(cfg, positional="none"), vocab)}
    best = dict.fromkeys(models, 0.0)
    for _ in range(rounds):
        for name, model in models.items():
            best[name] = max(best[name], _tokens_per_second(model.train(), data, steps))
    reference = best["torch nn.TransformerEncoderLayer"]
    rows = [{"what": f"train {name} (2 layers, D 128)", "N": length, "measured": f"best of {rounds} x {steps} steps",
             "rate": f"{rate:.0f} tokens/s ({rate / reference:.2f}x torch)",
             "target": "" if name.startswith("torch") else _verdict(rate / reference, TORCH_RATIO, "x torch")}
            for name, rate in best.items()]
    model = models["ours, RoPE"].eval()
    prompt = tokens[:prompts, :1]
    rates = {}
    for cache in (True, False):
        start = time.perf_counter()
        model.generate(prompt, torch.zeros_like(prompt), generate, cache=cache)
        rates[cache] = prompts * generate / (time.perf_counter() - start)
    for cache, rate in rates.items():
        rows.append({"what": f"generate, {'with' if cache else 'without'} key/value cache", "N": generate,
                     "measured": f"{prompts} sequences", "rate": f"{rate:.0f} tokens/s",
                     "target": _verdict(rates[True] / rates[False], CACHE_RATIO, "x uncached") if cache else ""})
    return pd.DataFrame(rows)


def bench_compile(widths: tuple[int, ...] = (64, 128), steps: int = 30, rounds: int = 3, batch: int = 64,
                  length: int = 40, board_steps: int = 300) -> pd.DataFrame:
    """Training tokens/s of our 2-layer RoPE decoder (FF 4 D, 4 heads, batch `batch` x `length` tokens) in eager mode
    and with its loss compiled by `torch.compile`, per width, alternated over `rounds` rounds (best of each), and the
    seconds the first compiled step took (the compile itself, paid once per run and sequence shape); then
    `board_steps` of a leaderboard cell's training both ways (`_board_training`), compiling included."""
    vocab, rows = 32, []
    tokens = torch.randint(4, vocab, (batch, length), generator=generator(0, "bench compile"))
    data = LMBatch(tokens, None, prompt=1)
    for width in widths:
        cfg = TransformerConfig(width=width, heads=4, layers=2, ff=4 * width, max_positions=length + 1)
        eager, compiled = DecoderOnly(cfg, vocab), DecoderOnly(cfg, vocab)
        compiled.loss = torch.compile(compiled.loss)
        start = time.perf_counter()
        update(compiled, torch.optim.AdamW(compiled.parameters(), lr=1e-4), data)
        compile_s = time.perf_counter() - start
        best = {"eager": 0.0, "compiled": 0.0}
        for _ in range(rounds):
            for name, model in (("eager", eager), ("compiled", compiled)):
                best[name] = max(best[name], _tokens_per_second(model.train(), data, steps))
        ratio = best["compiled"] / best["eager"]
        rows += [{"what": f"train ours, RoPE (2 layers, D {width}), eager", "N": length,
                  "measured": f"best of {rounds} x {steps} steps", "rate": f"{best['eager']:.0f} tokens/s",
                  "target": ""},
                 {"what": f"train ours, RoPE (2 layers, D {width}), torch.compile", "N": length,
                  "measured": f"best of {rounds} x {steps} steps; compiled in {compile_s:.0f} s",
                  "rate": f"{best['compiled']:.0f} tokens/s ({ratio:.2f}x eager)",
                  "target": "wins" if ratio > 1 else "loses"}]
    eager, compiled = (_board_training(mode, board_steps) for mode in (False, True))
    ratio = eager[1] / compiled[1]
    what = "train the leaderboard's quick cell (Copy, RoPE; a length drawn every step)"
    rows += [{"what": f"{what}, eager", "N": board_steps, "measured": f"{board_steps} steps in {eager[0]:.0f} s",
              "rate": f"{1000 * eager[1]:.1f} ms/step after the first {FIRST_STEPS}", "target": ""},
             {"what": f"{what}, torch.compile (dynamic shapes)", "N": board_steps,
              "measured": f"{board_steps} steps in {compiled[0]:.0f} s, compiling included",
              "rate": f"{1000 * compiled[1]:.1f} ms/step after the first {FIRST_STEPS} ({ratio:.2f}x eager)",
              "target": "wins" if compiled[0] < eager[0] else "loses"}]
    return pd.DataFrame(rows)


FIRST_STEPS = 5  # steps of a training run left out of its pace (compiling happens in them)


def _board_training(compiled: bool, steps: int) -> tuple[float, float]:
    """(seconds in all, seconds per step after the first FIRST_STEPS) of training the leaderboard's quick cell, its
    loss eager or compiled for dynamic shapes (each step draws its own length, so static shapes would compile anew
    for every length)."""
    cfg = LEADERBOARD_PROFILES["quick"].run("copy", "rope", 0)
    task, model = build_leaderboard_run(cfg)
    if compiled:
        model.loss = torch.compile(model.loss, dynamic=True)
    marks = {}

    def mark(step: int) -> None:
        marks[step] = time.perf_counter()

    start = time.perf_counter()
    train(model, task, replace(cfg.training(), steps=steps), generator(0, "bench board"), callback=mark)
    return marks[steps] - start, (marks[steps] - marks[FIRST_STEPS]) / (steps - FIRST_STEPS)


ARITHMETIC_TEST_S = 15 * 60  # target: the full extrapolation test of one full-profile model within 15 minutes


def matmul_macs_per_second(size: int = 2048, rounds: int = 3) -> float:
    """Multiply-adds per second of a size x size matrix product on this machine (best of `rounds`): the physical
    limit that a model's arithmetic is measured against."""
    a, b = (torch.randn(size, size, generator=generator(0, f"matmul {i}")) for i in range(2))
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - start)
    return size**3 / best


def decoding_macs(cfg: TransformerConfig, source: int, steps: int, vocab: int) -> int:
    """Multiply-adds of cached greedy decoding of one example by an encoder-decoder: the encoder over `source` tokens,
    `steps` decoder steps (projections, feed-forward, attention over the steps so far and the source, the output
    head) and cross-attention's keys and values projected once."""
    D, F_, E, L = cfg.width, cfg.ff, cfg.encoder_layers, cfg.layers
    encoder = E * (source * (4 * D * D + 2 * D * F_) + 2 * source * source * D)
    per_step = L * (6 * D * D + 2 * D * F_) + D * vocab
    attention = L * (steps * (steps + 1) * D + 2 * steps * source * D)
    return encoder + steps * per_step + L * 2 * source * D * D + attention


def bench_arithmetic(length: int = 50, samples: int = 500) -> pd.DataFrame:
    """Evaluation as the paper's protocol asks: batched, cached greedy decoding of the full profile's model (1 encoder
    + 6 decoder layers, D 128; untrained, with <eos> suppressed so that every output runs its full length) on
    Successor at `length` digits. Every example has the same length (operands padded to the profile's fixed width),
    so the full test (lengths 1-50, min(9 x 10^(L-1), 10^4) examples each) takes the measured time per example
    times its number of examples. Reports examples/s, multiply-adds/s against a large matrix product's, and that
    projection against ARITHMETIC_TEST_S."""
    cfg = ARITHMETIC_PROFILES["full"].run("successor", "sinusoidal", 0)
    task, models = build_arithmetic(cfg)
    model = models["trained"].eval()
    with torch.no_grad():
        model.head.bias[EOS] = -1e4
    examples = task.examples(str(length), samples)
    start = time.perf_counter()
    sequence_metrics(task, model, examples)
    rate = samples / (time.perf_counter() - start)
    source, steps = len(examples[0][0]), len(examples[0][1]) + 1
    achieved = rate * decoding_macs(cfg.model, source, steps, len(task.vocab))
    peak = matmul_macs_per_second()
    total = sum(task.splits[str(n)].size for n in range(1, 51))
    projected = total / rate
    return pd.DataFrame([
        {"what": "arithmetic: cached greedy decoding (full model, 1 + 6 layers, D 128)", "N": length,
         "measured": f"{samples} examples, {source} source tokens, {steps} steps",
         "rate": f"{rate:.0f} examples/s; {achieved / 1e9:.2f} G multiply-adds/s = {achieved / peak:.1%} of a "
                 f"2048^2 matmul's {peak / 1e9:.1f} G/s", "target": ""},
        {"what": "arithmetic: the full extrapolation test (lengths 1-50)", "N": total, "measured": "projected",
         "rate": f"{projected / 60:.1f} min",
         "target": f"{'met' if projected <= ARITHMETIC_TEST_S else 'missed'} (target {ARITHMETIC_TEST_S / 60:g} min)"},
    ])
