"""The questions that cross the papers, answered from a board (`protocol.board`).

Each question sets a mechanism against a control, task by task, by the ranking's rule (`protocol.clearly_ahead`): where
both cells are trained and some seed of either scores past the training lengths, the mechanism is *ahead* when it is
clearly ahead of the control (its lowest seed's beyond score above the control's highest, or, where the beyond ranges
overlap, its lowest reach above the control's highest), *behind* in the reverse case, and *within the seeds' spread*
otherwise (so one seed's luck cannot make an answer, and a mechanism that is worse can come out behind); where every
seed of both scores 0% past them, the two are *both at 0% beyond*, counted apart: that floor says nothing of which
extrapolates further. A task where either cell is not trained is named apart, never counted. Which positional scheme is
best on average ranks the decoder's schemes by their mean beyond score over the tasks every one of them ran, a cell that
did not fit its training lengths counting 0 (of two at the same mean, the one that fits more tasks first), with the mean
of each cell's lowest seed and of its highest beside it; the first is *clearly best* only when its mean of lowest seeds
is above every other scheme's mean of highest, as a cell is clearly ahead of another. It says where each fails: the
tasks it does not fit, and those where another scheme is ahead of it by the same rule.
"""

from dataclasses import dataclass

import pandas as pd

from lengthgen.display import and_list
from lengthgen.leaderboard.grid import MECHANISMS
from lengthgen.leaderboard.protocol import RANKED, clearly_ahead
from lengthgen.registry import Registry

AHEAD, BEHIND, TIED, FLOOR = "ahead", "behind", "within the seeds' spread", "both at 0% beyond"


@dataclass(frozen=True)
class Question:
    """A mechanism against its control, on `tasks` (every task both ran where empty)."""

    text: str
    mechanism: str
    against: str
    tasks: tuple[str, ...] = ()


RECOPY = ("recopy", "reverse_recopy", "inv_recopy", "inv_reverse_recopy")
QUESTIONS = Registry("question", {
    "ln rope": Question("Does LayerNorm after attention (the vanishing-variance paper) help RoPE extrapolate?",
                        "rope+ln", "rope"),
    "ln nope": Question("Does LayerNorm after attention help a decoder without positions?", "nope+ln", "nope"),
    "abc": Question("Does ABC's calibrated bias take its encoder-decoder further?", "abc", "encdec"),
    "abc recopy": Question("Does ABC rescue the ReCopy tasks of monotonic attention?", "abc", "encdec", RECOPY),
    "location": Question("Does location attention take the GRU further than content attention?", "gru+locattn",
                         "gru+content"),
    "coupling": Question("Does position coupling beat RoPE where a task couples its ids?", "coupling", "rope"),
    "abacus fire": Question("Does FIRE add to Abacus embeddings?", "abacus+fire", "coupling"),
    "ppc input": Question("Does PPC beat RoPE where a task's coupled ids follow its input (ReCopy's digits, SCAN's "
                          "words)?", "ppc", "rope"),
    "ppc": Question("Does PPC beat RoPE with PoSE (the sparsity paper's baseline) on variable assignment?", "ppc",
                    "pose", ("variable_assignment",)),
})

# the decoder-only positional schemes that run on every task (no coupled ids, nothing else of the model changed)
SCHEMES = tuple(name for name, m in MECHANISMS.items() if not (m.seq2seq or m.coupled or m.model))


def _against(a: pd.Series, b: pd.Series) -> str:
    """The rule, for two trained cells of one task."""
    if a["beyond hi"] == b["beyond hi"] == 0:
        return FLOOR
    return AHEAD if clearly_ahead(a, b) else BEHIND if clearly_ahead(b, a) else TIED


def compare(board: pd.DataFrame, question: Question) -> pd.DataFrame:
    """Per task where both cells are on the board (of `question.tasks`, if any): the two beyond scores (median and
    seeds' range) and the comparison: AHEAD, BEHIND, TIED, FLOOR, or "not trained: <mechanisms>"."""
    cells = board.set_index(["task", "variant"])
    rows = []
    for task in dict.fromkeys(board.task):
        pair = [(task, m) for m in (question.mechanism, question.against)]
        if (question.tasks and task not in question.tasks) or not all(p in cells.index for p in pair):
            continue
        a, b = (cells.loc[p] for p in pair)
        untrained = [m for (_, m), cell in zip(pair, (a, b), strict=True) if cell.status != RANKED]
        rows.append({"task": task, **{f"{m} beyond": f"{c.beyond:.1f} ({c['beyond lo']:.1f}-{c['beyond hi']:.1f})"
                                      for (_, m), c in zip(pair, (a, b), strict=True)},
                     "comparison": f"not trained: {and_list(untrained)}" if untrained else _against(a, b)})
    return pd.DataFrame(rows, columns=["task", f"{question.mechanism} beyond", f"{question.against} beyond",
                                       "comparison"])


def answer(board: pd.DataFrame, question: Question) -> str:
    """The question and its answer in a sentence: on how many tasks the mechanism is ahead (none, if so), and of
    behind, within the spread and both at 0% beyond those that occur (naming the tasks), and where a cell is not
    trained; or that the board holds no task with both."""
    table = compare(board, question)
    if question.tasks and not set(question.tasks) & set(board.task):
        return f"{question.text} Not asked on this board: it holds no cell of {and_list(question.tasks)}."
    if table.empty:
        among = f" (of {and_list(question.tasks)})" if question.tasks else ""
        return f"{question.text} Not asked yet: no task of the board{among} holds both {question.mechanism} and " \
               f"{question.against}."
    untrained = table.comparison.str.startswith("not trained")
    counted = table[~untrained]
    parts = [f"{outcome} on {len(hit)} ({and_list(hit.task)})" if len(hit) else f"{outcome} on none"
             for outcome in (AHEAD, BEHIND, TIED, FLOOR) for hit in [counted[counted.comparison == outcome]]
             if len(hit) or outcome == AHEAD]  # the question's own outcome always, the others where they occur
    text = (f"{question.text} {question.mechanism} against {question.against}, on the {len(counted)} task"
            f"{'' if len(counted) == 1 else 's'} where both fit: {'; '.join(parts)}.")
    return text + "".join(f" On {r.task}, {r.comparison}." for r in table[untrained].itertuples())


def outside_board(question: Question, sizing: pd.DataFrame, names: tuple[str, str], where: str) -> str:
    """A question whose task no model of the board's size fits, read from a sizing study of that task
    (`analysis.sizing.sizing_table` rows, variants "<size> <name>", in the study's order of sizes and budgets):
    at the first size and budget at which the mechanism (`names[0]`, the study's name for it) fits, whether the
    control (`names[1]`) fits there too. `where` names the study."""
    parts = sizing.variant.str.split(" ", n=1)
    size, name = parts.str[0], parts.str[1]
    mine = sizing[(name == names[0]) & sizing.fits]
    if mine.empty:
        return f"{question.text} Not asked: in {where}, {names[0]} fits at no size."
    first = mine.iloc[0]
    at = (size == size[first.name]) & (sizing.budget == first.budget)
    other = sizing[at & (name == names[1])]
    found = (f"{question.text} Not on this board (no model of its size fits the task); in {where}, {names[0]} "
             f"first fits at {size[first.name]} on {first.budget:,.0f} steps (at step {first['fits at step']:,.0f})")
    if other.empty:
        return found + f", where {names[1]} was not run."
    row = other.iloc[0]
    if row.fits:
        return found + f", where {names[1]} fits too (at step {row['fits at step']:,.0f}): a grid at that size could " \
                       "ask it."
    return (found + f", where {names[1]} does not fit its training lengths ({row['last']:.1f}% at the longest): at the "
            f"smallest size where {names[0]} fits, the two cannot be compared past the training lengths.")


def best_on_average(board: pd.DataFrame, schemes: tuple[str, ...] = SCHEMES) -> pd.DataFrame:
    """The schemes of `schemes` on the board ranked by mean beyond score over the tasks every one of them ran (a
    cell not trained counting 0), with the means of its cells' lowest and highest seeds, the tasks each does not fit
    and those where another scheme is ahead of it."""
    present = [s for s in schemes if s in set(board.variant)]
    cells = board[board.variant.isin(present)]
    shared = [t for t, group in cells.groupby("task", sort=False) if set(group.variant) == set(present)]
    cells = cells[cells.task.isin(shared)].set_index(["task", "variant"])
    rows = []
    for scheme in present:
        mine = cells.xs(scheme, level="variant")
        trained = mine.status == RANKED
        beaten = []
        for task in mine.index[trained]:
            ahead = [other for other in present if other != scheme and cells.loc[(task, other)].status == RANKED
                     and _against(cells.loc[(task, other)], mine.loc[task]) == AHEAD]
            if ahead:
                beaten.append(f"{task} (by {and_list(ahead)})")
        means = {name: mine[score].where(trained, 0.0).mean() for name, score in
                 (("mean beyond", "beyond"), ("mean of lowest", "beyond lo"), ("mean of highest", "beyond hi"))}
        rows.append({"scheme": scheme, **means, "tasks": len(mine), "not trained on": and_list(mine.index[~trained]),
                     "beaten on": "; ".join(beaten), "untrained": int((~trained).sum())})
    columns = ["scheme", "mean beyond", "mean of lowest", "mean of highest", "tasks", "not trained on", "beaten on",
               "untrained"]
    order = pd.DataFrame(rows, columns=columns).sort_values(["mean beyond", "untrained"], ascending=[False, True],
                                                            kind="stable")  # a tie: the scheme that fits more first
    return order.drop(columns="untrained").reset_index(drop=True)


def best_words(table: pd.DataFrame) -> str:
    """Whether the first scheme of `best_on_average` is clearly best on average (the module's rule), in a sentence."""
    if table.empty:
        return "No positional scheme of the decoder is on the board yet."
    first, rest = table.iloc[0], table.iloc[1:]
    head = (f"{first.scheme} has the highest mean beyond score ({first['mean beyond']:.1f}%, its seeds' means "
            f"{first['mean of lowest']:.1f}-{first['mean of highest']:.1f}) over the {first.tasks} tasks every scheme "
            "ran")
    if rest.empty:
        return head + ", the one scheme on the board."
    rivals = rest[rest["mean of highest"] >= first["mean of lowest"]]
    if rivals.empty:
        return head + ": it is clearly best on average, its mean of lowest seeds above every other scheme's mean of " \
                      "highest."
    return head + f"; no scheme is clearly best on average: the means of highest seeds of {and_list(rivals.scheme)} " \
                  f"reach its mean of lowest."
