"""What "The Role of Sparsity for Length Generalization in Transformers" states, as data: the claims its figures
support (it reports curves, not tables; these are the statements of its text) and its one table of numbers."""

import pandas as pd

from lengthgen.analysis.verdicts import NOT_RUN, NOT_TRAINED

CLAIMS = [  # (figure, what the paper states, which experiment of ours tests it)
    ("Figs. 1, 7", "small k: near-perfect accuracy up to length 500 (10x training); larger k degrades, in and out "
                   "of distribution (T1)", "sparsity-parity"),
    ("Fig. 2", "every jump length j fits its training lengths; smaller j (sparser steps) generalizes further, "
               "although its scratchpad is longer", "sparsity-scratchpad"),
    ("Fig. 8", "without coupling (absolute positions with a random shift), and with RoPE + PoSE, length "
               "generalization is much worse than with PPC (T2)", "sparsity-scratchpad"),
    ("Fig. 3", "variable assignment: PPC generalizes to about 3x the training length; no coupling, no scratchpad "
               "and RoPE + PoSE do not", "sparsity-assignment"),
    ("Table 1, Figs. 4-6", "a context-64 model (PoSE) has lower perplexity at 128 than at 64; a few far tokens "
                           "recover most of the gain", "sparsity-language"),
]

# Table 1: perplexity of 1.3B OLMo models on C4, by training context (rows) and evaluation length (columns).
TABLE_1 = pd.DataFrame({"eval length 64": [17.59, 17.62], "eval length 128": [14.74, 14.49]},
                       index=pd.Index(["trained at 64 (PoSE)", "trained at 128"], name="model"))


def claims_table() -> pd.DataFrame:
    return pd.DataFrame(CLAIMS, columns=["figure", "the paper states", "our experiment"])


def _t1(t1: pd.DataFrame | None) -> str:
    if t1 is None or t1.empty:
        return NOT_RUN
    return "; ".join(f"{r.variant}: {r.verdict} ({r['in distribution (worst k)']:.0f}% in distribution; "
                     f"{r.iloc[3]} at the longest length)" for _, r in t1.iterrows())


def _t2(t2: pd.DataFrame | None) -> str:
    if t2 is None or t2.empty:
        return NOT_RUN
    coupled = t2[~t2.verdict.isin(["baseline", NOT_TRAINED])].iloc[0]
    return coupled.verdict + " (" + "; ".join(
        f"{r.variant}: {r['in distribution']:.0f}% in distribution, >= 90% up to {r['stays >= 90% up to']}"
        for _, r in t2.iterrows()) + ")"


def _language(claims: pd.DataFrame | None) -> str:
    if claims is None or claims.empty:
        return NOT_RUN
    return "; ".join(f"{r.verdict} ({r.ours})" for r in claims.itertuples())


def versus(t1_live: pd.DataFrame, t2_live: pd.DataFrame, t1_stored: pd.DataFrame | None = None,
           t2_stored: pd.DataFrame | None = None, language_stored: pd.DataFrame | None = None) -> pd.DataFrame:
    """Each claim with our verdicts and the numbers behind them, for the live run and the stored runs: T1 from
    `analysis.sparsity.sparsity_claim`'s tables (one entry per training bound), T2 from `coupling_claim`'s (the
    coupled variant's verdict, then every variant's numbers), the language claims from
    `analysis.language.language_claims` (stored runs only: the language study has no quick size); the claims not
    run yet say so."""
    rows = [(*CLAIMS[0][:2], _t1(t1_live), _t1(t1_stored)), (*CLAIMS[2][:2], _t2(t2_live), _t2(t2_stored))]
    rows += [(fig, text, NOT_RUN, NOT_RUN) for fig, text, _ in (CLAIMS[1], CLAIMS[3])]
    rows.append((*CLAIMS[4][:2], NOT_RUN, _language(language_stored)))
    return pd.DataFrame(rows, columns=["figure", "the paper states", "ours, live", "ours, stored cpu runs"])
