"""The natural-language experiment of the sparsity chapter (the paper's Section 5.3, Table 1 and Figs. 4-6), scaled
down to Python's own documentation (`tasks.corpus`) and small RoPE decoders on 2 CPU cores.

Each run trains the paper's pair of language models from the same initialisation: the short-context one (PoSE for
the last part of its training, relative distances up to the long context) and the long-context one (no PoSE). It
stores both models' test perplexity at the short and the long length (Table 1), and the influence study
(`analysis.language.influence`) on test windows of the long length for every (scored model, choosing model) pair:
each model choosing its own far tokens (Figs. 4 and 6a), with the controls (random far tokens, far tokens chosen on
the token before), and each scored with the other's choice (Figs. 6b, 6c).
Metric rows carry the model in `lm`, the choosing model in `chooser` and the window in `example`.
"""

from dataclasses import dataclass, field, replace

import pandas as pd
from torch import nn

from lengthgen.analysis.language import (
    far_context_sparsity,
    influence,
    influence_points,
    language_claims,
    perplexity,
    perplexity_table,
)
from lengthgen.config import ignored
from lengthgen.metrics import FINAL_TRAIN_LOSS, NLL, PERPLEXITY
from lengthgen.models import build_model
from lengthgen.models.transformer import TransformerConfig
from lengthgen.results.experiment import Experiment
from lengthgen.results.store import RunOutput
from lengthgen.seeding import generator
from lengthgen.tasks.corpus import Corpus
from lengthgen.train.loop import LanguageTrainConfig, train

LMS = ("short", "long")  # the pair of models of a run


@dataclass(frozen=True)
class LanguageRun:
    """The pair of language models (one architecture; trained on windows of `short.max_length` and
    `long.max_length` tokens) and the evaluation: perplexity at both lengths; the influence study on `examples` test
    windows of the long length, keeping the `recent` tokens before the predicted one and adding k far ones for each
    k in `ks`."""

    seed: int = 0  # model init (shared by the pair) and training-data seed
    corpus: Corpus = field(default_factory=Corpus)
    model: TransformerConfig = field(default_factory=TransformerConfig)
    short: LanguageTrainConfig = field(default_factory=lambda: LanguageTrainConfig(
        min_length=64, max_length=64, positions="pose", pose_length=128))
    long: LanguageTrainConfig = field(default_factory=lambda: LanguageTrainConfig(min_length=128, max_length=128))
    recent: int = 64  # tokens before the predicted one that (b) and (c) keep
    examples: int = 128  # test windows of the influence study
    ks: tuple[int, ...] = (1, 2, 4, 8, 16)  # far tokens (c) adds back
    eval_seed: int = 0  # seed of the influence windows, shared by every run (paired comparisons)
    progress: bool = ignored(False)  # tqdm bars inside the run

    def training(self, lm: str) -> LanguageTrainConfig:
        return self.short if lm == "short" else self.long

    def steps(self) -> int:
        """The training steps of the pair (`Experiment.steps`)."""
        return self.short.steps + self.long.steps

    def name(self, lm: str) -> str:
        """How tables name a model of the pair: "context 64 + PoSE", "context 128"."""
        cfg = self.training(lm)
        return f"context {cfg.max_length}" + (" + PoSE" if cfg.positions == "pose" else "")


def language_labels(cfg: LanguageRun) -> dict:
    return {"task": cfg.corpus.name, "model": "decoder", "variant": " vs ".join(map(cfg.name, LMS)),
            "seed": cfg.seed}


def build_language_models(cfg: LanguageRun) -> tuple[Corpus, nn.ModuleDict]:
    """(corpus, the untrained pair as a ModuleDict "short"/"long"); both start from the config's seed."""
    return cfg.corpus, nn.ModuleDict({lm: build_model("decoder", cfg.model, cfg.corpus, seed=cfg.seed) for lm in LMS})


def influence_rows(table: pd.DataFrame, length: int) -> pd.DataFrame:
    """The influence study's per-window table as tidy rows: metric "nll full" / "nll recent" / "nll recent+k",
    `length` the window's, and the window's index in `example`."""
    long = table.melt(id_vars="example", var_name="losses", value_name="value")
    return pd.DataFrame({"length": length, "metric": NLL + " " + long.losses, "value": long.value,
                         "example": long.example})


def run_language(cfg: LanguageRun) -> RunOutput:
    """Train the pair, then Table 1 and the influence study for every (scored, choosing) pair; the checkpoint holds
    both models' weights."""
    corpus, models = build_language_models(cfg)
    rows = []
    lengths = (cfg.short.max_length, cfg.long.max_length)
    for lm in LMS:
        stats = train(models[lm], corpus, replace(cfg.training(lm), progress=cfg.progress),
                      generator(cfg.seed, f"train {lm}"), desc=f"corpus/{cfg.name(lm)}/{cfg.seed}")
        rows += [{"lm": cfg.name(lm), "length": n, "metric": PERPLEXITY,
                  "value": perplexity(models[lm], corpus.tiles("test", n, block=lengths[1]))} for n in lengths]
        rows.append({"lm": cfg.name(lm), "length": cfg.training(lm).max_length, "metric": FINAL_TRAIN_LOSS,
                     "value": stats["loss"]})
    batch = corpus.sample(cfg.examples, lengths[1], generator(cfg.eval_seed, "influence"), split="test").tokens
    studies = [influence_rows(influence(models[lm], batch, cfg.recent, cfg.ks, chooser=models[chooser],
                                        controls=generator(cfg.eval_seed, "controls") if lm == chooser else None,
                                        progress=cfg.progress), lengths[1]).assign(lm=cfg.name(lm),
                                                                                   chooser=cfg.name(chooser))
               for lm in LMS for chooser in LMS]
    return RunOutput(pd.concat([pd.DataFrame(rows), *studies], ignore_index=True), checkpoint=models.state_dict())


@dataclass(frozen=True, kw_only=True)
class LanguageSizes:
    """The sizes of one profile of the language experiment."""

    width: int  # D (4 heads, feed-forward 4 D)
    layers: int  # decoder blocks
    vocab: int  # word types of the corpus (the rest read as <unk>)
    steps: int  # training steps
    tokens: int  # training tokens per step (batch = tokens / context)
    lr: float  # peak AdamW learning rate
    short: int  # the short training context (PoSE to `long` in the last 30% of steps)
    long: int  # the long training context
    examples: int  # windows of the influence study
    ks: tuple[int, ...]  # far tokens added back
    seeds: tuple[int, ...]  # the profile's seeds (the --seeds default)
    source: str = "docs"  # the corpus (`tasks.corpus.SOURCES`)
    windows: str = "stream"  # whether windows may cross documents (`tasks.corpus.WINDOWS`)
    pose_steps: int = 0  # > 0: the short model's PoSE steps, after its first 70% of `steps` (0: the last 30% of them)

    def training(self, context: int) -> LanguageTrainConfig:
        """A model's training at `context`: the short one with PoSE to `long` (in the last 30% of `steps`, or for
        `pose_steps` after the first 70% of them), the long one with its own ids."""
        pose = context < self.long
        plain = round(LanguageTrainConfig.pose_from * self.steps)
        steps = plain + self.pose_steps if pose and self.pose_steps else self.steps
        return LanguageTrainConfig(steps=steps, batch_size=self.tokens // context, lr=self.lr,
                                   warmup=max(1, steps // 20), min_length=context, max_length=context,
                                   positions="pose" if pose else "given", pose_length=self.long if pose else 0,
                                   pose_from=plain / steps if steps != self.steps else LanguageTrainConfig.pose_from)

    def pose_split(self) -> tuple[int, int]:
        """The short model's steps before PoSE and with it (`training`): (7,000, 3,000) for 10,000 steps."""
        short = self.training(self.short)
        plain = round(short.pose_from * short.steps)
        return plain, short.steps - plain

    def run(self, seed: int) -> LanguageRun:
        model = TransformerConfig(width=self.width, heads=4, layers=self.layers, ff=4 * self.width,
                                  positional="rope", max_positions=self.long)
        return LanguageRun(seed=seed, corpus=Corpus(vocab_size=self.vocab, source=self.source, windows=self.windows),
                           model=model,
                           short=self.training(self.short), long=self.training(self.long), recent=self.short,
                           examples=self.examples, ks=self.ks)


# The paper: 1.3 B-parameter OLMo models, 25 B tokens of C4, contexts 64 and 128. Ours: RoPE decoders of 0.36 M
# parameters. cpu reads Python's documentation (426 k training tokens) as one stream, sized by timing on 2 CPU cores
# (book/methods.md). regime, the profile the chapter reads, is cpu's pair on documents long enough for its windows,
# which never cross one: the standard library's source files (a median of ~2,000 tokens each), for 10,000 steps (PoSE
# for the last 3,000; the paper's 15,000 PoSE steps are 5x that, at its scale), about an hour of one thread per pair.
# No quick size: a pair that learns enough to say anything takes ~15 CPU-minutes at cpu's size, beyond the chapter's
# budget, so the chapter shows stored runs only. full is larger, for a GPU, on the docs corpus (~40 passes over it):
# the paper's scale needs a corpus this machine cannot hold offline.
LANGUAGE_PROFILES = {
    "smoke": LanguageSizes(width=16, layers=1, vocab=512, steps=20, tokens=256, lr=1e-3, short=16, long=32, examples=4,
                           ks=(1, 2), seeds=(0,)),
    "cpu": LanguageSizes(width=64, layers=2, vocab=2048, steps=2000, tokens=2048, lr=1e-3, short=64, long=128,
                         examples=128, ks=(1, 2, 4, 8, 16), seeds=(0, 1, 2)),
    "regime": LanguageSizes(width=64, layers=2, vocab=2048, steps=10_000, tokens=2048, lr=1e-3, short=64, long=128,
                            examples=128, ks=(1, 2, 4, 8, 16), seeds=(0, 1, 2), source="code", windows="documents"),
    "full": LanguageSizes(width=256, layers=4, vocab=8192, steps=2_000, tokens=8192, lr=3e-4, short=64, long=128,
                          examples=512, ks=(1, 2, 4, 8, 16), seeds=(0, 1, 2)),
}


def language_runs(p: LanguageSizes, seeds: tuple[int, ...] | None) -> list[LanguageRun]:
    """One pair of models per seed (the sizes' seeds unless given)."""
    return [p.run(seed) for seed in (seeds if seeds is not None else p.seeds)]


def language_configs(profile: str, seeds: tuple[int, ...] | None) -> list[LanguageRun]:
    """The pairs of a profile (`language_runs`)."""
    return language_runs(LANGUAGE_PROFILES[profile], seeds)


LANGUAGE = Experiment(name="sparsity-language",
                      description="a short-context (PoSE) and a long-context language model: perplexity by length, "
                                  "far-token influence (Table 1, Figs. 4-6)",
                      configs=language_configs, run=run_language, labels=language_labels, build=build_language_models,
                      profiles=tuple(LANGUAGE_PROFILES), stored="regime",  # windows inside long documents
                      steps=LanguageRun.steps)


CLAIM_K = 4  # "a few far tokens": the k the claim is judged at (the paper's k is lost from our copy; chosen before
#             the stored runs; every k is shown beside it)


def language_reading(runs: pd.DataFrame, profile: str) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame,
                                                                  pd.DataFrame]:
    """(Table 1; the far-context sparsity summary by k and model pair; the two claims judged at CLAIM_K, or at the
    profile's largest k if it stops short of it (smoke); the scatter's points for every k) of a profile's runs."""
    p = LANGUAGE_PROFILES[profile]
    cfg = p.run(0)
    points = pd.concat([influence_points(runs, k).assign(k=k) for k in cfg.ks], ignore_index=True)
    summary = pd.concat({k: far_context_sparsity(points[points.k == k]) for k in cfg.ks}, names=["k"])
    claims = language_claims(runs, min(CLAIM_K, max(cfg.ks)), cfg.name("short"), p.long, cfg.name("long"))
    return perplexity_table(runs), summary, claims, points
