"""What "From Interpolation to Extrapolation: Complete Length Generalization for Arithmetic Transformers" reports, as
data: exact match (%) by operand length of its Table 1 (vanilla, ALiBi, RoPE and ABC) and Table 3's scaffolding rows,
and the claims its figures support. Table 3's other rows repeat Table 1's models, but for RoPE on N x 1, which only
Table 3 reports (TABLE_3_ONLY); the rows of other papers' models that it quotes (RPE, the Parity baselines) are left
out."""

import pandas as pd

from lengthgen.analysis.claims import Claim, claims_versus
from lengthgen.analysis.verdicts import CLASSES as VERDICT_ORDER
from lengthgen.analysis.verdicts import NOT_TRAINED, verdict_class

LENGTHS = (6, 10, 15, 20, 50)  # the tables' columns: operand digits

# (task, model, exact match at LENGTHS); model names are ours (`experiments.abc.variant`, ABC stages)
TABLE_1 = [
    ("successor", "vanilla", (100.0, 0.0, 0.0, 0.0, 0.0)),
    ("successor", "ALiBi", (1.3, 0.0, 0.0, 0.0, 0.0)),
    ("successor", "RoPE", (100.0, 0.0, 0.0, 0.0, 0.0)),
    ("successor", "ABC", (100.0, 100.0, 100.0, 100.0, 100.0)),
    ("addition", "vanilla", (100.0, 0.0, 0.0, 0.0, 0.0)),
    ("addition", "ALiBi", (0.0, 0.0, 0.0, 0.0, 0.0)),
    ("addition", "RoPE", (100.0, 0.0, 0.0, 0.0, 0.0)),
    ("addition", "ABC", (100.0, 100.0, 99.9, 99.9, 99.8)),
    ("times_digit", "vanilla", (100.0, 0.0, 0.0, 0.0, 0.0)),
    ("times_digit", "ABC", (100.0, 100.0, 100.0, 100.0, 100.0)),
]

# Table 3's scaffolding rows ("+ w = 1" keeps the sinusoids; "+ T = 3" adds cyclic indexing; NoPE has no positions),
# all with the operands interleaved for the binary tasks
TABLE_3 = [
    ("successor", "w=1, sinusoidal", (100.0, 100.0, 100.0, 100.0, 100.0)),
    ("successor", "w=1, T=3", (100.0, 100.0, 100.0, 100.0, 100.0)),
    ("successor", "w=1, NoPE", (100.0, 100.0, 100.0, 100.0, 100.0)),
    ("addition", "w=1, sinusoidal", (100.0, 0.0, 0.0, 0.0, 0.0)),
    ("addition", "w=1, T=3", (100.0, 100.0, 100.0, 100.0, 100.0)),
    ("addition", "w=1, NoPE", (99.95, 99.81, 99.84, 99.76, 99.35)),
    ("parity", "w=1, sinusoidal", (100.0, 100.0, 100.0, 100.0, 100.0)),
    ("parity", "w=1, T=3", (100.0, 100.0, 100.0, 100.0, 100.0)),
    ("parity", "w=1, NoPE", (100.0, 100.0, 100.0, 100.0, 100.0)),
    ("times_digit", "w=1, sinusoidal", (100.0, 6.0, 0.19, 0.0, 0.0)),
    ("times_digit", "w=1, T=3", (100.0, 100.0, 100.0, 100.0, 100.0)),
    ("times_digit", "w=1, NoPE", (99.89, 99.63, 99.49, 99.39, 98.31)),
]
TABLE_3_ONLY = [("times_digit", "RoPE", (100.0, 0.0, 0.0, 0.0, 0.0))]  # a Table 1 model that only Table 3 reports
PAPER_ROWS = TABLE_1 + TABLE_3 + TABLE_3_ONLY  # every row of the paper's that we set beside ours

# The public code's recipe, where it differs by setting from the profiles' (`experiments.recipe` rows; its model
# differs by task: for Successor 3 decoder layers of width 128, 8 heads, FF 512)
PUBLIC_CODE_RECIPE = {
    "dropout": "0.3 (on the attention weights too)",
    "token embeddings": "xavier x sqrt(D)",
    "optimiser": "Adam 0.0001, betas (0.9, 0.98), eps 1e-09",
    "learning rate schedule": "constant",
    "gradient clip": "none",
    "batch": "512",
    "training steps": "128-256 epochs",
    "ABC retraining": "at the constant rate, no warm-up",
    "operands padded to": "50 or 123, by task",
    "test lengths": "1-60 digits",
    "examples per length": "51",
}

LISTOPS_TASKS = ("listops_sum", "listops_max", "listops_min")
# Appendix C states without numbers that w = 1 with T = 3 solves single-operator, depth-1 ListOps (its main text: 100%
# to 50 digits is what the paper means by solved): the class of each such model's curve
APPENDIX_C = {(task, "w=1, T=3"): "extrapolates" for task in LISTOPS_TASKS}

def table_rows(rows: list[tuple]) -> pd.DataFrame:
    """Long table (task, model, length, paper) of TABLE_1 or TABLE_3."""
    return pd.DataFrame([(task, model, length, value) for task, model, values in rows
                         for length, value in zip(LENGTHS, values, strict=True)],
                        columns=["task", "model", "length", "paper"])


def paper_table() -> pd.DataFrame:
    """Every number of the paper that we set beside ours (PAPER_ROWS), as `table_rows`."""
    return table_rows(PAPER_ROWS)


UNITS = {"parity": "bits", **{task: "items" for task in LISTOPS_TASKS}}  # what a length counts (default: digits)
TITLES = {"times_digit": "N x 1"}  # tasks whose name is not their title


def title(task: str) -> str:
    """A task's name in prose: "N x 1", "ListOps SUM", "Successor"."""
    if task.startswith("listops_"):
        return f"ListOps {task.removeprefix('listops_').upper()}"
    return TITLES.get(task, task.replace("_", " ").capitalize())


def _models(rows: pd.DataFrame) -> str:
    """A claim's (task, model) rows of `readings.model_claims` as one text, grouped by verdict with their counts
    (in the order of their classes, `verdicts.CLASSES`): each model with its class, the paper's where they differ,
    and how far it holds >= 90%; the models that did not fit their training lengths by name only."""
    if rows.empty:
        return "not run"

    def one(r) -> str:
        name = f"{r.task} {r.model}{f' ({r.rule})' if r.rule else ''}"
        if r.verdict == NOT_TRAINED:
            return name
        classes = r.ours if r.ours == r.paper else f"ours {r.ours}, paper {r.paper}"
        return (f"{name} ({classes}; >= 90% to {r['ours >= 90% up to']} of {r['longest tested']} "
                f"{UNITS.get(r.task, 'digits')})")

    groups = sorted(rows.groupby("verdict", sort=False), key=lambda g: VERDICT_ORDER.index(verdict_class(g[0])))
    return ". ".join(f"{len(group)} of {len(rows)} {verdict}: {'; '.join(one(r) for _, r in group.iterrows())}"
                     for verdict, group in groups)


def _attention(claim: pd.DataFrame) -> str:
    return "; ".join(f"{r.task} {r.model}: {r.verdict} (anti-diagonal weight {r.inside} within the training digits, "
                     f"{r.beyond} beyond, at {r.length} digits)" for r in claim.itertuples())


def _picked(pick):
    """A claim's rows of `readings.model_claims`: those whose (task, model) `pick` keeps."""
    return lambda table: table[[pick(t, m) for t, m in zip(table.task, table.model, strict=True)]]


CLAIMS = [  # each claim of the paper, and the reading of ours that judges it ("claims": `readings.model_claims`,
    # "attention": `readings.attention_claim`)
    Claim("Table 1, Figs. 1, 7", "vanilla (sinusoidal) and RoPE models interpolate (100% at 6 digits) and collapse to "
                                 "0% from 10 digits; ALiBi does not even interpolate", "abc-table1", "claims", _models,
          _picked(lambda _, m: m in ("vanilla", "ALiBi", "RoPE"))),
    Claim("Figs. 2, 8, 9", "the vanilla model's last-layer attention follows the anti-diagonal up to the training "
                           "length and loses it beyond", "abc-table1", "attention", _attention),
    Claim("Table 1, Figs. 4, 5", "ABC (the interpolating model's attention, averaged along lines, kept where strong, "
                                 "extended and retrained with) holds ~100% to 50 digits", "abc-table1", "claims",
          _models, lambda table: table[(table.model == "ABC") & (table.rule == "paper")]),  # the paper's rule with
    # the sinusoids, as the paper's ABC; the code's thresholds on our lines and ours without positions are read apart
    Claim("Table 3", "a windowed attention bias (w = 1) with cyclic positions (T = 3) holds 100% to 50 digits on "
                     "every task; without positions (NoPE) nearly so", "abc-scaffolding", "claims", _models,
          _picked(lambda task, m: m.startswith("w=") and task not in LISTOPS_TASKS)),
    Claim("Appendix C", "the same scaffold (w = 1, T = 3) solves single-operator, depth-1 ListOps (SUM mod 10, MAX, "
                        "MIN)", "abc-scaffolding", "claims", _models, _picked(lambda task, _: task in LISTOPS_TASKS)),
]


def versus(live: dict[str, pd.DataFrame | None], stored: dict[str, pd.DataFrame | None],
           stored_label: str = "stored cpu runs") -> pd.DataFrame:
    """Each claim with one verdict for the live runs and one for the stored runs (the cells behind them are
    `analysis.verdict_grid`'s figure).

    Args:
        live, stored: readings by key ("claims": `readings.model_claims`, "attention": `readings.attention_claim`); a
            missing, None or empty one says "not run yet".
        stored_label: the stored runs' column, e.g. "stored regime runs".
    """
    return claims_versus(CLAIMS, live, stored, "where", stored_label, verdicts_only=True)
