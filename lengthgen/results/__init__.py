"""Results store keyed by config hash, and sweeps that fill it."""
