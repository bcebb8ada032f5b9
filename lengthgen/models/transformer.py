"""Transformers on the attention core: a decoder-only model and an encoder-decoder, built from one block.

A block is self-attention (causal in a decoder), optionally cross-attention to an encoder's output, and a
feed-forward layer, each wrapped in a residual connection with LayerNorm before it (pre-LN, the default) or after
the sum (post-LN). Positions enter only through the model's `POSITIONAL` scheme, shared by every layer: `embed` at the
input, `rotate` and `bias` inside each self-attention. Position ids come from the batch, so a task can couple them.

Predictive position coupling (PPC): with `ppc`, a second head predicts the position id of the next token from the
same hidden state as the next token; its cross-entropy is added to the loss, and generation feeds the predicted id
back as the next token's id.

Attention weights of every layer and head are read through the hook points `blocks.<i>.self_attn.hook_pattern`
(and `.cross_attn.` in the encoder-decoder); while one is watched, that layer computes attention explicitly.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import nn

from lengthgen.config import added
from lengthgen.data import EOS, PAD, SOS, LMBatch, Seq2SeqBatch
from lengthgen.models.attention import KVCache, MultiHeadAttention
from lengthgen.models.dropout import Dropout, check_mask
from lengthgen.models.norms import NORMS
from lengthgen.models.positional import CrossView, Positional, build_scheme

EMBED_INITS = ("normal", "xavier")  # TransformerConfig.embed_init
MEMORY_FRAMES = ("end", "start")  # TransformerConfig.memory_from


@dataclass(frozen=True)
class TransformerConfig:
    """Architecture of either transformer."""

    width: int = 128  # D: model width
    heads: int = 4  # H: attention heads (divides D)
    layers: int = 2  # decoder blocks
    encoder_layers: int = 1  # encoder blocks (encoder-decoder only; 0 = the embeddings are the encoder's output)
    ff: int = 512  # width of the feed-forward layer
    post_ln: bool = False  # LayerNorm after each residual sum (post-LN) instead of before each sublayer (pre-LN)
    positional: str = "rope"  # a POSITIONAL scheme, or several joined by "+" (e.g. "cyclic+bias")
    max_positions: int = 256  # size of id tables (learned positions, bias tables) and of the PPC head
    period: int = 3  # T of the cyclic scheme
    ppc: bool = False  # predictive position coupling: a head predicting the next token's position id
    ppc_weight: float = 1.0  # weight of the position loss added to the token loss
    embed_scale: float = added(1.0)  # token embeddings times this (sqrt(D) in the ABC public code)
    dropout: float = added(0.0)  # dropout after the embeddings and on each sublayer's output (ABC: 0.3)
    attention_dropout: float = added(0.0)  # dropout on every attention's weights in training (the ABC public code's
    # torch layers: 0.3, as its other dropout)
    ff_dropout: float = added(0.0)  # dropout between the feed-forward layer's two linears (torch's decoder layer, the
    # ABC public code: 0.3)
    embed_init: str = added("normal")  # token embeddings' initialisation: "normal", N(0, 0.02) (GPT-2's); "xavier",
    # Xavier-uniform on the (vocabulary, D) table (the ABC public code, which also scales them by sqrt(D): embed_scale)
    dropout_mask: str = added("torch")  # how every dropout of the model draws its mask: "torch" or "bits", the same
    # distribution drawn several times faster (`models.dropout`)
    attention_norm: str = added("baseline")  # what each self-attention's output O gets before its output projection:
    # `models.norms.NORMS` ("baseline": nothing; "ln": the vanishing-variance paper's +LN; "std": its +std.)
    memory_from: str = added("end")  # the encoder-decoder's frame: where cross-attention counts the source's ids from
    # (`MEMORY_FRAMES`): "end", where the paper's tasks answer from (the ABC chapter's), or "start"

    def __post_init__(self):
        if self.embed_init not in EMBED_INITS:
            raise ValueError(f"unknown embed_init {self.embed_init!r}; valid: {', '.join(EMBED_INITS)}")
        if self.attention_norm not in NORMS:
            raise ValueError(f"unknown attention_norm {self.attention_norm!r}; valid: {', '.join(NORMS)}")
        check_mask(self.dropout_mask, "dropout_mask")
        if self.memory_from not in MEMORY_FRAMES:
            raise ValueError(f"unknown memory_from {self.memory_from!r}; valid: {', '.join(MEMORY_FRAMES)}")

    def scheme(self, attention_layers: int, causal: Iterable[int]) -> Positional:
        """A fresh positional scheme ("a+b" composes) for a model with `attention_layers` attention layers, of which
        `causal` are a decoder's self-attention."""
        return build_scheme(self.positional, self.width, self.heads, attention_layers, self.max_positions,
                            self.period, causal)


class Block(nn.Module):
    """Self-attention, optional cross-attention, feed-forward; each a residual sublayer with LayerNorm. Cross-attention
    (layer index `cross_layer`) sees only the scheme's cross-attention bias (`Positional.cross_bias`)."""

    def __init__(self, cfg: TransformerConfig, positional: Positional, layer: int, cross_layer: int | None = None):
        super().__init__()
        D, cross = cfg.width, cross_layer is not None
        self.post_ln = cfg.post_ln
        p, mask = cfg.attention_dropout, cfg.dropout_mask
        self.self_attn = MultiHeadAttention(D, D, D, cfg.heads, positional, layer, fused=True, dropout=p,
                                            dropout_mask=mask)
        self.self_out = nn.Linear(D, D)
        self.self_norm = NORMS[cfg.attention_norm](D)  # on O, before self_out (the vanishing-variance paper's place)
        self.cross_attn = MultiHeadAttention(D, D, D, cfg.heads, CrossView(positional), cross_layer,
                                             fused=True, dropout=p, dropout_mask=mask) if cross else None
        self.cross_out = nn.Linear(D, D) if cross else None
        # the activation and its dropout as one module, so that the linears keep their names (ff.0, ff.2) either way
        act = nn.Sequential(nn.GELU(), Dropout(cfg.ff_dropout, mask)) if cfg.ff_dropout else nn.GELU()
        self.ff = nn.Sequential(nn.Linear(D, cfg.ff), act, nn.Linear(cfg.ff, D))
        self.norms = nn.ModuleList(nn.LayerNorm(D) for _ in range(3 if cross else 2))
        self.drop = Dropout(cfg.dropout, mask)

    def _residual(self, x: torch.Tensor, norm: nn.Module, sublayer) -> torch.Tensor:
        return norm(x + self.drop(sublayer(x))) if self.post_ln else x + self.drop(sublayer(norm(x)))

    def forward(self, x: torch.Tensor, ids: torch.Tensor, causal: bool, cache: KVCache | None = None,
                memory: torch.Tensor | None = None, memory_mask: torch.Tensor | None = None,
                memory_ids: torch.Tensor | None = None, memory_cache: KVCache | None = None,
                mask: torch.Tensor | None = None) -> torch.Tensor:
        """(B, T, D) -> (B, T, D) for tokens at position ids (B, T); a cache adds earlier positions as keys; memory
        (B, S, D) at ids `memory_ids` (B, S) is what cross-attention reads (its keys and values kept in the static
        `memory_cache` when given, projected once per decoding); `mask` (B, keys: the cache's and these) leaves the
        keys it marks False out of self-attention."""
        x = self._residual(x, self.norms[0], lambda h: self.self_out(self.self_norm(
            self.self_attn(h, h, ids, ids, mask=mask, causal=causal, cache=cache))))
        if self.cross_attn is not None:
            x = self._residual(x, self.norms[1], lambda h: self.cross_out(
                self.cross_attn(h, memory, ids, memory_ids, mask=memory_mask, cache=memory_cache)))
        return self._residual(x, self.norms[-1], self.ff)


class Stack(nn.Module):
    """Token embedding + the scheme's embedding, blocks, and (pre-LN) a final LayerNorm."""

    def __init__(self, cfg: TransformerConfig, vocab_size: int, positional: Positional, layers: int, first: int = 0,
                 cross: bool = False):
        """Blocks numbered first .. first + layers - 1; with `cross`, their cross-attention layers come after them."""
        super().__init__()
        self.embed = nn.Embedding(vocab_size, cfg.width)
        if cfg.embed_init == "xavier":
            nn.init.xavier_uniform_(self.embed.weight)  # U(+-sqrt(6 / (V + D)))
        else:
            nn.init.normal_(self.embed.weight, std=0.02)  # GPT-2's scale, the same as learned positions
        self.__dict__["positional"] = positional  # registered once, by the model (an encoder-decoder shares it)
        self.blocks = nn.ModuleList(Block(cfg, positional, first + i, first + layers + i if cross else None)
                                    for i in range(layers))
        self.norm = nn.Identity() if cfg.post_ln else nn.LayerNorm(cfg.width)
        self.scale = cfg.embed_scale
        self.drop = Dropout(cfg.dropout, cfg.dropout_mask)

    def forward(self, tokens: torch.Tensor, ids: torch.Tensor, causal: bool, caches: list[KVCache] | None = None,
                memory: torch.Tensor | None = None, memory_mask: torch.Tensor | None = None,
                memory_ids: torch.Tensor | None = None, memory_caches: list[KVCache] | None = None,
                mask: torch.Tensor | None = None) -> torch.Tensor:
        """Hidden states (B, T, D) of tokens (B, T) at ids (B, T); `caches` (self-attention) and `memory_caches`
        (cross-attention, static) one per block, from `caches`; `mask` (B, keys) as `Block.forward`'s."""
        x = self.embed(tokens) * self.scale
        extra = self.positional.embed(ids)
        x = self.drop(x if extra is None else x + extra)
        for i, block in enumerate(self.blocks):
            x = block(x, ids, causal, None if caches is None else caches[i], memory, memory_mask, memory_ids,
                      None if memory_caches is None else memory_caches[i], mask)
        return self.norm(x)

    def caches(self, batch: int, device: torch.device, static: bool = False, capacity: int = 0) -> list[KVCache]:
        """One empty cache per block (`static`: for cross-attention), with room for `capacity` positions."""
        attn = self.blocks[0].self_attn
        return [KVCache(batch, attn.heads, attn.w_k.out_features // attn.heads, device, static, capacity)
                for _ in self.blocks]


class Generation(NamedTuple):
    """What a decoder generated: tokens (B, A) and their position ids (B, A)."""

    tokens: torch.Tensor
    ids: torch.Tensor


class DecoderOnly(nn.Module):
    """A causal transformer language model over `LMBatch`es: the loss counts the answer tokens (and, with PPC, their
    position ids); generation is greedy with a key/value cache.

    Args:
        cfg: the architecture.
        vocab_size: the number of token ids.
    """

    def __init__(self, cfg: TransformerConfig, vocab_size: int):
        super().__init__()
        self.cfg = cfg
        self.positional = cfg.scheme(cfg.layers, causal=range(cfg.layers))
        self.stack = Stack(cfg, vocab_size, self.positional, cfg.layers)
        self.head = nn.Linear(cfg.width, vocab_size)
        self.position_head = nn.Linear(cfg.width, cfg.max_positions) if cfg.ppc else None

    @property
    def width(self) -> int:
        return self.cfg.width

    @property
    def predicts_ids(self) -> bool:
        """Whether generation predicts its position ids (PPC), so that they are part of a correct answer."""
        return self.position_head is not None

    def loss(self, batch: LMBatch) -> torch.Tensor:
        """Mean cross-entropy of the answer tokens given everything before them (+ ppc_weight x that of their ids);
        <pad>s after an answer are skipped."""
        ids, p, mask = batch.positions, batch.prompt, batch.mask
        h = self.stack(batch.tokens[:, :-1], ids[:, :-1], causal=True, mask=None if mask is None else mask[:, :-1])
        h = h[:, p - 1:]  # the states that predict the answer
        loss = F.cross_entropy(self.head(h).transpose(1, 2), batch.answer, ignore_index=PAD)
        if self.position_head is not None:
            answer_ids = ids[:, p:].masked_fill(batch.answer == PAD, -100)  # cross_entropy's default ignore_index
            loss = loss + self.cfg.ppc_weight * F.cross_entropy(self.position_head(h).transpose(1, 2), answer_ids)
        return loss

    def logits(self, tokens: torch.Tensor, ids: torch.Tensor, last: bool = False) -> torch.Tensor:
        """Next-token logits (B, T, V) at every position of tokens (B, T) at ids (B, T); only the last (B, V) with
        `last`. A token left out of `tokens` (its id left out of `ids`, the others kept) is masked out of every
        attention: the leave-one-out of the chapter's language study."""
        h = self.stack(tokens, ids, causal=True)
        return self.head(h[:, -1] if last else h)

    @torch.no_grad()
    def generate(self, tokens: torch.Tensor, ids: torch.Tensor, steps: int, answer_ids: torch.Tensor | None = None,
                 cache: bool = True, oracle: bool = False, mask: torch.Tensor | None = None) -> Generation:
        """Greedy continuation of prompts (B, P) at ids (B, P) by `steps` tokens; `mask` (B, P): False at left pads,
        which no attention reads.

        The id of each new token: the PPC head's prediction when the model has one (unless `oracle`); else
        `answer_ids[:, t]` when given (ids the task fixes by structure, e.g. coupled scratchpad ids); else the previous
        id + 1. `oracle` feeds `answer_ids` to a PPC model too (the head's predictions are still returned as the ids):
        what the model writes when its ids are right, which tells its id head's errors from its lookups'.
        Without `cache`, every step recomputes the whole sequence (the same result, slower; for tests and benches).
        """
        if oracle and answer_ids is None:
            raise ValueError("an oracle generation needs the answer's ids (answer_ids)")
        caches = self.stack.caches(tokens.shape[0], tokens.device, capacity=tokens.shape[1] + steps) if cache else None
        seq, seq_ids = tokens, ids
        keys = None if mask is None else torch.cat([mask, mask.new_ones(mask.shape[0], steps)], 1)  # every key's
        h = self.stack(tokens, ids, causal=True, caches=caches, mask=mask)[:, -1]
        out, out_ids = [], []
        for t in range(steps):
            token = self.head(h).argmax(-1)  # (B,)
            if self.position_head is not None:
                next_id = self.position_head(h).argmax(-1)
            elif answer_ids is not None:
                next_id = answer_ids[:, t]
            else:
                next_id = seq_ids[:, -1] + 1
            out.append(token)
            out_ids.append(next_id)
            if oracle:
                next_id = answer_ids[:, t]
            seq, seq_ids = torch.cat([seq, token[:, None]], 1), torch.cat([seq_ids, next_id[:, None]], 1)
            if t + 1 < steps:
                seen = None if keys is None else keys[:, :seq.shape[1]]
                if cache:
                    h = self.stack(token[:, None], next_id[:, None], causal=True, caches=caches, mask=seen)[:, -1]
                else:
                    h = self.stack(seq, seq_ids, causal=True, mask=seen)[:, -1]
        return Generation(torch.stack(out, 1), torch.stack(out_ids, 1))

    def predict(self, batch: LMBatch, oracle: bool = False) -> Generation:
        """The greedy answer to each prompt of the batch, as long as the batch's answers (`oracle`: `generate`'s)."""
        ids, p = batch.positions, batch.prompt
        return self.generate(batch.tokens[:, :p], ids[:, :p], batch.length - p, answer_ids=ids[:, p:], oracle=oracle,
                             mask=None if batch.mask is None else batch.mask[:, :p])


class EncoderDecoder(nn.Module):
    """An encoder over the source and a causal decoder with cross-attention over `Seq2SeqBatch`es: teacher-forced
    loss on the target (with <eos>); greedy decoding with a key/value cache.

    The encoder has `encoder_layers` blocks (0: its output is the embedded source, as in the public code of Attention
    Bias Calibration); both stacks share one positional scheme, its attention layers numbered encoder, then decoder
    self-attention, then decoder cross-attention. Cross-attention sees the source positions counted from its end
    (the last source token has id 0), so that a reversed output's anti-diagonal is one diagonal of ids whatever the
    source's length; or, with `memory_from = "start"`, from its start, where an output that reads its source in order
    is that one diagonal.
    """

    def __init__(self, cfg: TransformerConfig, vocab_size: int):
        super().__init__()
        self.cfg = cfg
        self.positional = cfg.scheme(cfg.encoder_layers + 2 * cfg.layers, causal=self.decoder_layers[0])
        self.encoder = Stack(cfg, vocab_size, self.positional, cfg.encoder_layers)
        self.decoder = Stack(cfg, vocab_size, self.positional, cfg.layers, first=cfg.encoder_layers, cross=True)
        self.head = nn.Linear(cfg.width, vocab_size)

    @property
    def width(self) -> int:
        return self.cfg.width

    @property
    def decoder_layers(self) -> tuple[range, range]:
        """The layer indices (in the scheme's numbering) of the decoder's self-attention and cross-attention layers;
        the encoder's come first, 0 .. encoder_layers - 1."""
        e, d = self.cfg.encoder_layers, self.cfg.layers
        return range(e, e + d), range(e + d, e + 2 * d)

    @staticmethod
    def _ids(given: torch.Tensor | None, tokens: torch.Tensor) -> torch.Tensor:
        return given if given is not None else torch.arange(tokens.shape[1], device=tokens.device).expand_as(tokens)

    def encode(self, batch: Seq2SeqBatch) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The encoder's output (B, S, D), the source mask (B, S), True at real tokens, and the ids cross-attention
        reads the source at (B, S): positions counted from the end or the start (`TransformerConfig.memory_from`), 0
        on padding."""
        positions = torch.arange(batch.src.shape[1], device=batch.src.device)[None, :]
        mask = positions < batch.src_len[:, None]
        ids = batch.src_len[:, None] - 1 - positions if self.cfg.memory_from == "end" else positions
        memory = self.encoder(batch.src, self._ids(batch.src_pos, batch.src), causal=False)
        return memory, mask, ids.clamp(min=0) * mask

    def loss(self, batch: Seq2SeqBatch) -> torch.Tensor:
        """Mean cross-entropy of the target tokens (padding ignored), the decoder reading <sos> + target[:-1]."""
        memory, mask, memory_ids = self.encode(batch)
        inputs = torch.cat([torch.full_like(batch.tgt[:, :1], SOS), batch.tgt[:, :-1]], 1)
        h = self.decoder(inputs, self._ids(batch.tgt_pos, inputs), causal=True, memory=memory, memory_mask=mask,
                         memory_ids=memory_ids)
        return F.cross_entropy(self.head(h).transpose(1, 2), batch.tgt, ignore_index=PAD)

    @torch.no_grad()
    def predict(self, batch: Seq2SeqBatch, max_steps: int | None = None) -> torch.Tensor:
        """Greedy decoding (B, <= max_steps) of token ids, <pad> after each <eos>; stops when every row has ended.
        max_steps defaults to the longest target (with <eos>). Step t reads id `tgt_pos[:, t]` when the batch has
        target ids (and t is within them), else t, as in training."""
        max_steps = int(batch.tgt_len.max()) if max_steps is None else max_steps
        memory, mask, memory_ids = self.encode(batch)
        B, device = batch.src.shape[0], batch.src.device
        caches = self.decoder.caches(B, device, capacity=max_steps)
        memory_caches = self.decoder.caches(B, device, static=True, capacity=batch.src.shape[1])
        token = torch.full((B,), SOS, dtype=torch.long, device=device)
        done = torch.zeros(B, dtype=torch.bool, device=device)
        out = []
        for t in range(max_steps):
            given = batch.tgt_pos is not None and t < batch.tgt_pos.shape[1]
            ids = batch.tgt_pos[:, t:t + 1] if given else torch.full((B, 1), t, dtype=torch.long, device=device)
            h = self.decoder(token[:, None], ids, causal=True, caches=caches, memory=memory, memory_mask=mask,
                             memory_ids=memory_ids, memory_caches=memory_caches)
            token = self.head(h[:, -1]).argmax(-1).masked_fill(done, PAD)
            out.append(token)
            done |= token == EOS
            if bool(done.all()):
                break
        return torch.stack(out, 1)


def build_decoder(cfg: TransformerConfig, task) -> DecoderOnly:
    """A decoder-only transformer over the task's vocabulary."""
    return DecoderOnly(cfg, len(task.vocab))


def build_encoder_decoder(cfg: TransformerConfig, task) -> EncoderDecoder:
    """An encoder-decoder transformer over the task's vocabulary (source and target share it)."""
    return EncoderDecoder(cfg, len(task.vocab))
