"""Explicit random streams: every random draw in the library comes from a generator made here."""

import hashlib

import torch


def generator(seed: int, stream: str) -> torch.Generator:
    """A CPU generator for one named stream ("init", "train", "eval", ...) of one seed.

    Different streams of the same seed are independent; the same (seed, stream) always gives the same draws.
    """
    digest = hashlib.sha256(f"{seed}/{stream}".encode()).digest()
    return torch.Generator().manual_seed(int.from_bytes(digest[:8], "little"))


def init_model(builder, *args, seed: int):
    """Build a module with its parameters initialised from the seed's "init" stream, not global RNG state."""
    g = generator(seed, "init")
    state = torch.random.get_rng_state()
    try:
        torch.random.manual_seed(int(torch.randint(2**62, (1,), generator=g)))
        return builder(*args)
    finally:
        torch.random.set_rng_state(state)
