"""Explicit random streams (every random draw in the library should come from a generator made here), and seed
lists as the command line writes them."""

import contextlib
import hashlib

import torch

from lengthgen.errors import LengthgenError


def generator(seed: int, stream: str) -> torch.Generator:
    """A CPU generator for one named stream ("init", "train", "eval", ...) of one seed.

    Different streams of the same seed are independent; the same (seed, stream) always gives the same draws.
    """
    digest = hashlib.sha256(f"{seed}/{stream}".encode()).digest()
    return torch.Generator().manual_seed(int.from_bytes(digest[:8], "little"))


def fixed_generator(seed: int) -> torch.Generator:
    """A CPU generator seeded with the number itself, for draws pinned to a number rather than to a run's streams (a
    length, an example index, a data seed typed on the command line). Readings stored from such draws stay
    reproducible because this seeding never changes; a run's own randomness takes a named stream from `generator`."""
    return torch.Generator().manual_seed(seed)


def init_model(builder, *args, seed: int):
    """Build a module with its parameters initialised from the seed's "init" stream, not global RNG state."""
    g = generator(seed, "init")
    state = torch.random.get_rng_state()
    try:
        torch.random.manual_seed(int(torch.randint(2**62, (1,), generator=g)))
        return builder(*args)
    finally:
        torch.random.set_rng_state(state)


@contextlib.contextmanager
def global_from(gen: torch.Generator, cuda: bool = False):
    """Within the block, the global RNG (what dropout draws from) seeded from `gen`; the caller's state restored after
    it (the CPU's, and every CUDA device's with `cuda`)."""
    with torch.random.fork_rng(devices=list(range(torch.cuda.device_count())) if cuda else []):
        torch.manual_seed(int(torch.randint(2**62, (1,), generator=gen)))
        yield


def global_rng_state(cuda: bool) -> dict:
    """The global RNG's state (what dropout draws from): the CPU's, and every CUDA device's with `cuda`."""
    return {"cpu": torch.get_rng_state(), "cuda": torch.cuda.get_rng_state_all() if cuda else []}


def restore_global_rng(state: dict) -> None:
    """Put the global RNG back in a state `global_rng_state` read (a training resumed from its snapshot)."""
    torch.set_rng_state(state["cpu"])
    if state["cuda"]:
        torch.cuda.set_rng_state_all(state["cuda"])


def parse_seeds(text: str) -> tuple[int, ...]:
    """"0-4" -> (0,1,2,3,4); "1,3,7" -> (1,3,7); "5" -> (5,). Raises LengthgenError on anything else."""
    seeds: list[int] = []
    try:
        for part in text.split(","):
            lo, _, hi = part.strip().partition("-")
            a, b = int(lo), int(hi) if hi else int(lo)
            if a < 0 or b < a:
                raise ValueError
            seeds.extend(range(a, b + 1))
    except ValueError:
        raise LengthgenError(f"bad seeds {text!r}; valid: non-negative integers like '0-4', '1,3,7' or '5'") from None
    return tuple(dict.fromkeys(seeds))


def seeds_text(seeds) -> str:
    """"seed 5", "seeds 1, 3" or "seeds 0-19, 23" (runs of three or more as a range; `parse_seeds` reads the list
    back); "no seeds" when there are none."""
    ordered = sorted({int(s) for s in seeds})
    if not ordered:
        return "no seeds"
    runs: list[list[int]] = []
    for seed in ordered:
        if runs and seed == runs[-1][-1] + 1:
            runs[-1].append(seed)
        else:
            runs.append([seed])
    parts = [f"{r[0]}-{r[-1]}" if len(r) > 2 else ", ".join(map(str, r)) for r in runs]
    return f"seed{'s' if len(ordered) > 1 else ''} {', '.join(parts)}"
