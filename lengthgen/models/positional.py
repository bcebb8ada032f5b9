"""Positional schemes behind one interface, and the POSITIONAL registry.

A scheme sees position ids (from the batch, so a task can couple positions) and acts through three hooks, each a
no-op by default, so attention code calls all three and never branches on a scheme's name:
  * `embed(ids)`: a vector added to each token's embedding (absolute schemes);
  * `rotate(x, ids)`: queries and keys rotated by their positions (RoPE);
  * `bias(query_ids, key_ids, layer)`: an additive term on the attention scores, per head (and layer);
  * `cross_bias(query_ids, key_ids, layer)`: the same for an encoder-decoder's cross-attention, which sees nothing
    else of the scheme (only a bias table acts there: the windowed bias or ABC's).
A new scheme is one subclass overriding what it changes, plus one registry line; "a+b" composes schemes.

Transforms of the ids (PoSE's chunked shift, position coupling's random offset, randomized positions) are functions
below: they change the ids a batch carries, never the scheme.
"""

import math
from collections.abc import Iterable

import torch
from torch import nn

from lengthgen.registry import Registry

BASE = 10_000.0  # wavelength base of sinusoids and rotary angles


def frequencies(d: int, device: torch.device | str | None = None) -> torch.Tensor:
    """(d/2,) angular frequencies BASE^(-2i/d), i = 0 .. d/2 - 1, of sinusoids and rotary angles."""
    return torch.exp(-math.log(BASE) * torch.arange(0, d, 2, dtype=torch.float32, device=device) / d)


def sinusoid(positions: torch.Tensor, d: int) -> torch.Tensor:
    """(...) positions -> (..., d) sinusoidal encodings (sin on the first half, cos on the second)."""
    angle = positions.float()[..., None] * frequencies(d, positions.device)  # (..., d/2)
    return torch.cat([angle.sin(), angle.cos()], dim=-1)


class Positional(nn.Module):
    """No positional information (NoPE); the base class whose hooks every scheme overrides where it acts.

    Every scheme takes the same arguments and uses those it needs.

    Args:
        width: D, the width of the token embeddings.
        heads: H, the number of attention heads (queries and keys are rotated per head, of width D / H).
        layers: the number of attention layers (a per-layer bias has one table each).
        max_positions: ids must lie in 0 .. max_positions - 1 for schemes with a table (learned, bias).
        period: T of cyclic indexing (ids mod T).
        causal: the attention layers (by index) whose queries see no later key: a decoder's self-attention (T5 buckets
            them apart from bidirectional ones).
    """

    def __init__(self, width: int, heads: int = 1, layers: int = 1, max_positions: int = 1024, period: int = 3,
                 causal: Iterable[int] = ()):
        super().__init__()
        self.width, self.heads, self.layers = width, heads, layers
        self.max_positions, self.period, self.causal = max_positions, period, frozenset(causal)

    def embed(self, ids: torch.Tensor) -> torch.Tensor | None:
        """(..., D) added to the embeddings of tokens at position ids (...); None adds nothing."""
        return None

    def rotate(self, x: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        """Queries or keys x (..., P, Dh) at position ids (P,) or (..., P), transformed by their positions."""
        return x

    def bias(self, query_ids: torch.Tensor, key_ids: torch.Tensor, layer: int = 0) -> torch.Tensor | None:
        """Additive scores (..., H, T, S) in attention layer `layer` for queries at ids (..., T) and keys at ids
        (..., S); None adds nothing."""
        return None

    def cross_bias(self, query_ids: torch.Tensor, key_ids: torch.Tensor, layer: int = 0) -> torch.Tensor | None:
        """Additive scores (..., H, T, S) in cross-attention layer `layer`; None adds nothing."""
        return None

    def _check(self, ids: torch.Tensor) -> torch.Tensor:
        """ids, after checking that a table of max_positions rows covers them."""
        if ids.numel() and (int(ids.min()) < 0 or int(ids.max()) >= self.max_positions):
            raise ValueError(f"position ids {int(ids.min())}..{int(ids.max())} outside the table of "
                             f"{self.max_positions} positions of {type(self).__name__}")
        return ids


class Learned(Positional):
    """A learned vector per absolute position id (GPT-2 style), added to the embeddings; ids < max_positions."""

    def __init__(self, width, heads=1, layers=1, max_positions=1024, period=3, causal=()):
        super().__init__(width, heads, layers, max_positions, period, causal)
        self.table = nn.Embedding(max_positions, width)
        nn.init.normal_(self.table.weight, std=0.02)

    def embed(self, ids):
        return self.table(self._check(ids))


class Sinusoidal(Positional):
    """Fixed sinusoids of the absolute position added to the embeddings (Vaswani et al. 2017)."""

    def embed(self, ids):
        return sinusoid(ids, self.width)


class Cyclic(Positional):
    """Cyclic position indexing: the sinusoid of (id mod T) added to the embeddings, so every position looks like one
    of the first T (Attention Bias Calibration's scaffolding, with T = `period`)."""

    def embed(self, ids):
        return sinusoid(ids % self.period, self.width)


class Rotary(Positional):
    """RoPE (Su et al. 2021): each pair of features (i, i + Dh/2) rotated by angle position x frequency i, so the
    dot product of a query and a key depends on their positions only through their difference."""

    def rotate(self, x, ids):
        angle = ids.float()[..., None] * frequencies(x.shape[-1], x.device)  # (..., P, Dh/2)
        angle = torch.cat([angle, angle], dim=-1)  # (..., P, Dh)
        if ids.dim() > 1:
            angle = angle.unsqueeze(-3)  # per-example ids (B, P, Dh) -> (B, 1, P, Dh): the same for every head
        half = x.shape[-1] // 2
        turned = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
        return x * angle.cos() + turned * angle.sin()


class ALiBi(Positional):
    """ALiBi (Press et al. 2022): no embedding; head h adds -m_h |i - j| to the score of query i for key j, with
    slopes m_h = 2^(-8 (h + 1) / H), a geometric sequence from 2^(-8/H) down to 2^-8."""

    def bias(self, query_ids, key_ids, layer=0):
        slopes = 2.0 ** (-8.0 * torch.arange(1, self.heads + 1, device=key_ids.device) / self.heads)  # (H,)
        distance = (query_ids[..., :, None] - key_ids[..., None, :]).abs().float()  # (..., T, S)
        return -slopes[:, None, None] * distance[..., None, :, :]  # (..., H, T, S)


T5_BUCKETS, T5_FAR = 32, 128  # T5's buckets per table, and the distance its log-spaced buckets span: every distance
# from it on shares a side's last bucket (with the shorter ones that bucket's width takes in)


def t5_bucket(offset: torch.Tensor, causal: bool = False) -> torch.Tensor:
    """The T5 bucket (0 .. T5_BUCKETS - 1) of each key's offset from its query (key id - query id). Bidirectional (an
    encoder's layers): the past and the query itself take the first half of the buckets, the future the second; causal
    (a decoder's self-attention): the past takes them all, and a key whose id is above the query's shares the query's
    bucket 0 (a later key, masked, where the ids follow the order). On a side of n buckets, distances below n / 2 have
    a bucket each, longer ones share buckets whose width grows geometrically up to T5_FAR, and all from T5_FAR share
    the side's last."""
    side = T5_BUCKETS if causal else T5_BUCKETS // 2
    exact = side // 2
    distance = (-offset).clamp(min=0) if causal else offset.abs()
    wide = exact + (torch.log(distance.clamp(min=exact).float() / exact) / math.log(T5_FAR / exact)
                    * (side - exact)).long()
    within = torch.where(distance < exact, distance, wide.clamp(max=side - 1))
    return within if causal else within + side * (offset > 0)


class T5Bias(Positional):
    """T5's relative bias (Raffel et al. 2020): a learned scalar per head and bucket of the key's offset from its query
    (`t5_bucket`), added to the scores. As in T5, one table serves every bidirectional layer (an encoder's) and another
    every causal one (a decoder's self-attention), each bucketing its own way. A scheme holds a table for each kind
    among its layer indices, where cross-attention layers count as bidirectional though T5 adds no bias there (an
    encoder-decoder without encoder layers holds a bidirectional table it does not use)."""

    def __init__(self, width, heads=1, layers=1, max_positions=1024, period=3, causal=()):
        super().__init__(width, heads, layers, max_positions, period, causal)
        kinds = dict.fromkeys(self._kind(layer) for layer in range(layers))
        self.tables = nn.ModuleDict({kind: nn.Embedding(T5_BUCKETS, heads) for kind in kinds})
        for table in self.tables.values():
            nn.init.normal_(table.weight, std=0.02)

    def _kind(self, layer: int) -> str:
        return "causal" if layer in self.causal else "bidirectional"

    def bias(self, query_ids, key_ids, layer=0):
        offset = key_ids[..., None, :] - query_ids[..., :, None]  # (..., T, S)
        kind = self._kind(layer)
        return self.tables[kind](t5_bucket(offset, causal=kind == "causal")).movedim(-1, -3)  # (..., H, T, S)


FIRE_HIDDEN = 32  # the width of FIRE's MLP (Li et al. 2024)


class FIRE(Positional):
    """FIRE (Li et al. 2024): head h adds f(psi(i - j) / psi(max(L, i)))_h to the score of query i for key j, with
    psi(x) = log(c x + 1), f an MLP (1 -> FIRE_HIDDEN -> H, ReLU between) and c > 0 and the threshold L learned; each
    attention layer has its own f, c and L (c starts at 1, L at 1 and stays >= 1, so psi(max(L, i)) > 0). The paper's
    models are causal (i >= j); for a key after its query (bidirectional layers) the input is -psi(j - i) / psi(max(L,
    i)), so f tells the two sides apart."""

    def __init__(self, width, heads=1, layers=1, max_positions=1024, period=3, causal=()):
        super().__init__(width, heads, layers, max_positions, period, causal)
        self.mlps = nn.ModuleList(nn.Sequential(nn.Linear(1, FIRE_HIDDEN), nn.ReLU(), nn.Linear(FIRE_HIDDEN, heads))
                                  for _ in range(layers))
        self.log_c = nn.Parameter(torch.zeros(layers))  # c = exp(log_c) > 0
        self.threshold = nn.Parameter(torch.ones(layers))  # L

    def bias(self, query_ids, key_ids, layer=0):
        if _same_rows(query_ids) and _same_rows(key_ids):  # every example at the same positions: the MLP runs once
            one = self.bias(query_ids[0], key_ids[0], layer)
            return one.expand(query_ids.shape[0], *one.shape)
        c = self.log_c[layer].exp()

        def psi(x):
            return torch.log1p(c * x)

        difference = (query_ids[..., :, None] - key_ids[..., None, :]).float()  # (..., T, S)
        scale = psi(torch.maximum(query_ids.float(), self.threshold[layer].clamp(min=1.0)))[..., :, None]  # (..., T, 1)
        x = difference.sign() * psi(difference.abs()) / scale
        return self.mlps[layer](x[..., None]).movedim(-1, -3)  # (..., H, T, S)


class OrderFIRE(FIRE):
    """FIRE over the tokens' order in the sequence rather than their ids: of T queries and S keys, key j is at j and
    query t at S - T + t (the last T keys: every query of a causal model, a decoding step's one query over its cache;
    T = S in a bidirectional layer), whatever ids the batch carries. Beside an id scheme ("learned+fire_order": the
    Abacus paper's learned ids of a digit's place with FIRE over the sequence, McLeish et al. 2024) the ids embed
    while the bias reads order. Order counts from a row's first column, so a left pad counts as a position."""

    def bias(self, query_ids, key_ids, layer=0):
        T, S = query_ids.shape[-1], key_ids.shape[-1]
        order = torch.arange(S, device=key_ids.device)
        one = super().bias(order[S - T:], order, layer)  # (H, T, S), the same for every example
        return one.expand(*query_ids.shape[:-1], *one.shape)


CLOSED = -1e9  # a table's closed cell: the score of a padded key (attention.NEG), far below any real score


class TableBias(Positional):
    """An arbitrary additive bias per layer and head, looked up by (query id, key id) in a table
    (layers, H, max_positions, max_positions): zeros until `set_table` fills it (e.g. with Attention Bias
    Calibration's bias, or a windowed bias). A buffer, not a parameter: training never changes it."""

    def __init__(self, width, heads=1, layers=1, max_positions=1024, period=3, causal=()):
        super().__init__(width, heads, layers, max_positions, period, causal)
        self.register_buffer("table", torch.zeros(layers, heads, max_positions, max_positions))

    def set_table(self, table: torch.Tensor) -> None:
        """Copy `table` (layers, H, M, M) with M <= max_positions into the top-left corner; the rest becomes 0.
        -inf (a closed cell) is stored as CLOSED, finite, so that a row with every cell closed stays a number."""
        L, H, M, M2 = table.shape
        if (L, H) != (self.layers, self.heads) or M != M2 or M > self.max_positions:
            raise ValueError(f"bias table {tuple(table.shape)} does not fit ({self.layers}, {self.heads}, M, M) "
                             f"with M <= {self.max_positions}")
        self.table.zero_()
        self.table[:, :, :M, :M] = table.clamp(min=CLOSED)

    def bias(self, query_ids, key_ids, layer=0):
        rows = self.table[layer]  # (H, M, M)
        query_ids, key_ids = self._check(query_ids), self._check(key_ids)
        if _same_rows(query_ids) and _same_rows(key_ids):  # every example at the same positions: look up once
            one = rows[:, query_ids[0][:, None], key_ids[0][None, :]]  # (H, T, S)
            return one.expand(query_ids.shape[0], *one.shape)  # (B, H, T, S), a view
        picked = rows[:, query_ids[..., :, None], key_ids[..., None, :]]  # (H, ..., T, S)
        return picked.movedim(0, -3)  # (..., H, T, S)

    cross_bias = bias  # cross-attention layers have tables of their own (later layer indices)


def _same_rows(ids: torch.Tensor) -> bool:
    """Whether batched ids (B, T) hold the same row for every example (a padded fixed-width format)."""
    return ids.dim() == 2 and bool((ids == ids[:1]).all())


POSITIONAL = Registry("positional scheme", {"none": Positional, "learned": Learned, "sinusoidal": Sinusoidal,
                                            "cyclic": Cyclic, "rope": Rotary, "alibi": ALiBi, "t5": T5Bias,
                                            "fire": FIRE, "fire_order": OrderFIRE, "bias": TableBias})


class Composite(Positional):
    """Several schemes at once: their embeddings and biases summed, their rotations applied in turn (e.g. cyclic
    indexing with a windowed bias table, the attention-bias scaffolding; sinusoids with ABC's bias table)."""

    def __init__(self, parts: list[Positional]):
        first = parts[0]
        super().__init__(first.width, first.heads, first.layers, first.max_positions, first.period, first.causal)
        self.parts = nn.ModuleList(parts)

    def embed(self, ids):
        return _total(p.embed(ids) for p in self.parts)

    def rotate(self, x, ids):
        for p in self.parts:
            x = p.rotate(x, ids)
        return x

    def bias(self, query_ids, key_ids, layer=0):
        return _total(p.bias(query_ids, key_ids, layer) for p in self.parts)

    def cross_bias(self, query_ids, key_ids, layer=0):
        return _total(p.cross_bias(query_ids, key_ids, layer) for p in self.parts)


class CrossView(Positional):
    """What cross-attention sees of a scheme: its `cross_bias` as the bias, nothing else."""

    def __init__(self, scheme: Positional):
        super().__init__(scheme.width, scheme.heads, scheme.layers, scheme.max_positions, scheme.period, scheme.causal)
        self.__dict__["scheme"] = scheme  # not a child module: the model owns the scheme

    def bias(self, query_ids, key_ids, layer=0):
        return self.scheme.cross_bias(query_ids, key_ids, layer)


def _total(terms) -> torch.Tensor | None:
    """The sum of the terms that are not None (None if all are)."""
    out = [t for t in terms if t is not None]
    return sum(out[1:], out[0]) if out else None


def build_scheme(name: str, width: int, heads: int = 1, layers: int = 1, max_positions: int = 1024,
                 period: int = 3, causal: Iterable[int] = ()) -> Positional:
    """The POSITIONAL scheme `name`, or for "a+b+..." a `Composite` of those schemes."""
    parts = [POSITIONAL[part](width, heads, layers, max_positions, period, causal) for part in name.split("+")]
    return parts[0] if len(parts) == 1 else Composite(parts)


def bias_table(model: nn.Module) -> TableBias:
    """The bias table of a model whose scheme has one ("bias", or a composite with "+bias")."""
    for module in model.modules():
        if isinstance(module, TableBias):
            return module
    raise ValueError(f"{type(model).__name__} has no bias table; its positional scheme needs a 'bias' part")


WINDOW_SPANS = ("strides", "tokens")  # what the cross-attention window's w counts on each side of its step's keys


def windowed_table(heads: int, size: int, self_layers: range, cross_layers: range, window: int,
                   stride: int = 1, offset: int = 0, span: str = "strides") -> torch.Tensor:
    """The scaffolding's windowed attention bias as a table (layers, H, size, size) indexed by (query id, key id):
    self-attention layers open each query's own position and the `window` before it; cross-attention layers, whose
    key ids count the source from its end (the reversed output's anti-diagonal becomes a diagonal), open for output
    step t its `stride` keys stride x t .. stride x t + stride - 1 (stride 2 for two interleaved operands) and
    `window` more on each side: `window` strides with span "strides" (stride x (t - window) .. stride x (t + window)
    + stride - 1), `window` tokens with span "tokens" (the paper's A.4: "extends to both left and right w positions");
    the two agree at stride 1. Each window is moved `offset` keys on (e.g. 1 to centre it on the digits of a source
    that ends with a marker). Every other cell is closed (-inf); layers in neither range stay open (0)."""
    if span not in WINDOW_SPANS:
        raise ValueError(f"unknown window span {span!r}; valid: {', '.join(WINDOW_SPANS)}")
    q = torch.arange(size)[:, None]
    k = torch.arange(size)[None, :]
    closed = torch.tensor(float("-inf"))
    self_open = torch.where((q - k >= 0) & (q - k <= window), 0.0, closed)
    reach = window * (stride if span == "strides" else 1)
    first, last = stride * q - reach + offset, stride * q + stride - 1 + reach + offset
    cross_open = torch.where((k >= first) & (k <= last), 0.0, closed)
    table = torch.zeros(max([*self_layers, *cross_layers]) + 1, heads, size, size)
    for layer in self_layers:
        table[layer] = self_open
    for layer in cross_layers:
        table[layer] = cross_open
    return table


def pose(ids: torch.Tensor, target_length: int, gen: torch.Generator) -> torch.Tensor:
    """PoSE (Zhu et al. 2024) on ids (B, P) of a training window: each row is cut at a uniform point into two chunks
    and the second chunk is shifted up by a uniform amount in 0 .. target_length - P, so the window's relative
    distances cover those of sequences up to `target_length` while its ids stay in order."""
    B, P = ids.shape
    room = target_length - P
    if room < 0:
        raise ValueError(f"PoSE target length {target_length} is shorter than the training window {P}")
    cut = torch.randint(1, max(P, 2), (B, 1), generator=gen)  # the second chunk starts at cut (1 .. P-1)
    shift = torch.randint(0, room + 1, (B, 1), generator=gen)
    second = torch.arange(P)[None, :] >= cut  # (B, P)
    return ids + (second * shift).to(ids.device)


def offset(ids: torch.Tensor, max_positions: int, gen: torch.Generator) -> torch.Tensor:
    """Position coupling's training-time shift: each row's ids (B, P) move up by a uniform s in
    0 .. max_positions - 1 - max(row), so every id up to the largest is trained; ids 0 (BOS, padding) stay 0."""
    top = ids.max(dim=1, keepdim=True).values.cpu()  # (B, 1), on the generator's device
    room = max_positions - 1 - top
    if bool((room < 0).any()):
        raise ValueError(f"position ids up to {int(top.max())} exceed max_positions {max_positions}")
    s = (torch.rand(room.shape, generator=gen) * (room + 1).float()).long()  # uniform 0 .. room per row
    return torch.where(ids > 0, ids + s.to(ids.device), ids)


def randomized(ids: torch.Tensor, max_positions: int, gen: torch.Generator) -> torch.Tensor:
    """Randomized positions (Ruoss et al. 2023) on ids (B, P): each row's ids 0 .. m (m its largest) go to m + 1
    distinct values drawn uniformly from 0 .. max_positions - 1 and sorted, id k to the (k+1)-th smallest, so order and
    ties (coupled ids) are kept while the gaps vary: a model trained on short sequences sees the ids of long ones. The
    paper draws them in training and at test alike (then every test id is one training could draw)."""
    top = int(ids.max()) if ids.numel() else 0
    if top >= max_positions:
        raise ValueError(f"position ids up to {top} exceed max_positions {max_positions}")
    rows = ids.cpu()
    out = torch.empty_like(rows)
    for b, row in enumerate(rows):
        drawn = torch.randperm(max_positions, generator=gen)[:int(row.max()) + 1].sort().values
        out[b] = drawn[row]
    return out.to(ids.device)
