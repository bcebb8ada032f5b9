"""The vanishing-variance probe: one layer, one head, one query, no residual connections.

items -> item MLP -> keys/values; query -> W_Q; O = softmax(QK^T / sqrt(D)) V -> norm (baseline/+LN/+std)
-> W_O -> predictor MLP -> class logits. The attention output O is the quantity whose variance vanishes.
"""

import math
from dataclasses import dataclass

import torch
from torch import nn

from lengthgen.data import SetBatch
from lengthgen.models.hooks import HookPoint
from lengthgen.models.norms import NORMS
from lengthgen.models.softmax import attention_weights


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
        self.w_q = nn.Linear(query_in, d, bias=False)
        self.w_k = nn.Linear(item_out, d, bias=False)
        self.w_v = nn.Linear(item_out, d, bias=False)
        self.norm = NORMS[cfg.norm](d)
        self.w_o = nn.Linear(d, d, bias=False)
        self.predictor = mlp(d, d, task.n_classes, cfg.predictor_layers)
        self.scale = 1.0 / math.sqrt(d)
        # Hook points, in the order data flows through them.
        self.hook_logits = HookPoint()  # B,N attention logits
        self.hook_weights = HookPoint()  # B,N attention weights
        self.hook_out = HookPoint()  # B,D attention output O (before the norm)
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

    def attention_logits(self, batch: SetBatch) -> tuple[torch.Tensor, torch.Tensor]:
        """Attention logits (B,N) and values (B,N,D)."""
        items, query = self._features(batch)
        h = self.item_mlp(items)  # B,N,D
        q = self.w_q(query)  # B,D
        k, v = self.w_k(h), self.w_v(h)  # B,N,D each
        logits = torch.einsum("bd,bnd->bn", q, k) * self.scale  # B,N
        return self.hook_logits(logits), v

    def forward(self, batch: SetBatch, adaptive: bool = False) -> torch.Tensor:
        """Class logits (B,C); `adaptive` applies the test-time adaptive temperature to the attention."""
        return self.head(*self.attention_logits(batch), adaptive)

    def head(self, logits: torch.Tensor, v: torch.Tensor, adaptive: bool) -> torch.Tensor:
        """Class logits (B,C) from attention logits (B,N) and values (B,N,D)."""
        weights = self.hook_weights(attention_weights(logits, adaptive))  # B,N
        out = self.hook_out(torch.einsum("bn,bnd->bd", weights, v))  # B,D
        return self.predictor(self.w_o(self.hook_normed(self.norm(out))))

    def loss(self, batch: SetBatch) -> torch.Tensor:
        """Mean cross-entropy of the target class."""
        return nn.functional.cross_entropy(self(batch), batch.target)

    @torch.no_grad()
    def predict(self, batch: SetBatch, modes: tuple[bool, ...] = (False,)) -> list[torch.Tensor]:
        """Predicted classes (B,) for each softmax mode (False = plain, True = adaptive), sharing one encoding."""
        logits, v = self.attention_logits(batch)
        return [self.head(logits, v, adaptive).argmax(-1) for adaptive in modes]
