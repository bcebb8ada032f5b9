"""Decoder-only tasks of the sparsity chapter (Golowich et al. 2025): sparse parity, parity with a scratchpad and
jumps, variable assignment with a scratchpad.

Each is an `LMTask` (tasks/lm.py); its answer is checked in the tests against a plain reference function of the
prompt (`*_reference`).

Coupled ids follow the public position-coupling code (Cho et al. 2024): <bos> has id 0, the rest start at 1;
training shifts every non-zero id by a random offset (`models.positional.offset`).
"""

from dataclasses import dataclass

import torch

from lengthgen.config import added
from lengthgen.errors import LengthgenError
from lengthgen.tasks.lm import LMTask, Sequence

BOS, SEP, SEP2, STEP = "<sos>", "=", ">", ";"
BITS = ("0", "1")


def _bits(n: int, gen: torch.Generator) -> list[int]:
    return torch.randint(2, (n,), generator=gen).tolist()


def _choose(population: int, k: int, gen: torch.Generator) -> list[int]:
    """k distinct indices of range(population), in random order."""
    return torch.randperm(population, generator=gen)[:k].tolist()


@dataclass(frozen=True)
class SparseParity(LMTask):
    """The parity of the k bits that follow a special key, among L (key, bit) pairs; k is drawn uniformly from
    min_k .. max_k for each example (at most L). `length` is L, the number of pairs (the paper counts 2L tokens).

    Vocabulary: `keys` ordinary keys, one special key `*`, the bits and `=`: 20 tokens with the default 16 keys, the
    paper's vocabulary size (plus the specials).

    Examples:
        k = 2, L = 4:  <sos> k3 1 * 0 k9 1 * 1 =  ->  1   (the bits after the two `*`: 0 xor 1)
    """

    max_k: int = 4  # the sparsity bound: k ~ U{min_k..max_k}
    min_k: int = 1
    keys: int = 16
    name = "sparse_parity"
    unit = "pairs"

    @property
    def tokens(self) -> tuple[str, ...]:
        return (*[f"k{i}" for i in range(self.keys)], "*", *BITS, SEP)

    def check(self, length):
        if length < max(1, self.min_k):
            raise LengthgenError(f"impossible length {length} for sparse_parity with k >= {self.min_k}; "
                                 f"valid: >= {max(1, self.min_k)} pairs")

    def sequence(self, length, gen):
        k = int(torch.randint(self.min_k, min(self.max_k, length) + 1, (1,), generator=gen))
        special = set(_choose(length, k, gen))
        keys = torch.randint(self.keys, (length,), generator=gen).tolist()
        bits = _bits(length, gen)
        body = []
        for i in range(length):
            body += ["*" if i in special else f"k{keys[i]}", BITS[bits[i]]]
        answer = sum(bits[i] for i in special) % 2
        return Sequence([BOS, *body, SEP, BITS[answer]], None, len(body) + 2)

    def with_k(self, k: int) -> "SparseParity":
        """The same task with every example at exactly k special keys (the test sparsity)."""
        return SparseParity(max_k=k, min_k=k, keys=self.keys)


def sparse_parity_reference(prompt: list[str]) -> str:
    """The parity of the bits right after each `*` key, read off the prompt."""
    return BITS[sum(prompt[i + 1] == "1" for i, t in enumerate(prompt) if t == "*") % 2]


@dataclass(frozen=True)
class ScratchpadParity(LMTask):
    """The parity of n bits with a scratchpad of prefix parities, written every j bits (j = 1: every prefix).

    `length` is the number of scratchpad tokens m: the input has n = m j bits, and the paper's axis, the combined
    length of input and scratchpad, is m (j + 1) (`combined`). Coupled ids: <bos> 0, `=` 1, input bit i (1-based)
    1 + ceil(i/j) (each id repeated j times), scratchpad token m 1 + m, so a scratchpad token shares its id with the
    last j bits it summarises. Without coupling, ids are 0..P-1.

    Examples:
        j = 2, length 2:  <sos> 1 0 1 1 =  ->  1 1    ids 0 2 2 3 3 1 -> 2 3
    """

    jump: int = 1  # j
    coupled: bool = True  # coupled position ids (else 0..P-1)
    name = "scratchpad_parity"
    tokens = (*BITS, SEP)
    unit = "scratchpad tokens"

    def check(self, length):
        if length < 1:
            raise LengthgenError(f"impossible length {length} for scratchpad_parity; valid: >= 1 scratchpad tokens")

    def combined(self, length: int) -> int:
        """Input plus scratchpad tokens of an example of `length` scratchpad tokens."""
        return length * (self.jump + 1)

    def sequence(self, length, gen):
        bits = _bits(length * self.jump, gen)
        pad = [BITS[sum(bits[: (m + 1) * self.jump]) % 2] for m in range(length)]
        tokens = [BOS, *map(BITS.__getitem__, bits), SEP, *pad]
        ids = ([0, *[1 + (i + self.jump) // self.jump for i in range(len(bits))], 1, *range(2, length + 2)]
               if self.coupled else None)
        return Sequence(tokens, ids, len(bits) + 2)


def scratchpad_parity_reference(prompt: list[str], jump: int) -> list[str]:
    """Every jump-th prefix parity of the bits before `=`."""
    bits = [int(t) for t in prompt[1:-1]]
    return [BITS[sum(bits[:m]) % 2] for m in range(jump, len(bits) + 1, jump)]


ASSIGNMENT_FORMATS = ("ours", "paper", "delimited")  # VariableAssignment.format


@dataclass(frozen=True)
class VariableAssignment(LMTask):
    """Follow one chain of assignments through randomly interleaved chains, writing the chain out.

    m chains of depth d over distinct variables: chain c is v_c0 -> v_c1 -> ... -> v_cd, each step written as its two
    variables `a b` (b takes a's value); the steps of all chains are interleaved at random, each chain in its order.
    The prompt is `<bos> q <SEP1> steps <SEP2>` (`:` and `>`) with q = v_10, the chain to follow; the answer is the
    chain written out (the scratchpad) or only v_1d without scratchpad. Three formats (`format`):

    - "paper", the paper's (its Appendix E.3): the scratchpad is v_11 .. v_1d; `length` counts tokens, the most
      between <SEP1> and <SEP2> (the paper's axis: train on 20-60, test to 200), and the example has as many chains
      as fit, m = length // (2 d).
    - "ours", the chapter's first format: each step ends with `;` (so that a step's second variable and the next
      step's first do not look alike to a model that looks one token back), the scratchpad starts by copying q (so
      that every hop reads the variable it starts from at its own position), and `length` counts chains.
    - "delimited": the paper's, with each step ended by `;` (the paper names a third separator token whose symbol our
      copy of it lost; if it ends each step, this is its format): m = length // (3 d).

    Coupled ids: prompt tokens their true positions 0, 1, 2, ...; scratchpad token v_1i the id of the token v_1i in
    the step that assigns it (a copied q: the id of q, 1), so the ids depend on the input and a model must predict
    them (PPC). Without coupling: 0..P-1.

    Examples:
        paper, d = 2, length 8:  <sos> a : a b c e b f e g >  ->  b f   (prompt ids 0..11 -> 4 8)
        ours, d = 2, m = 2:  <sos> a : a b ; c e ; b f ; e g ; >  ->  a b f   (prompt ids 0..15 -> 1 4 10)
        delimited, d = 2, length 12:  <sos> a : a b ; c e ; b f ; e g ; >  ->  b f   (prompt ids 0..15 -> 4 10)
    """

    depth: int = 2  # d
    variables: int = 200
    scratchpad: bool = True
    coupled: bool = True
    format: str = added("ours")  # ASSIGNMENT_FORMATS
    name = "variable_assignment"
    ids_follow_input = True

    def __post_init__(self):
        if self.format not in ASSIGNMENT_FORMATS:
            raise ValueError(f"unknown variable_assignment format {self.format!r}; valid: "
                             f"{', '.join(ASSIGNMENT_FORMATS)}")

    @property
    def unit(self) -> str:
        return "chains" if self.format == "ours" else "tokens"

    @property
    def step_end(self) -> tuple[str, ...]:
        """What follows each step's two variables: `;` in ours and the delimited one, nothing in the paper's."""
        return () if self.format == "paper" else (STEP,)

    @property
    def step(self) -> int:
        """Tokens per assignment step."""
        return 2 + len(self.step_end)

    @property
    def tokens(self) -> tuple[str, ...]:
        return (*[f"v{i}" for i in range(self.variables)], ":", *self.step_end, SEP2)

    def chains(self, length: int) -> int:
        """The chains m of an example of `length`."""
        return length if self.format == "ours" else length // (self.step * self.depth)

    def step_tokens(self, length: int) -> int:
        """The step tokens of the prompt of an example of `length` (the paper's length axis)."""
        return self.step * self.depth * self.chains(length)

    def check(self, length):
        most = self.variables // (self.depth + 1)  # chains
        per_chain = self.step * self.depth  # tokens, in the formats that count them
        lo, top = (1, most) if self.format == "ours" else (per_chain, per_chain * (most + 1) - 1)
        if not lo <= length <= top:
            raise LengthgenError(f"impossible length {length} for variable_assignment with depth {self.depth} and "
                                 f"{self.variables} variables; valid: {lo}..{top} {self.unit}")

    def sequence(self, length, gen):
        d, m = self.depth, self.chains(length)
        names = _choose(self.variables, m * (d + 1), gen)
        chains = [names[c * (d + 1): (c + 1) * (d + 1)] for c in range(m)]
        labels = [c for c in range(m) for _ in range(d)]  # d steps per chain; shuffled: a random interleaving
        slots = [labels[i] for i in torch.randperm(m * d, generator=gen).tolist()]
        steps, done, where = [], [0] * m, {0: 1}
        for c in slots:
            i = done[c]
            steps += [f"v{chains[c][i]}", f"v{chains[c][i + 1]}", *self.step_end]
            done[c] += 1
            if c == 0:
                where[i + 1] = 3 + len(steps) - self.step + 1  # id of v_0(i+1): <bos> 0, q 1, `:` 2, steps from 3
        first = 0 if self.format == "ours" else 1  # our scratchpad copies q first
        written = range(first, d + 1) if self.scratchpad else [d]
        prompt = [BOS, f"v{chains[0][0]}", ":", *steps, SEP2]
        ids = [*range(len(prompt)), *(where[i] for i in written)] if self.coupled else None
        return Sequence(prompt + [f"v{chains[0][i]}" for i in written], ids, len(prompt))


def variable_assignment_reference(prompt: list[str], scratchpad: bool = True, format: str = "ours") -> list[str]:
    """The chain from the query, followed step by step through the assignments of the prompt (the query first in our
    format); only its last variable without scratchpad."""
    steps = [t for t in prompt[3:-1] if t != STEP]
    follows = dict(zip(steps[::2], steps[1::2], strict=True))
    chain, v = [prompt[1]], prompt[1]
    while v in follows:
        v = follows[v]
        chain.append(v)
    return chain[-1:] if not scratchpad else chain if format == "ours" else chain[1:]
