"""CFQ (Keysers et al. 2020) length split from a user-supplied copy; nothing is downloaded.

Expected layout of `root` (the official release, unpacked):
    root/dataset.json                         list of records with questionPatternModEntities and
                                              sparqlPatternModEntities
    root/splits/query_complexity_split.json   {"trainIdxs": [...], "devIdxs": [...], "testIdxs": [...]}
Preprocessing (the standard one): spaces around punctuation in questions; in SPARQL `count(*)` -> `count ( * )`,
`ns:` removed, `m.` -> `m_`; both sides split on whitespace.
"""

import json
import re
from pathlib import Path

from lengthgen.data import Example
from lengthgen.errors import LengthgenError
from lengthgen.tasks.seq2seq import ListedTask, Split

SPLIT_FILE = "splits/query_complexity_split.json"
SPLIT_KEYS = {"train": "trainIdxs", "dev": "devIdxs", "test": "testIdxs"}


def preprocess_question(text: str) -> tuple[str, ...]:
    """Spaces around every punctuation character, then whitespace tokens."""
    return tuple(re.sub(r"([^\w\s])", r" \1 ", text).split())


def preprocess_query(text: str) -> tuple[str, ...]:
    text = text.replace("count(*)", "count ( * )").replace("ns:", "")
    text = re.sub(r"\bm\.", "m_", text)
    return tuple(text.split())


def load(root: str | Path) -> dict[str, list[Example]]:
    """The train/dev/test examples of the length split under `root` (see module docstring for the layout)."""
    root = Path(root)
    files = [root / "dataset.json", root / SPLIT_FILE]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise LengthgenError(f"CFQ files not found: {', '.join(missing)}; CFQ is never downloaded, "
                             "unpack the official release there")
    records = json.loads(files[0].read_text())
    split = json.loads(files[1].read_text())
    try:
        return {name: [(preprocess_question(records[i]["questionPatternModEntities"]),
                        preprocess_query(records[i]["sparqlPatternModEntities"])) for i in split[key]]
                for name, key in SPLIT_KEYS.items()}
    except (KeyError, IndexError, TypeError) as err:
        raise LengthgenError(f"malformed CFQ files under {root}: {err!r}") from None


class Cfq(ListedTask):
    """CFQ query-complexity (length) split loaded from `root`; its vocabulary is built from the training split.

    Examples:
        Did M0 marry M1 ? -> SELECT count ( * ) WHERE { M0 people.person.spouse_s M1 }
    """

    name = "cfq"

    def __init__(self, root: str | Path, data_seed: int = 0):
        self._splits = load(root)
        self.tokens = tuple(dict.fromkeys(t for s, q in self._splits["train"] for t in s + q))
        super().__init__(data_seed)
        self.splits = {k: Split(0, 0, len(v)) for k, v in self._splits.items()}
