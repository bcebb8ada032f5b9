"""How the book and the lab show things: figures (`show`, offline in the static book), tables (`table_html`,
`for_display`), the Markdown tables of generated pages, and the prose's numbers and phrases (`glue_values`, `holds`,
`word`, `and_list`, `span`)."""

import os
import re
from collections.abc import Callable

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from lengthgen.errors import LengthgenError

BOOK_ENV = "LENGTHGEN_BOOK"  # set by `lengthgen book`: figures become plain divs using the book's plotly.js


def in_book() -> bool:
    """True while `lengthgen book` executes a chapter (no live user, no widgets)."""
    return bool(os.environ.get(BOOK_ENV))


def show(fig: go.Figure) -> None:
    """Display a figure: in the book build as an HTML div without plotly.js inside (the book serves plotly.js
    once from _static); in a live notebook with plotly's default renderer."""
    if in_book():
        from IPython.display import HTML, display

        display(HTML(fig.to_html(full_html=False, include_plotlyjs=False, config={"displaylogo": False})))
    else:
        fig.show()


def show_parts(*parts) -> None:
    """Display each part in order: a string as Markdown (an empty one is skipped), a figure by `show`, anything else
    as itself."""
    from IPython.display import Markdown, display

    for part in parts:
        if isinstance(part, str):
            if part:
                display(Markdown(part))
        elif isinstance(part, go.Figure):
            show(part)
        else:
            display(part)


def for_display(table: pd.DataFrame, decimals: int = 1) -> pd.DataFrame:
    """`table` rounded, with "–" where a cell has no value (a split the task does not have, a run not made)."""
    return table.round(decimals).astype(object).where(table.notna(), "–")


def wrappable(text: str) -> str:
    """`text` with a line-break opportunity (`<wbr>`) after every underscore inside a word, for HTML: a long name
    such as onestep_no_sigmoid may then wrap there, so a table of them fits the book's text column instead of hiding
    its last columns behind a scroll bar. It reads (and copies) the same."""
    return re.sub(r"(?<=\w)_(?=\w)", "_<wbr>", text)


def table_html(frame: pd.DataFrame) -> str:
    """A DataFrame as the book shows it: pandas' notebook HTML with "–" for a missing value (as `for_display`
    writes it), the text of its cells and labels `wrappable`, and no index column where the index is only pandas'
    row numbers (`row_numbers`: they tell the reader nothing)."""
    return re.sub(r"(<t[dh][^>]*>)([^<]*)(</t[dh]>)", lambda m: m[1] + wrappable(m[2]) + m[3],
                  frame.to_html(notebook=True, na_rep="–", index=not row_numbers(frame.index)))


def row_numbers(index: pd.Index) -> bool:
    """Whether `index` is pandas' own row numbering: unnamed, consecutive integers (0, 1, 2, ... or a contiguous
    slice of them, such as rows 24-35 of a longer table). A named index, or integers with gaps (lengths 16, 32,
    ...), is data."""
    if index.name is not None or not pd.api.types.is_integer_dtype(index):
        return False
    start = int(index[0]) if len(index) else 0
    return index.equals(pd.RangeIndex(start, start + len(index)))


def in_parts(table: pd.DataFrame, per_part: int) -> list[pd.DataFrame]:
    """`table` cut, in order, into tables of `per_part` groups of its first column level each (e.g. a
    `paper_beside_ours` table of eight tasks into two of four), so that each fits the book's text column."""
    groups = list(dict.fromkeys(table.columns.get_level_values(0)))
    return [table.loc[:, table.columns.get_level_values(0).isin(groups[i:i + per_part])]
            for i in range(0, len(groups), per_part)]


def markdown_table(df: pd.DataFrame) -> str:
    """A pipe table of a frame's columns (its index left out); `|` in a cell escaped, a missing value empty."""
    def text(value) -> str:
        return "" if value is None or value != value else str(value).replace("|", "\\|")

    lines = ["| " + " | ".join(map(text, df.columns)) + " |", "|" + "---|" * len(df.columns)]
    lines += ["| " + " | ".join(text(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join(lines)


def breakable(page_text: str) -> str:
    """A Markdown page for the browser: its table rows `wrappable` outside code spans and link targets. Other
    lines are left as they are."""
    def row(line: str) -> str:
        parts = re.split(r"(`[^`]*`|\]\([^)]*\))", line)  # the odd parts: code spans and link targets
        return "".join(p if i % 2 else wrappable(p) for i, p in enumerate(parts))

    return "\n".join(row(line) if line.startswith("|") else line for line in page_text.split("\n"))


WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")


def word(n: int) -> str:
    """A count as the prose spells it: "no", "two", ..., "twelve"; digits from 13 on ("13", "1,024")."""
    return WORDS[n] if 0 <= n < len(WORDS) else f"{n:,}"


def and_list(items) -> str:
    """Items as a sentence lists them: "a", "a and b", "a, b and c" ("" for none)."""
    items = [str(i) for i in items]
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)


def model_size(layers: int, width: int) -> str:
    """A model's depth and width as tables and labels name it: "4x128"."""
    return f"{layers}x{width}"


def span(values, fmt: str | Callable[[float], str] = "{:.1f}") -> str:
    """The range of some values as the prose writes it, each end formatted by `fmt` (a format string or a function):
    "33.6-55.0", or one value ("89.5") when both ends read the same; NaNs left out, "–" when no value is left."""
    values = [v for v in values if v == v]
    if not values:
        return "–"
    show = fmt.format if isinstance(fmt, str) else fmt
    lo, hi = show(min(values)), show(max(values))
    return lo if lo == hi else f"{lo}-{hi}"


class ProseCheckFailed(LengthgenError):
    """A sentence of a chapter's prose that the data no longer supports: the build stops here."""


def glue_values(values: dict[str, object]) -> None:
    """Glue each value under its name for the chapter's prose, where `{glue:text}`name`` (or `{glue:text}`name:.1f``
    for a number) shows it at build time; nothing is displayed in the cell. A numpy scalar is glued as the Python
    number it holds (glue records a value's repr, which a format spec must read back). Names are the chapter's own:
    one cell's values must not reuse another's names."""
    from myst_nb import glue

    for name, value in values.items():
        glue(name, value.item() if isinstance(value, np.generic) else value, display=False)


def holds(condition: bool, sentence: str) -> None:
    """Bind a sentence of the prose to a checked reading: raises `ProseCheckFailed`, naming the sentence, when the
    data no longer supports it (so the chapter's build fails instead of stating something false)."""
    if not condition:
        raise ProseCheckFailed(f"the data no longer support the sentence: {sentence!r}; rewrite it")
