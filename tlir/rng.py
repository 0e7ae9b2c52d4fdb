"""TorchLean's counter-based random numbers (docs/random.md), on NumPy uint64 arrays.

SplitMix64's output function keyed by (seed + node id); draw `k` of a node is
`mix(key + k)` truncated to its low 32 bits. All arithmetic wraps modulo 2^64.
The constants are shared with the `random` dialect's lowering.
"""

from __future__ import annotations

import numpy as np

GOLDEN_GAMMA = 0x9E3779B97F4A7C15
MIX_MULTIPLIER_1 = 0xBF58476D1CE4E5B9
MIX_MULTIPLIER_2 = 0x94D049BB133111EB
MASK64 = (1 << 64) - 1
TWO_POW_32 = 4294967296.0


def mix_int(x: int) -> int:
    """SplitMix64's output function on one Python integer."""
    z = (x + GOLDEN_GAMMA) & MASK64
    z = ((z ^ (z >> 30)) * MIX_MULTIPLIER_1) & MASK64
    z = ((z ^ (z >> 27)) * MIX_MULTIPLIER_2) & MASK64
    return z ^ (z >> 31)


def key_of(seed: int, node_id: int) -> int:
    """docs/random.md#key: `mix((seed mod 2^64) + (i mod 2^64))`."""
    return mix_int(((seed & MASK64) + (node_id & MASK64)) & MASK64)


def mix(x: np.ndarray) -> np.ndarray:
    """SplitMix64's output function on a uint64 array (wrapping arithmetic)."""
    with np.errstate(over="ignore"):
        z = x + np.uint64(GOLDEN_GAMMA)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(MIX_MULTIPLIER_1)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(MIX_MULTIPLIER_2)
    return z ^ (z >> np.uint64(31))


def draws(seed: int, node_id: int, count: int) -> np.ndarray:
    """The 32-bit draws `u_k` for k = 0..count-1, as uint32."""
    key = np.uint64(key_of(seed, node_id))
    with np.errstate(over="ignore"):
        counters = key + np.arange(count, dtype=np.uint64)
    return (mix(counters) & np.uint64(0xFFFFFFFF)).astype(np.uint32)


def uniform(seed: int, node_id: int, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """docs/random.md#uniform-values: `u_k` cast to the carrier (RNE for float32), then divided
    by 2^32."""
    count = int(np.prod(shape, dtype=np.int64))
    values = draws(seed, node_id, count).astype(dtype) / dtype.type(TWO_POW_32)
    return values.reshape(shape)


def bernoulli(
    seed: int, node_id: int, keep: np.ndarray, shape: tuple[int, ...], dtype: np.dtype
) -> np.ndarray:
    """docs/random.md#bernoulli-keep-rule: 0 unless p > 0; 1 if p >= 1; else 1 where
    p > uniform_k."""
    p = dtype.type(keep)
    if not p > 0:
        return np.zeros(shape, dtype)
    if not p < 1:
        return np.ones(shape, dtype)
    return (p > uniform(seed, node_id, shape, dtype)).astype(dtype)
