"""Counter-based random numbers for the recall Monte Carlo: SplitMix64 in ``jax.numpy``.

Why not ``jax.random``: its threefry generator gives ~45 M normals/s on this 2-core
machine (measured, float32), and a recall trial at N = 1024, d = 32 needs ~65 k normals
(two per ring, drift and fabrication); the 10⁴ trials/s target needs ~10× that rate.
SplitMix64 [Steele, Lea & Flood, "Fast splittable pseudorandom number generators",
OOPSLA 2014] is the state sequence x_n = seed + n·γ (γ = 0x9E3779B97F4A7C15, the golden
ratio in 64 bits) passed through a 64-bit finaliser (Stafford's "mix13"); it passes
BigCrush, and its output at counter n is a pure function of (seed, n), so a draw never
depends on how trials are batched or sharded. Each 64-bit output gives two independent
24-bit uniforms (bits 40–63 and 8–31), each mapped to a standard normal by the inverse
error function (float32: tails reach ±5.4σ, as ``jax.random.normal`` in float32).

Streams: ``stream_seed(key, state, stream)`` hashes a 64-bit key, a chip-state index and a
stream number (one per impairment) into the seed of one sequence; two sequences overlap
only if their seeds differ by a multiple of γ smaller than their length (≈ 2⁻⁴⁸ per pair).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

GAMMA = 0x9E3779B97F4A7C15
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB
SQRT2 = float(np.sqrt(2.0))


def mix64(z):
    """SplitMix64's finaliser (Stafford mix13) on uint64 values."""
    z = (z ^ (z >> 30)) * jnp.uint64(_M1)
    z = (z ^ (z >> 27)) * jnp.uint64(_M2)
    return z ^ (z >> 31)


def _mix64_int(z: int) -> int:
    mask = 2**64 - 1
    z = ((z ^ (z >> 30)) * _M1) & mask
    z = ((z ^ (z >> 27)) * _M2) & mask
    return z ^ (z >> 31)


def key_to_u64(key) -> int:
    """A 64-bit seed word (a Python int) from an int seed or a JAX PRNG key (its key data, hashed)."""
    if isinstance(key, (int, np.integer)):
        words = [(int(key) >> 32) & 0xFFFFFFFF, int(key) & 0xFFFFFFFF]
    else:
        k = jnp.asarray(key) if not hasattr(key, "dtype") else key
        if jnp.issubdtype(k.dtype, jax.dtypes.prng_key):
            k = jax.random.key_data(k)
        words = [int(w) for w in np.asarray(k).ravel()]
    word = 0
    for w in words:  # fold every 32-bit word of the key in (threefry keys have two)
        word = _mix64_int(word ^ (w & 0xFFFFFFFF))
    return word


def stream_seed(key64, state, stream: int):
    """Seed of the sequence for one chip state and one stream (impairment)."""
    s = mix64(jnp.asarray(key64, dtype=jnp.uint64) ^ jnp.uint64((stream + 1) * GAMMA % 2**64))
    return mix64(s + jnp.asarray(state, dtype=jnp.uint64) * jnp.uint64(GAMMA))


def bits(seed, shape) -> jax.Array:
    """uint64 SplitMix64 outputs at counters 0 … prod(shape) − 1 (row-major), shaped."""
    n = 1
    for s in shape:
        n *= int(s)
    c = lax.iota(jnp.uint64, n).reshape(shape)
    return mix64(seed + c * jnp.uint64(GAMMA))


def _normal_of_24(b):
    u = b.astype(jnp.float32) * jnp.float32(2.0 / 2**24) - jnp.float32(1.0 - 1.0 / 2**24)  # open (−1, 1)
    return lax.erf_inv(u) * jnp.float32(SQRT2)


def normal_pair(seed, shape) -> tuple[jax.Array, jax.Array]:
    """Two independent float32 standard-normal arrays of ``shape`` from one sequence."""
    h = bits(seed, shape)
    hi = (h >> 40).astype(jnp.uint32)
    lo = ((h >> 8) & jnp.uint64(0xFFFFFF)).astype(jnp.uint32)
    return _normal_of_24(hi), _normal_of_24(lo)


def normal(seed, shape) -> jax.Array:
    """One float32 standard-normal array of ``shape`` (the first of ``normal_pair``)."""
    return _normal_of_24((bits(seed, shape) >> 40).astype(jnp.uint32))


def uniform(seed, shape) -> jax.Array:
    """float64 uniforms in [0, 1) with 53 random bits."""
    return (bits(seed, shape) >> 11).astype(jnp.float64) * (1.0 / 2**53)
