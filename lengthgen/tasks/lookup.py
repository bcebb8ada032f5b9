"""Long lookup tables (Liska et al. 2018): print every intermediate result of composed 3-bit bijections.

Eight random bijections t1..t8 on {000, ..., 111} are drawn from the data seed. A composition is applied left to
right in Lookup (`x t_a t_b .` -> `x t_a(x) t_b(t_a(x))`) and right to left in Reverse Lookup
(`t_b t_a x .` -> the same output). The length of an example is its number of source tokens (x, the tables and `.`).

Splits (our generator; the public code ships its own files):
  train: every composition of 1..4 tables from t1..t6 on all 8 inputs, plus t7 and t8 alone, minus the held-out
         part: 50 random 4-table compositions (all inputs) and 2 random inputs of every other 4-table composition.
  dev:   500 held-out examples (length 6) and 500 of length 7 (disjoint from test "7").
  7, 9, 11: 2,000 unique examples with 5, 7, 9 tables from t1..t6 (lengths 7, 9, 11, as in the paper's tables).
"""

import itertools

import torch

from lengthgen.data import Example
from lengthgen.errors import LengthgenError
from lengthgen.seeding import generator
from lengthgen.tasks.seq2seq import Seq2SeqTask, Split, unique_draws

BITS = tuple(format(i, "03b") for i in range(8))
TABLES = tuple(f"t{i}" for i in range(1, 9))
COMPOSED = 6  # t1..t6 are composed; t7, t8 appear only alone in training
HELD_OUT_COMPOSITIONS, HELD_OUT_INPUTS = 50, 2
TEST_TABLES = {"7": 5, "9": 7, "11": 9}
DEV_HELD_OUT, DEV_LONGER = 500, 500  # the dev split: held-out training examples first, then longer ones


class Lookup(Seq2SeqTask):
    """Forward long lookup tables.

    Examples (tables depend on the data seed):
        001 t1 t2 . -> 001 t1(001) t2(t1(001))
    """

    name = "lookup"
    dev_longer_split = "7"  # the test split whose distribution the dev split's longer examples are drawn from
    tokens = BITS + TABLES + (".",)
    splits = {"train": Split(3, 6, 0), "dev": Split(6, 7, DEV_HELD_OUT + DEV_LONGER),
              **{k: Split(int(k), int(k), 2_000) for k in TEST_TABLES}}

    def __init__(self, data_seed: int = 0):
        super().__init__(data_seed)
        g = generator(data_seed, "lookup/tables")
        self.tables = [torch.randperm(8, generator=g).tolist() for _ in TABLES]
        self._train, self._held_out = self._partition()
        self.splits = dict(self.splits, train=Split(3, 6, len(self._train)))

    def apply(self, comp: tuple[int, ...], x: int) -> list[int]:
        """x and every intermediate value of the tables `comp` (0-based ids) applied in order."""
        out = [x]
        for t in comp:
            out.append(self.tables[t][out[-1]])
        return out

    def source(self, comp: tuple[int, ...], x: int) -> tuple[str, ...]:
        return (BITS[x],) + tuple(TABLES[t] for t in comp) + (".",)

    def example(self, comp: tuple[int, ...], x: int) -> Example:
        return self.source(comp, x), tuple(BITS[v] for v in self.apply(comp, x))

    def _partition(self) -> tuple[list[Example], list[Example]]:
        g = generator(self.data_seed, "lookup/held-out")
        longest = list(itertools.product(range(COMPOSED), repeat=4))
        dropped = {longest[i] for i in torch.randperm(len(longest), generator=g)[:HELD_OUT_COMPOSITIONS].tolist()}
        train, held = [], []
        comps = [(t,) for t in range(len(TABLES))] + [
            c for k in (2, 3, 4) for c in itertools.product(range(COMPOSED), repeat=k)]
        for comp in comps:
            hidden = set(range(8)) if comp in dropped else (
                set(torch.randperm(8, generator=g)[:HELD_OUT_INPUTS].tolist()) if len(comp) == 4 else set())
            for x in range(8):
                (held if x in hidden else train).append(self.example(comp, x))
        return train, held

    def _longer(self, n_tables: int, gen: torch.Generator) -> Example:
        comp = tuple(torch.randint(0, COMPOSED, (n_tables,), generator=gen).tolist())
        return self.example(comp, int(torch.randint(0, 8, (1,), generator=gen)))

    def examples(self, split: str, n: int | None = None) -> list[Example]:
        n = self.count(split, n)
        if split == "train":
            order = torch.randperm(len(self._train), generator=generator(self.data_seed, "lookup/train")).tolist()
            return [self._train[i] for i in order[:n]]
        dev7 = unique_draws(lambda g: self._longer(TEST_TABLES[self.dev_longer_split], g), DEV_LONGER,
                            generator(self.data_seed, "lookup/dev7"), "dev")
        if split == "dev":
            g = generator(self.data_seed, "lookup/dev")
            held = [self._held_out[i] for i in torch.randperm(len(self._held_out), generator=g).tolist()[:DEV_HELD_OUT]]
            return (held + dev7)[:n]
        excluded = set(dev7)
        test = unique_draws(lambda g: self._longer(TEST_TABLES[split], g), n + len(excluded),
                            generator(self.data_seed, f"lookup/{split}"), split)
        return [e for e in test if e not in excluded][:n]

    def iid_estimate(self, dev: float, longer: float, n: int | None = None) -> float:
        """Exact match (%) on held-out examples of the training lengths, estimated from a run's dev score `dev` (%,
        over the dev split's first `n` examples) and its accuracy `longer` (%) on the test split `dev_longer_split`.

        The dev split's share s of held-out examples gives dev = s * iid + (1 - s) * (its longer examples' score);
        `longer` stands in for the last (the same distribution, other examples), so the estimate always lies within
        what the dev score alone allows, and is clipped to 0..100. With n <= DEV_HELD_OUT the dev examples are all
        held-out ones and the estimate is the dev score itself. It may lean high where the kept epoch was chosen on
        the dev score: the epoch that maximises it may also favour its longer half."""
        n = self.count(self.dev_split, n)
        share = min(n, DEV_HELD_OUT) / n
        return min(max((dev - (1 - share) * longer) / share, 0.0), 100.0)


class ReverseLookup(Lookup):
    """Reverse long lookup tables: tables are read right to left, the output is the same chain.

    Examples (tables depend on the data seed):
        t2 t1 001 . -> 001 t1(001) t2(t1(001))
    """

    name = "reverse_lookup"

    def source(self, comp, x):
        return tuple(TABLES[t] for t in reversed(comp)) + (BITS[x], ".")


class LookupLength(Lookup):
    """Lookup drawn by source length, for a protocol that trains on a range of lengths and tests each longer one
    (the leaderboard's): `draw(length)` gives an example of the training split with that many source tokens up to
    its longest (6: four tables), and beyond it a composition of length - 2 tables from t1..t6 on a random input, as
    the test splits draw theirs. The splits are Lookup's.

    Examples (tables depend on the data seed):
        length 4: 001 t1 t2 . -> 001 t1(001) t2(t1(001))
    """

    name = "lookup_length"

    def __init__(self, data_seed: int = 0):
        super().__init__(data_seed)
        self._by_length: dict[int, list[Example]] = {}
        for example in self._train:
            self._by_length.setdefault(len(example[0]), []).append(example)

    def draw(self, length: int, gen: torch.Generator) -> Example:
        if length > self.splits["train"].max_length:
            return self._longer(length - 2, gen)
        pool = self._by_length.get(length)
        if not pool:
            raise LengthgenError(f"{self.name} draws sources of at least {min(self._by_length)} tokens; got {length}")
        return pool[int(torch.randint(len(pool), (1,), generator=gen))]


class ReverseLookupLength(LookupLength, ReverseLookup):
    """Reverse Lookup drawn by source length, as `LookupLength`.

    Examples (tables depend on the data seed):
        length 4: t2 t1 001 . -> 001 t1(001) t2(t1(001))
    """

    name = "reverse_lookup_length"
