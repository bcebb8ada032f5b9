"""The vanishing-variance probe: one layer, one head, one query, no residual connections.

items -> item MLP -> keys/values; query -> W_Q; O = softmax(QK^T / sqrt(D)) V -> norm (baseline/+LN/+std)
-> W_O -> predictor MLP -> class logits. The attention output O is the quantity whose variance vanishes.
The attention is the package's `MultiHeadAttention` with one head and one query (H = 1, T = 1); its hook points
`attention.hook_scores`, `attention.hook_pattern` (B, 1, 1, N) and `attention.hook_output` (B, 1, 1, D) capture the
logits, weights and O, and `hook_normed` (B, D) the normed O.
"""

import math
from dataclasses import dataclass

import torch
from torch import nn

from lengthgen.data import SetBatch
from lengthgen.models.attention import MultiHeadAttention
from lengthgen.models.hooks import HookPoint
from lengthgen.models.norms import NORMS


@dataclass(frozen=True)
class ProbeConfig:
    """Architecture of the attention probe."""

    width: int = 64  # D: width of items, keys, values, attention output and MLPs
    item_layers: int = 3  # linear layers in the per-item MLP (ReLU between); 0 = raw features through W_K/W_V
    predictor_layers: int = 3  # linear layers in the MLP after W_O (the last one outputs class logits)
    norm: str = "baseline"  # what is applied to O: baseline (nothing), ln (+LN), std (+std.)
    embed_dim: int = 32  # dictionary lookup: width of each of Emb_K and Emb_V


def mlp(d_in: int, width: int, d_out: int, layers: int) -> nn.Module:
    """`layers` linear maps d_in -> width -> ... -> d_out with ReLU between them (identity if layers == 0)."""
    if layers == 0:
        return nn.Identity()
    dims = [d_in] + [width] * (layers - 1) + [d_out]
    mods: list[nn.Module] = []
    for i in range(layers):
        mods.append(nn.Linear(dims[i], dims[i + 1]))
        if i < layers - 1:
            mods.append(nn.ReLU())
    return nn.Sequential(*mods)


class AttentionProbe(nn.Module):
    """Single-query, single-head attention classifier for set tasks (argmax retrieval, dictionary lookup).

    Args:
        task: the task instance (gives `query_kind`, feature sizes and `n_classes`).
        cfg: the architecture.
    """

    def __init__(self, task, cfg: ProbeConfig):
        super().__init__()
        d = cfg.width
        self.query_kind = task.query_kind
        if task.query_kind == "learned":  # argmax retrieval: float item features, one learned query
            feat_in, query_in = task.feature_dim, d
            self.query = nn.Parameter(torch.randn(d) / math.sqrt(d))
        else:  # dictionary lookup: items and query are class ids embedded by learned tables
            feat_in, query_in = 2 * cfg.embed_dim, cfg.embed_dim
            self.key_emb = nn.Embedding(task.n_keys, cfg.embed_dim)
            self.value_emb = nn.Embedding(task.n_values, cfg.embed_dim)
        item_out = d if cfg.item_layers else feat_in
        self.item_mlp = mlp(feat_in, d, d, cfg.item_layers)
        self.attention = MultiHeadAttention(query_in, item_out, d)  # W_Q, W_K, W_V; one head
        self.norm = NORMS[cfg.norm](d)
        self.w_o = nn.Linear(d, d, bias=False)
        self.predictor = mlp(d, d, task.n_classes, cfg.predictor_layers)
        self.hook_normed = HookPoint()  # B,D norm(O)

    @property
    def width(self) -> int:
        """D, the width of the attention output (evaluation sizes its sub-batches by it)."""
        return self.w_o.in_features

    def _features(self, batch: SetBatch) -> tuple[torch.Tensor, torch.Tensor]:
        """Item features (B,N,F) and query vectors (B,Dq)."""
        if self.query_kind == "learned":
            return batch.items, self.query.expand(batch.size, -1)
        keys, values = batch.items.unbind(-1)  # B,N each
        items = torch.cat([self.key_emb(keys), self.value_emb(values)], -1)  # B,N,2E
        return items, self.key_emb(batch.query[:, 0])  # B,E

    def scores_and_values(self, batch: SetBatch) -> tuple[torch.Tensor, torch.Tensor]:
        """Attention scores (B,1,1,N) of the one query over the items, and values (B,1,N,D)."""
        items, query = self._features(batch)
        return self.attention.scores_and_values(query[:, None, :], self.item_mlp(items))  # query (B,Dq) -> (B,1,Dq)

    def forward(self, batch: SetBatch, adaptive: bool = False) -> torch.Tensor:
        """Class logits (B,C); `adaptive` applies the test-time adaptive temperature to the attention."""
        return self.head(*self.scores_and_values(batch), adaptive)

    def head(self, scores: torch.Tensor, values: torch.Tensor, adaptive: bool) -> torch.Tensor:
        """Class logits (B,C) from the attention's scores and values."""
        out = self.attention.attend(scores, values, adaptive)[:, 0]  # O: (B,1,D) -> (B,D)
        return self.predictor(self.w_o(self.hook_normed(self.norm(out))))

    def loss(self, batch: SetBatch) -> torch.Tensor:
        """Mean cross-entropy of the target class."""
        return nn.functional.cross_entropy(self(batch), batch.target)

    @torch.no_grad()
    def predict(self, batch: SetBatch, modes: tuple[bool, ...] = (False,)) -> list[torch.Tensor]:
        """Predicted classes (B,) for each softmax mode (False = plain, True = adaptive), sharing one encoding."""
        scores, values = self.scores_and_values(batch)
        return [self.head(scores, values, adaptive).argmax(-1) for adaptive in modes]


def build(cfg: ProbeConfig, task) -> AttentionProbe:
    """The vanishing-variance attention probe (one layer, one head, one query) for a set task."""
    return AttentionProbe(task, cfg)
