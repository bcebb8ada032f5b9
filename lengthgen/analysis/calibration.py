"""Attention Bias Calibration (ABC): from the averaged attention of a model that interpolates, a bias matrix of any
size per head, built from the lines along which its attention lies.

A direction (1, delta) groups the cells of an m x n attention matrix into lines {(i + k, j + k delta)}: delta = 1 the
diagonals, 0 the columns (vertical lines), -1 the anti-diagonals. A line is named by its intercept, j - delta i. Each
line gets one value (the mean, or the sum, of its cells); lines above a threshold are kept, the others dropped (-inf);
the result is extended to M x N by giving each cell of the larger matrix the value of the line it continues, -inf where
no line of the small matrix continues. Extension aligns the top-left corners for delta >= 0 and the top-right corners
for delta < 0 (the paper's footnote on negative delta: anti-diagonals of a reversed output end at the source's last
column). Directions merge by an element-wise max; a head left with nothing but -inf becomes all zeros (transparent).

Three rules. The paper's (line means minus the largest, kept when the mean exceeds mu + 2 sigma of all line means
of that direction). "code" (CODE_SELF, CODE_CROSS): the public code's thresholds on the lines the caller searches
(line sums, not normalised; kept above mu + k sigma of the distinct non-zero sums, k = 4.5 for cross-attention and
0.87 for self-attention; only the first six rows of the attention are read). "public" (PUBLIC_SELF, PUBLIC_CROSS):
the public code's calibration as it is (its `calcBias.py`): the same sums and thresholds, but it searches only the
diagonal of self-attention and only the anti-diagonal of cross-attention (the diagonal of `average_attention`'s frame,
keys from the source's end), keeps a line whose sum equals the threshold (it drops those below), closes a cell with
-1e6 rather than -inf (a row with every cell closed is then the unbiased attention, up to float rounding), makes a
head with no line kept transparent in self-attention only, forces cross-attention's cell [0][-1] open (the first
output step on the source's last token: there its <eos>, one off the anti-diagonal; here, whose sources have no
<eos>, the units digit, on it), and averages the attention of one example (its capture buffer is never cleared, so
every sample reads the first one's). The paper's text compares the normalised value d_l - d_max with the threshold,
which no line could pass once the threshold is positive; we read it as keeping the lines whose mean passes it.

Two controls separate which lines a rule keeps from the value it gives them (`Rule.carries`): PAPER_SUMS keeps the
paper's lines but gives each its sum, as "code" does; CODE_FLAT keeps the code's lines but gives each 0, so that all
are equally open, as the paper's mean-minus-largest nearly does.

The paper and its public code calibrate from the last decoder layer and write that table into every layer; a rule
whose `source` is "each" calibrates each layer from its own attention instead (beyond the paper).
"""

from dataclasses import dataclass, replace

import torch

from lengthgen.device import device_of
from lengthgen.models.hooks import capture
from lengthgen.models.positional import CLOSED

DIRECTIONS = {"diagonal": 1, "vertical": 0, "anti-diagonal": -1}
# The lines ABC searches (self-attention's, cross-attention's), in our frame (cross-attention keys counted from the
# source's end): the diagonal (the paper's anti-diagonal of a reversed output; self-attention's diagonals) and vertical
# lines, the two the paper reports finding. The paper searches a third, its diagonal, our anti-diagonal: we leave it
# out (a divergence). In self-attention causal masking makes the corner cell (0, 0) a one-cell anti-diagonal of weight
# 1, which every threshold keeps; in cross-attention it would open other cells (`papers.abc.experiments.
# third_direction` counts them)
ABC_DIRECTIONS = (("diagonal", "vertical"), ("diagonal", "vertical"))
CARRIES = ("kept", "sum", "zero")  # what a kept line's cells get (`Rule.carries`)
SOURCES = ("last", "each")  # which decoder layer's attention a layer's bias is calibrated from (`Rule.source`)


@dataclass(frozen=True)
class Rule:
    """How line values are formed and kept."""

    reduce: str = "mean"  # "mean" or "sum" of a line's cells
    subtract_max: bool = True  # kept values become d_l - max_l d_l (0 for the strongest line)
    sigmas: float = 2.0  # keep a line when its value > mean + sigmas x std of the line values
    nonzero_only: bool = False  # the mean and std over the distinct non-zero values only
    rows: int | None = None  # read only the first `rows` rows of the attention
    directions: tuple[str, ...] | None = None  # the lines this rule searches, whatever the caller asks; None: the
    # caller's
    inclusive: bool = False  # keep a line whose value equals the threshold too (value >= threshold)
    transparent: bool = True  # a head with no line kept becomes zeros (open); False: it stays closed
    open_cells: tuple[tuple[int, int], ...] = ()  # (row, column) cells of the bias set to 0 whatever the lines
    closed: float = float("-inf")  # the value of a cell no kept line continues
    samples: int | None = None  # average the attention of only the first `samples` examples (`calibrated_table`)
    carries: str = "kept"  # the value a kept line gives its cells: "kept" the value it was kept by (after
    # subtract_max), "sum" its cells' sum, "zero" 0 (every kept line equally open); the last two are controls
    source: str = "last"  # the attention each decoder layer's bias is calibrated from: "last" the last layer's, for
    # every layer (the paper, the public code); "each" the layer's own (beyond the paper)

    def __post_init__(self):
        for name, value, valid in (("carries", self.carries, CARRIES), ("source", self.source, SOURCES)):
            if value not in valid:
                raise ValueError(f"unknown {name} {value!r}; valid: {', '.join(valid)}")


PAPER = Rule()
CODE_CROSS = Rule(reduce="sum", subtract_max=False, sigmas=4.5, nonzero_only=True, rows=6)
CODE_SELF = Rule(reduce="sum", subtract_max=False, sigmas=0.87, nonzero_only=True, rows=6)
PAPER_SUMS = replace(PAPER, carries="sum")
CODE_FLAT_CROSS, CODE_FLAT_SELF = replace(CODE_CROSS, carries="zero"), replace(CODE_SELF, carries="zero")
PUBLIC_CODE = -1e6  # the public code's closed cell
PUBLIC_SELF = replace(CODE_SELF, directions=("diagonal",), inclusive=True, closed=PUBLIC_CODE, samples=1)
PUBLIC_CROSS = replace(CODE_CROSS, directions=("diagonal",), inclusive=True, closed=PUBLIC_CODE, samples=1,
                       transparent=False, open_cells=((0, 0),))  # in `average_attention`'s frame (keys from the end)


def open_cells(table: torch.Tensor) -> torch.Tensor:
    """Where a bias table leaves attention open: above every value a closed cell holds (-inf as calibration returns
    it, `positional.CLOSED` as a model stores it, PUBLIC_CODE as the public code writes it)."""
    return table > max(CLOSED, PUBLIC_CODE)


def intercepts(rows: int, cols: int, delta: int, shift: int = 0) -> torch.Tensor:
    """(rows, cols) the intercept j - delta i of each cell's line, minus `shift` (the column offset of the aligned
    smaller matrix)."""
    i = torch.arange(rows)[:, None]
    j = torch.arange(cols)[None, :]
    return j - delta * i - shift


def line_values(attention: torch.Tensor, delta: int, reduce: str) -> tuple[torch.Tensor, torch.Tensor]:
    """(intercepts, values) of every line of direction (1, delta) through an (m, n) matrix, sorted by intercept."""
    m, n = attention.shape
    ids = intercepts(m, n, delta).flatten()
    names, index = torch.unique(ids, return_inverse=True)
    sums = torch.zeros(len(names), dtype=attention.dtype).index_add_(0, index, attention.flatten())
    if reduce == "sum":
        return names, sums
    if reduce != "mean":
        raise ValueError(f"unknown reduce {reduce!r}; valid: mean, sum")
    return names, sums / torch.bincount(index, minlength=len(names)).to(attention.dtype)


def kept(values: torch.Tensor, rule: Rule) -> torch.Tensor:
    """The rule's mask of the lines kept: value > mean + sigmas x std (population std) of the values it counts."""
    counted = torch.unique(values[values != 0]) if rule.nonzero_only else values
    if counted.numel() == 0:
        return torch.zeros_like(values, dtype=torch.bool)
    threshold = counted.mean() + rule.sigmas * counted.std(unbiased=False)
    return values >= threshold if rule.inclusive else values > threshold


def direction_bias(attention: torch.Tensor, size: tuple[int, int], delta: int, rule: Rule) -> torch.Tensor:
    """(M, N) bias of one direction: each cell the kept value of the line it continues, -inf elsewhere."""
    m, n = attention.shape
    M, N = size
    names, values = line_values(attention, delta, rule.reduce)
    keep = kept(values, rule)
    if rule.carries == "sum":
        values = line_values(attention, delta, "sum")[1]
    elif rule.carries == "zero":
        values = torch.zeros_like(values)
    elif rule.subtract_max:
        values = values - values.max()
    shift = N - n if delta < 0 else 0
    big = intercepts(M, N, delta, shift)
    slot = torch.searchsorted(names, big.clamp(names.min(), names.max()))
    found = names[slot] == big
    out = torch.where(found & keep[slot], values[slot], torch.tensor(float("-inf"), dtype=values.dtype))
    return out


def calibrate(attention: torch.Tensor, size: tuple[int, int], rule: Rule = PAPER,
              directions: tuple[str, ...] = tuple(DIRECTIONS)) -> torch.Tensor:
    """ABC's bias (H, M, N) from averaged attention (H, m, n): per head, the element-wise max over `directions` of
    `direction_bias`; a head with no line kept becomes zeros (where the rule makes it transparent); then the rule's
    open cells set to 0 and its closed value in the cells no kept line continues.

    Args:
        attention: averaged attention (weights or scores) of each head, (H, m, n), m <= M and n <= N.
        size: (M, N), the bias to build.
        rule: PAPER, CODE_CROSS, CODE_SELF, PUBLIC_CROSS, PUBLIC_SELF (or any `Rule`).
        directions: names from DIRECTIONS (a rule with directions of its own searches those instead).
    """
    H, m, n = attention.shape
    if m > size[0] or n > size[1]:
        raise ValueError(f"attention {m} x {n} is larger than the bias {size[0]} x {size[1]} to build")
    directions = rule.directions or directions
    unknown = [d for d in directions if d not in DIRECTIONS]
    if unknown:
        raise ValueError(f"unknown direction {unknown[0]!r}; valid: {', '.join(DIRECTIONS)}")
    attention = attention[:, : rule.rows] if rule.rows else attention
    heads = []
    for head in attention.double():
        bias = torch.stack([direction_bias(head, size, DIRECTIONS[d], rule) for d in directions]).amax(0)
        if rule.transparent and bool(torch.isinf(bias).all()):
            bias = torch.zeros_like(bias)
        for i, j in rule.open_cells:
            bias[i, j] = 0.0
        heads.append(bias.clamp(min=rule.closed))
    return torch.stack(heads).float()


ATTENTION_KINDS = ("self", "cross")  # a decoder block's two attentions


@torch.no_grad()
def decoder_attention(model, batch) -> dict[str, list[torch.Tensor]]:
    """Every decoder layer's attention weights on a teacher-forced `batch` whose examples share one length, in one
    pass: {"self": [(B, H, T, T) per layer], "cross": [(B, H, T, S) per layer]}, cross-attention's keys in source
    order, on the CPU whatever the model's device. Row t is the step that writes target token t (its input the token
    before, <sos> at t = 0)."""
    if bool((batch.src_len != batch.src_len[0]).any()) or bool((batch.tgt_len != batch.tgt_len[0]).any()):
        raise ValueError("decoder attention needs examples of one length (their weights are read cell by cell)")
    layers = range(len(model.decoder.blocks))
    names = {kind: [f"decoder.blocks.{i}.{kind}_attn.hook_pattern" for i in layers] for kind in ATTENTION_KINDS}
    model.eval()
    with capture(model, *names["self"], *names["cross"]) as rec:
        model.loss(batch.to(device_of(model)))
    return {kind: [rec[name][0].cpu() for name in kind_names] for kind, kind_names in names.items()}


def average_attention(model, batch, layer: int = -1) -> dict[str, torch.Tensor]:
    """The attention weights of an encoder-decoder's decoder layer `layer` (default the last), averaged over a
    teacher-forced batch whose examples share one length (`decoder_attention`): {"self": (H, T, T), "cross":
    (H, T, S)}, cross-attention's keys in the order of its bias table's ids: from the source's end, or from its start
    where the model counts them so (`TransformerConfig.memory_from`). Weights, as the paper's text says (its formula
    writes the scores before the softmax, which the causal mask sets far below any score above the diagonal)."""
    weights = decoder_attention(model, batch)
    cross = weights["cross"][layer].mean(0)
    return {"self": weights["self"][layer].mean(0),
            "cross": cross.flip(-1) if model.cfg.memory_from == "end" else cross}


def calibrated_table(model, batch, size: int, rules: tuple[Rule, Rule] = (PAPER, PAPER),
                     directions: tuple[tuple[str, ...], tuple[str, ...]] = (tuple(DIRECTIONS), tuple(DIRECTIONS)),
                     rows: int | None = None) -> torch.Tensor:
    """ABC's bias table for retraining an encoder-decoder like `model`: a decoder layer's averaged attention
    (`average_attention` on `batch`; its first `rows` decoder steps when given, self-attention's square corner)
    calibrated to size x size, self-attention with rules[0] along directions[0] into the decoder's self-attention
    layers, cross-attention with rules[1] along directions[1] into its cross-attention layers; encoder layers left
    open. The rules' `source` says which layer: "last", the last layer's table into every layer; "each", each layer's
    own. A rule with `samples` averages the first that many examples of the batch only. Returns (layers, H, size,
    size) for `positional.TableBias.set_table`."""
    self_layers, cross_layers = model.decoder_layers
    for name in ("samples", "source"):
        values = {getattr(rule, name) for rule in rules}
        if len(values) > 1:
            raise ValueError(f"the self- and cross-attention rules differ in {name}: {sorted(values, key=str)}")
    samples, source = rules[0].samples, rules[0].source
    if samples is not None:
        batch = batch.slice(0, samples)
    table = torch.zeros(cross_layers.stop, model.cfg.heads, size, size)
    # (layer read, self-attention layers written, cross-attention layers written)
    targets = ([(-1, self_layers, cross_layers)] if source == "last" else
               [(i, self_layers[i], cross_layers[i]) for i in range(len(self_layers))])
    for layer, self_into, cross_into in targets:
        average = average_attention(model, batch, layer)
        if rows is not None:
            average = {"self": average["self"][:, :rows, :rows], "cross": average["cross"][:, :rows]}
        table[self_into] = calibrate(average["self"], (size, size), rules[0], directions[0])
        table[cross_into] = calibrate(average["cross"], (size, size), rules[1], directions[1])
    return table
