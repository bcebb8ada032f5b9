"""The questions that cross the papers, answered from a board (`protocol.board`).

Each question sets a mechanism against a control, task by task, by the ranking's rule (`protocol.clearly_ahead`): where
both cells are trained and some seed of either scores at least `protocol.MARGIN` past the training lengths, the
mechanism is *ahead* when it is clearly ahead of the control (its lowest seed's beyond score at least the margin above
the control's highest, or, where neither range is that far above the other, its lowest reach above the control's
highest), *behind* in the reverse case, and *within the seeds' spread* otherwise; where every seed of both scores under
the margin past them, the two are *both at the floor*, counted apart: that says nothing of which extrapolates further. A
task where either cell is not trained is named apart, never counted. The rule is not proof against chance. The runs of
one seed share their training data and first draws, so were a mechanism no different from its control, only a seed's two
runs could be swapped between the cells as equally likely: with three seeds, 8 ways, in at most one of which the
mechanism's every beyond score lies above every one of the control's (two such ways would put a seed's runs each above
the other), and as many for the reach; so where every swap leaves both cells trained, the rule calls such a mechanism
ahead in up to 1 comparison in 4, and ahead or behind in up to 1 in 2. `chance_apart` swaps a comparison's own runs
every such way and counts the share the rule calls ahead or behind among those that leave both cells trained;
`chance_words` sums it over the questions' counted comparisons, each once: how many to expect by chance (an expectation,
not a test: comparisons share cells).

Which positional scheme is best on average compares the decoder's schemes over the tasks every one of them ran, two at
a time, each pair over the tasks both fit (a cell not trained is left out, never counted as 0): a scheme is *ahead on
average* of another when the mean of its lowest seeds' beyond scores is at least the margin above the mean of the
other's highest (the beyond scores alone: an average has no reach). A scheme that fits every task every scheme ran (an
average over fewer tasks is no average of them) and is ahead on average of every other it shares a fitted task with is
*clearly best*. The table lists first the schemes that fit every one of those tasks, each group in the order of how
many others a scheme is ahead of on average, less those it is behind, then of how many it shares a fitted task with,
then of its mean beyond score over the tasks it fits (to a tenth of a point): an order to read by, not a ranking, since
each pair is compared over its own tasks. It says where each scheme fails: the tasks it does not fit, and those where
another scheme is clearly ahead of it.
"""

from dataclasses import dataclass
from itertools import product

import pandas as pd

from lengthgen.display import and_list
from lengthgen.errors import LengthgenError
from lengthgen.leaderboard.grid import MECHANISMS
from lengthgen.leaderboard.protocol import CELL, EPS, MARGIN, RANKED, apart, at_floor, cell_scores, clearly_ahead
from lengthgen.registry import Registry

AHEAD, BEHIND, TIED = "ahead", "behind", "within the seeds' spread"
FLOOR = f"both under {MARGIN:g}% beyond"


@dataclass(frozen=True)
class Question:
    """A mechanism against its control, on `tasks` (every task both ran where empty)."""

    text: str
    mechanism: str
    against: str
    tasks: tuple[str, ...] = ()


RECOPY = ("recopy", "reverse_recopy", "inv_recopy", "inv_reverse_recopy")
PROBING = ("copy", "reverse_copy", *RECOPY, "dedupe", "posretrieve", "lookup_length", "reverse_lookup_length")
QUESTIONS = Registry("question", {
    "ln rope": Question("Does LayerNorm after attention (the vanishing-variance paper) help RoPE extrapolate on "
                        "monotonic attention's probing tasks?", "rope+ln", "rope", PROBING),
    "ln nope": Question("Does LayerNorm after attention help a decoder without positions on the probing tasks?",
                        "nope+ln", "nope", PROBING),
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
    if at_floor(a) and at_floor(b):
        return FLOOR
    return AHEAD if clearly_ahead(a, b) else BEHIND if clearly_ahead(b, a) else TIED


COUNTED = (AHEAD, BEHIND, TIED)  # the comparisons the answers count (both cells trained, not both at the floor)


def compare(board: pd.DataFrame, question: Question, scores: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per task where both cells are on the board (of `question.tasks`, if any): the two beyond scores (median and
    seeds' range) and the comparison: AHEAD, BEHIND, TIED, FLOOR, or "not trained: <mechanisms>". With `scores` (the
    board's runs, `protocol.run_scores`), a column "chance apart": each counted comparison's `chance_apart` (NaN for
    the others)."""
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
    table = pd.DataFrame(rows, columns=["task", f"{question.mechanism} beyond", f"{question.against} beyond",
                                        "comparison"])
    if scores is not None:
        runs = dict(list(scores.groupby(CELL, sort=False)))
        table["chance apart"] = [chance_apart(runs[(task, question.mechanism)], runs[(task, question.against)])
                                 if comparison in COUNTED else float("nan")
                                 for task, comparison in zip(table.task, table.comparison, strict=True)]
    return table


def answer(board: pd.DataFrame, question: Question) -> str:
    """The question and its answer in a sentence: on how many tasks the mechanism is ahead (none, if so), and of
    behind, within the spread and both at the floor those that occur (naming the tasks), and where a cell is not
    trained; or that the board holds no task with both."""
    table = compare(board, question)
    if question.tasks and not set(question.tasks) & set(board.task):
        return f"{question.text} Not asked: the board holds no cell of {and_list(question.tasks)}."
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


def _on_average(cells: pd.DataFrame, a: str, b: str) -> str | None:
    """AHEAD, BEHIND or TIED: scheme `a` against `b` on average over the tasks where both cells are trained (the
    module's rule); None where there is no such task."""
    fit = (cells.xs(a, level="variant").status == RANKED) & (cells.xs(b, level="variant").status == RANKED)
    if not fit.any():
        return None
    mine, other = (cells.xs(s, level="variant")[fit][["beyond lo", "beyond hi"]].mean() for s in (a, b))
    return (AHEAD if apart(mine["beyond lo"], other["beyond hi"]) else
            BEHIND if apart(other["beyond lo"], mine["beyond hi"]) else TIED)


def best_on_average(board: pd.DataFrame, schemes: tuple[str, ...] = SCHEMES) -> pd.DataFrame:
    """The schemes of `schemes` on the board, over the tasks every one of them ran, by the module's rule: per scheme,
    the tasks it fits and its mean beyond score (median, lowest and highest seed) over them, the schemes it is ahead
    of, behind and level with on average (each pair over the tasks both fit), those it shares no fitted task with, the
    tasks it does not fit and those where another scheme is clearly ahead of it; in the module's order. Empty where no
    task holds every scheme on the board."""
    present = [s for s in schemes if s in set(board.variant)]
    cells = board[board.variant.isin(present)]
    shared = [t for t, group in cells.groupby("task", sort=False) if set(group.variant) == set(present)]
    cells = cells[cells.task.isin(shared)].set_index(["task", "variant"])
    rows = []
    for scheme in present if shared else []:
        mine = cells.xs(scheme, level="variant")
        trained = mine.status == RANKED
        against = {other: _on_average(cells, scheme, other) for other in present if other != scheme}
        ahead, behind, level, apart_from = ([o for o, outcome in against.items() if outcome == want]
                                            for want in (AHEAD, BEHIND, TIED, None))
        beaten = []
        for task in mine.index[trained]:
            by = [other for other in present if other != scheme and cells.loc[(task, other)].status == RANKED
                  and _against(cells.loc[(task, other)], mine.loc[task]) == AHEAD]
            if by:
                beaten.append(f"{task} (by {and_list(by)})")
        fitted = mine[trained]
        rows.append({"scheme": scheme, "fits": f"{len(fitted)} of {len(mine)}",
                     "mean beyond": fitted.beyond.mean(), "mean of lowest": fitted["beyond lo"].mean(),
                     "mean of highest": fitted["beyond hi"].mean(), "ahead of": and_list(ahead),
                     "behind": and_list(behind), "level with": and_list(level),
                     "no fitted task with": and_list(apart_from), "not trained on": and_list(mine.index[~trained]),
                     "beaten on": "; ".join(beaten), "tasks": len(mine), "fits all": bool(trained.all()),
                     "net": len(ahead) - len(behind), "comparable": len(against) - len(apart_from)})
    table = pd.DataFrame(rows, columns=["scheme", "fits", "mean beyond", "mean of lowest", "mean of highest",
                                        "ahead of", "behind", "level with", "no fitted task with", "not trained on",
                                        "beaten on", "tasks", "fits all", "net", "comparable"])
    order = table.assign(tenths=table["mean beyond"].round(1))
    order = order.sort_values(["fits all", "net", "comparable", "tenths"], ascending=False, kind="stable",
                              na_position="last")
    return table.loc[order.index].reset_index(drop=True)


def average_table(table: pd.DataFrame) -> pd.DataFrame:
    """`best_on_average` as the chapter shows it: the mean beyond score with the means of the lowest and highest seeds
    in brackets, and where each scheme stands (who it shares no fitted task with is what none of its three lists
    names)."""
    means = [f"{m:.1f} ({lo:.1f}-{hi:.1f})" if m == m else "–" for m, lo, hi in
             zip(table["mean beyond"], table["mean of lowest"], table["mean of highest"], strict=True)]
    return table[["scheme", "fits"]].assign(**{"mean beyond (seeds' means)": means}).join(
        table[["ahead of", "behind", "level with", "not trained on", "beaten on"]])


def best_words(table: pd.DataFrame) -> str:
    """Whether the first scheme of `best_on_average` is clearly best on average (the module's rule), in a sentence:
    if not, where the first in the table stands against the others."""
    if table.empty:
        return "No task of the board holds every positional scheme of the decoder yet."
    first = table.iloc[0]
    if len(table) == 1:
        return f"{first.scheme} is the one positional scheme of the decoder on the board."
    tasks = f"the {first.tasks} task{'' if first.tasks == 1 else 's'} every scheme ran"
    if not first["fits all"]:
        return f"No scheme fits all of {tasks}: none can be best on average over them."
    if first.comparable == 0:
        return f"{first.scheme} fits all of {tasks}, and no other scheme fits any of them: none is compared."
    apart_from = (f" (it shares no fitted task with {first['no fitted task with']})" if first["no fitted task with"]
                  else "")
    if not (first.behind or first["level with"]):
        return (f"Of the schemes that fit all of {tasks}, {first.scheme} is clearly best on average: ahead on average "
                f"of every other scheme over the tasks both fit{apart_from}.")
    stands = [f"ahead on average of {first['ahead of'] or 'no other scheme'}"]
    stands += [f"{how} {first[column]}" for how, column in (("behind", "behind"), ("level with", "level with"))
               if first[column]]
    return (f"No scheme is clearly best on average over {tasks}. The first in the table, {first.scheme}, which fits "
            f"all of them, is {and_list(stands)}{apart_from}.")


def chance_apart(a: pd.DataFrame, b: pd.DataFrame) -> float:
    """The chance that the rule (`_against`) calls one of two cells ahead of the other, were neither mechanism
    different from the other: of the 2^k ways to swap each of the k seeds' two runs between the cells, those that
    leave both cells trained and not both at the floor (as the questions count a comparison), the share in which the
    rule calls one ahead. Only a seed's own two runs are swapped: they share their training data and first draws, so
    runs of different seeds need not be alike.

    Args:
        a, b: the two cells' runs (`protocol.run_scores` rows of one task), one per seed, the same seeds; one of the
            ways (no swap) must be counted.
    """
    if sorted(a.seed) != sorted(b.seed):
        raise LengthgenError(f"cells of seeds {sorted(a.seed)} and {sorted(b.seed)}: a swap needs the same seeds")
    a, b = (cell.sort_values("seed").reset_index(drop=True) for cell in (a, b))
    called = []
    for swap in product((False, True), repeat=len(a)):
        first = pd.DataFrame([(b if s else a).iloc[i] for i, s in enumerate(swap)]).assign(variant="a")
        second = pd.DataFrame([(a if s else b).iloc[i] for i, s in enumerate(swap)]).assign(variant="b")
        cells = cell_scores(pd.concat([first, second], ignore_index=True)).set_index("variant")
        if (cells.status == RANKED).all() and (outcome := _against(cells.loc["a"], cells.loc["b"])) != FLOOR:
            called.append(outcome in (AHEAD, BEHIND))
    if not called:
        raise LengthgenError("no swap of the two cells' runs leaves both trained and off the floor")
    return sum(called) / len(called)


def chance_words(scores: pd.DataFrame, questions: dict[str, Question] | None = None) -> str:
    """How many of the questions' counted comparisons (both cells trained, not both at the floor; a comparison that
    two questions make counted once) would come out ahead or behind by chance alone, were no mechanism different from
    its control (the sum of their `chance_apart`), beside how many did, from each run's scores
    (`protocol.run_scores`)."""
    cells, counted = cell_scores(scores), {}
    for q in (QUESTIONS if questions is None else questions).values():
        for row in compare(cells, q, scores).to_dict("records"):
            if row["comparison"] in COUNTED:
                counted[(row["task"], q.mechanism, q.against)] = (row["chance apart"], row["comparison"] != TIED)
    if not counted:
        return "No comparison of the questions is counted yet (none has both cells trained and off the floor)."
    expected, found = sum(p for p, _ in counted.values()), sum(hit for _, hit in counted.values())
    return (f"Of the {len(counted)} comparison{'' if len(counted) == 1 else 's'} counted above (both cells trained, "
            f"not both at the floor), {found} came out ahead or behind; were no mechanism different from its "
            f"control, {expected:.1f} would by chance alone, on average (for each comparison, of the ways to swap a "
            "seed's two runs between its cells that leave both trained, the share the rule calls ahead or behind; "
            "summed over comparisons that share cells, so an expectation, not a test)."
            + (" No more came out than chance would give." if found <= expected + EPS else ""))
