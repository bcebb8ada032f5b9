"""GRU encoder-decoder with a pluggable cross-attention mechanism (the model of Chowdhury & Caragea 2023, App. E).

Encoder: embedding (64) of [START ; x_1 .. x_n ; END] (START and END are learned embedding vectors, so the
attention has positions before and after the source) -> 1-layer bidirectional GRU (64 per direction, packed so
padding never enters it) -> dropout 0.5.
Decoder: h_0 = [final forward state ; final backward state]; at step t the attention reads h_{t-1}, and a GRUCell
takes [embedding of the previous token ; context]. Output logits = (W h_t + c) E^T + b with E the tied embedding.

Revision 2 (`Seq2SeqConfig.revision`) follows the public code where the paper is silent: START/END are embedded
and encoded (revision 1 placed learned vectors around the encoder outputs), the embedding is initialised
N(0, 2/V) (Kaiming, fan-out), the output projection has a bias, and the attention (`cross_attention.py`) has the
code's value and output projections, bias-free location read-outs and sum-normalised Gaussian weights.
"""

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from lengthgen.data import EOS, PAD, SOS, Seq2SeqBatch
from lengthgen.models.cross_attention import CROSS_ATTENTION, CrossAttention, Memory

REVISION = 2
# Hook points that analyses read (see `hooks.capture`): the cross-attention weights of every step (B, S); the
# direction gate (B, 1, 1) of the mechanisms with direction mixing; MonoAttn's step gate b (a scalar, every step).
# A hook point that a mechanism lacks is absent from its `hook_names`.
HOOK_ATTENTION_WEIGHTS = "attention.weights"
HOOK_DIRECTION_GATE = "attention.direction_gate"
HOOK_MONO_GATE = "attention.location.step_activation.hook_b"
DECODE_MARGIN = 10  # `predict` decodes at most this many steps past the longest target by default


@dataclass(frozen=True)
class Seq2SeqConfig:
    """Architecture of the GRU seq2seq model."""

    attention: str = "content"  # key of CROSS_ATTENTION
    embed: int = 64  # token embedding size (tied with the output layer)
    hidden: int = 128  # D: decoder state = encoder output width (two directions of hidden/2)
    dropout: float = 0.5  # dropout on the encoder outputs
    revision: int = REVISION  # architecture revision (module docstring); only the current one can be built

    def __post_init__(self):
        if self.revision != REVISION:
            raise ValueError(f"Seq2SeqConfig.revision {self.revision} cannot be built: this code builds revision "
                             f"{REVISION} (entries of earlier revisions stay readable in the results store)")


class GRUSeq2Seq(nn.Module):
    """The seq2seq model: `loss(batch)` (teacher forcing) and `predict(batch, max_steps)` (greedy decoding).

    Args:
        vocab_size: number of tokens (specials included).
        cfg: the architecture.
    """

    def __init__(self, vocab_size: int, cfg: Seq2SeqConfig):
        super().__init__()
        self.cfg = cfg
        d = cfg.hidden
        self.embedding = nn.Embedding(vocab_size, cfg.embed, padding_idx=PAD)
        nn.init.kaiming_normal_(self.embedding.weight, mode="fan_out")
        self.encoder = nn.GRU(cfg.embed, d // 2, batch_first=True, bidirectional=True)
        self.start = nn.Parameter(torch.zeros(cfg.embed))
        self.end = nn.Parameter(torch.zeros(cfg.embed))
        self.noise: torch.Generator | None = None  # dropout randomness; `experiments.monotonic.build` seeds it
        self.attention = CrossAttention(CROSS_ATTENTION[cfg.attention], d)
        self.cell = nn.GRUCell(cfg.embed + d, d)
        self.out = nn.Linear(d, cfg.embed)
        nn.init.xavier_uniform_(self.out.weight)
        self.out_bias = nn.Parameter(torch.zeros(vocab_size))

    def encode(self, src: torch.Tensor, src_len: torch.Tensor) -> Memory:
        """src (B, S) -> Memory with S + 2 positions (START, tokens, END, padding)."""
        B, S = src.shape
        n = src_len + 2
        j = torch.arange(S + 2, device=src.device)
        x = self.embedding(src)
        x = torch.cat([self.start.expand(B, 1, -1), x, x.new_zeros(B, 1, x.shape[2])], dim=1)  # (B, S+2, E)
        x = torch.where((j[None, :] == (n - 1)[:, None])[:, :, None], self.end, x)
        packed = pack_padded_sequence(x, n.cpu(), batch_first=True, enforce_sorted=False)
        out, last = self.encoder(packed)
        enc, _ = pad_packed_sequence(out, batch_first=True, total_length=S + 2)  # (B, S+2, D), zeros on padding
        cls = torch.cat([last[0], last[1]], dim=-1)  # (B, D): final forward and backward states
        if self.training and self.cfg.dropout > 0:  # explicit generator: global RNG would make runs irreproducible
            keep = torch.rand(enc.shape, generator=self.noise).to(enc.device) >= self.cfg.dropout  # CPU generator
            enc = enc * keep / (1 - self.cfg.dropout)
        return Memory(enc, j[None, :] < n[:, None], n, cls)

    def logits(self, h: torch.Tensor) -> torch.Tensor:
        """(..., D) decoder states -> (..., V) token logits through the tied embedding."""
        return self.out(h) @ self.embedding.weight.T + self.out_bias

    def loss(self, batch: Seq2SeqBatch) -> torch.Tensor:
        """Mean token cross-entropy under teacher forcing (targets include <eos>, padding ignored)."""
        return F.cross_entropy(self.teacher_forced(batch).transpose(1, 2), batch.tgt, ignore_index=PAD)

    def teacher_forced(self, batch: Seq2SeqBatch) -> torch.Tensor:
        """Logits (B, T, V) for every target position, the previous gold token fed at each step."""
        memory = self.encode(batch.src, batch.src_len)
        B, T = batch.tgt.shape
        prev = torch.cat([batch.tgt.new_full((B, 1), SOS), batch.tgt[:, :-1]], dim=1)  # (B, T)
        inputs = self.embedding(prev)  # (B, T, E)
        state = self.attention.prepare(memory, T)
        h, states = memory.cls, []
        for t in range(T):
            ctx, _ = self.attention.step(h, t, state)
            h = self.cell(torch.cat([inputs[:, t], ctx], dim=-1), h)
            states.append(h)
        return self.logits(torch.stack(states, dim=1))  # (B, T, V)

    @torch.no_grad()
    def predict(self, batch: Seq2SeqBatch, max_steps: int | None = None) -> torch.Tensor:
        """Greedy decoding (B, <= max_steps) of token ids; stops once every sequence has emitted <eos>.

        Positions after a sequence's <eos> hold <pad>. max_steps defaults to the longest target + DECODE_MARGIN.
        """
        max_steps = int(batch.tgt_len.max()) + DECODE_MARGIN if max_steps is None else max_steps
        memory = self.encode(batch.src, batch.src_len)
        B = batch.src.shape[0]
        state = self.attention.prepare(memory, max_steps)
        h = memory.cls
        token = batch.src.new_full((B,), SOS)
        done = torch.zeros(B, dtype=torch.bool, device=batch.src.device)
        out = []
        for t in range(max_steps):
            ctx, _ = self.attention.step(h, t, state)
            h = self.cell(torch.cat([self.embedding(token), ctx], dim=-1), h)
            token = self.logits(h).argmax(-1).masked_fill(done, PAD)  # (B,)
            out.append(token)
            done |= token == EOS
            if bool(done.all()):
                break
        return torch.stack(out, dim=1)


def build(cfg: Seq2SeqConfig, task) -> GRUSeq2Seq:
    """GRU encoder-decoder with a pluggable cross-attention mechanism, for a seq2seq task.

    Dropout draws from `model.noise`, which the caller seeds."""
    return GRUSeq2Seq(len(task.vocab), cfg)
