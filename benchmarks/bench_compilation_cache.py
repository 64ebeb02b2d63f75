"""Writing a compiled program into JAX's persistent cache, with JAX's size-limited eviction (what prismpic set up to
session 41) against without it (prismpic now, ``user_cache.prune_compilation_cache`` keeping the size once a day).

Run: python benchmarks/bench_compilation_cache.py [--entries 6200] [--writes 20]

A scratch folder is filled with ``entries`` programs of 40 kB (and their access-time files, as JAX's eviction keeps
them; a test run's cache held 6,200 programs in session 42), then ``writes`` new programs are written into it through
JAX's own cache class (``jax._src.lru_cache.LRUCache``, private: the cache JAX builds from
``jax_compilation_cache_max_size``), once with a 2 GiB limit (eviction on: at every write JAX lists and stats the
folder and reads every access-time file) and once with none. Prints CPU seconds per write and the ratio. Also the
prune's own cost on the same folder (one listing, nothing over the limit).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path


def _fill(folder: Path, n: int) -> None:
    blob = bytes(40_000)
    for i in range(n):
        (folder / f"jit_f{i:06d}-cache").write_bytes(blob)
        (folder / f"jit_f{i:06d}-atime").write_bytes(time.time_ns().to_bytes(8, "little"))


def _per_write(folder: Path, max_size: int, writes: int, tag: str) -> float:
    from jax._src.lru_cache import LRUCache

    cache = LRUCache(str(folder), max_size=max_size)
    start = time.process_time()
    for i in range(writes):
        cache.put(f"new_{tag}_{i}", bytes(40_000))
    return (time.process_time() - start) / writes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=6200)
    parser.add_argument("--writes", type=int, default=20)
    args = parser.parse_args()
    from prismpic import user_cache

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / user_cache.JAX_FOLDER / "cpu-bench"
        folder.mkdir(parents=True)
        (Path(tmp) / user_cache.MARKER).write_text("")
        _fill(folder, args.entries)
        evicting = _per_write(folder, 2 * 1024**3, args.writes, "evict")
        plain = _per_write(folder, -1, args.writes, "plain")
        start = time.process_time()
        removed = user_cache.prune_compilation_cache(folder, interval_s=0.0)
        prune = time.process_time() - start
    print(f"{args.entries} programs in the folder; CPU-s per program written: JAX eviction {evicting:.4f}, "
          f"none {plain:.5f} (ratio {evicting / plain:.0f}); prismpic's daily prune {prune:.2f} CPU-s "
          f"(removed {removed} access-time files, no program: under the limit)")


if __name__ == "__main__":
    main()
