"""What "The Role of Sparsity for Length Generalization in Transformers" states, as data: the claims its figures
support (it reports curves, not tables; these are the statements of its text) and its one table of numbers."""

from dataclasses import dataclass

import pandas as pd

from lengthgen.analysis.claims import BASELINE, Claim, claims_versus
from lengthgen.analysis.verdicts import NOT_TRAINED
from lengthgen.papers.sparsity.readings import VERSUS

# Table 1: perplexity of 1.3B OLMo models on C4, by training context (rows) and evaluation length (columns).
TABLE_1 = pd.DataFrame({"eval length 64": [17.59, 17.62], "eval length 128": [14.74, 14.49]},
                       index=pd.Index(["trained at 64 (PoSE)", "trained at 128"], name="model"))


def _t1(t1: pd.DataFrame) -> str:
    return "; ".join(f"{r.variant}: {r.verdict} ({r['in distribution (worst k)']:.0f}% in distribution; "
                     f"{r.iloc[3]} at the longest length)" for _, r in t1.iterrows())


def _k_rows(table: pd.DataFrame) -> str:
    return "; ".join(f"{r.variant}: {r.verdict} ({r.detail})" for r in table.itertuples())


def _reach(t: pd.DataFrame) -> str:
    return "; ".join(f"{r.variant}: {r['in distribution']:.0f}% in distribution, >= 90% up to "
                     f"{r['stays >= 90% up to']}" for _, r in t.iterrows())


def _t2(t2: pd.DataFrame) -> str:
    coupled = t2[~t2.verdict.isin(["baseline", NOT_TRAINED])].iloc[0]
    return f"{coupled.verdict} ({_reach(t2)})"


def _ablations(t2: pd.DataFrame) -> pd.DataFrame:
    """The baselines of a T2 table (`readings.coupling_claim`), each judged by its own verdict against the coupled
    model; the coupled row stays in, with the reference verdict, for the text."""
    return t2.assign(verdict=[v if v else BASELINE for v in t2[VERSUS]])


def _each_row(table: pd.DataFrame) -> str:
    return "; ".join(f"{r.variant}: {r.verdict} ({r['in distribution']:.0f}% in distribution)"
                     for _, r in table.iterrows())


def _assignment(t: pd.DataFrame) -> str:
    return "; ".join(f"depth {depth}: {_t2(g)}" for depth, g in t.groupby("depth"))


def _language(claims: pd.DataFrame) -> str:
    return "; ".join(f"{r.verdict} ({r.ours})" for r in claims.itertuples())


CLAIMS = [  # each figure's statement, and the reading of ours that judges it (papers/sparsity/readings.py)
    Claim("Figs. 1, 7", "a small training bound K: near-perfect accuracy for every k <= K up to length 500 (10x "
                        "training) (T1)", "sparsity-parity", "parity", _t1,
          each="variant"),  # readings.sparsity_claim, one row per training bound K
    Claim("Figs. 1, 7 (larger k)", "larger k degrades: within each training bound K, larger k <= K generalize worse "
                                   "although every k <= K fits; and at sparsities k > K, in and out of distribution "
                                   "(T1)", "sparsity-parity", "parity k", _k_rows,
          each="variant"),  # readings.k_claims, one row per bound with K >= 2 and one per bound with k > K tested
    Claim("Fig. 2", "every jump length j fits its training lengths; smaller j (sparser steps) generalizes further, "
                    "although its scratchpad is longer", "sparsity-scratchpad", "jumps", _each_row,
          each="variant"),  # readings.jump_claim, one row per jump against the next smaller one
    Claim("Fig. 8", "without coupling (absolute positions with a random shift), and with RoPE + PoSE, length "
                    "generalization is much worse than with PPC (T2)", "sparsity-scratchpad", "scratchpad",
          _each_row, rows=_ablations, each="variant"),  # readings.coupling_claim, one row per ablation against PPC
    Claim("Fig. 3", "variable assignment: PPC generalizes to about 3x the training length; no coupling, no "
                    "scratchpad and RoPE + PoSE do not", "sparsity-assignment", "assignment",
          _assignment, each="depth"),  # readings.assignment_claim, one row per chain depth
    Claim("Table 1, Figs. 4-6", "a context-64 model (PoSE) has lower perplexity at 128 than at 64, so it uses "
                                "tokens beyond 64; a few far tokens recover most of the gain", "sparsity-language",
          "language",
          _language, each="claim"),  # analysis.language.language_claims, one row per claim
]


def versus(live: dict[str, pd.DataFrame | None], stored: dict[str, pd.DataFrame | None]) -> pd.DataFrame:
    """Each claim with our verdict and the numbers behind it, for the live runs and for the stored runs.

    Args:
        live, stored: reading tables by key ("parity", "jumps", "scratchpad", "assignment", "language"; see
            CLAIMS); a claim whose table is missing, None or empty says "not run yet". The stored readings are each
            grid's at the profile it is read at (`rows.READ_AT`).
    """
    return claims_versus(CLAIMS, live, stored, "figure", "stored runs")


# The paper's settings that the chapter's prose quotes (Appendices E and F; the symbols of Section 5's text are lost
# from our copy, the appendices' tables keep them).
@dataclass(frozen=True)
class SyntheticSetup:
    """One synthetic experiment as Appendix E states it: its table's lengths (in the paper's unit), batch, largest
    position id and training runs, and the settings every synthetic experiment shares."""

    train: tuple[int, int]  # minimum and maximum training length
    longest_test: int  # maximum testing length
    batch: int
    max_id: int  # the largest position id
    runs: int  # training runs (seeds)
    steps: int = 50_000
    warmup: int = 300  # App. E: a linear learning-rate schedule with 300 warm-up steps
    layers: int = 12  # App. E: the GPT-NeoX decoder of 12 layers, 16 heads, embedding dimension 1024
    width: int = 1024


SETUPS = {  # by experiment of ours
    "sparsity-parity": SyntheticSetup((20, 50), 500, 64, 510, 1),  # Table 2 (E.1), tokens; Sec. 5.1: "near-perfect
    # ... up to lengths of 500"
    "sparsity-scratchpad": SyntheticSetup((10, 40), 200, 64, 210, 10),  # Table 3 (E.2), combined lengths; Fig. 8's
    # ablations 3 runs
    "sparsity-assignment": SyntheticSetup((20, 60), 200, 32, 230, 3),  # Table 4 (E.3), tokens; Fig. 3(c) 10 runs
}
PARITY_BOUNDS = (4, 12)  # the training bounds K of Fig. 1, by the authors' summary in our spec (lost from our copy)
ASSIGNMENT_REACH = 3  # Sec. 5.2.2: PPC generalizes "for test lengths up to 3 times the training sequence length"
LANGUAGE_PARAMETERS = 1.3e9  # App. F: "each has 1.3B parameters"
LANGUAGE_TOKENS = 25e9  # App. F: "both models were trained on roughly 25B tokens"
LANGUAGE_CORPUS = "C4"  # App. F: the corpus the OLMo models were trained and evaluated on
LANGUAGE_TOKENIZER = ("Llama-2-7b subwords", 32_000)  # App. F's table: tokenizer and vocabulary size
LANGUAGE_CONTEXTS = (64, 128)  # App. F's table: training context lengths of the two models
LANGUAGE_POSE_SHARE = 0.3  # Sec. 5.3: PoSE "on the final 30% of the iterations"
LANGUAGE_POSE_STEPS = 15_000  # App. F: "34000 steps without PoSE, and 15000 steps with PoSE"
