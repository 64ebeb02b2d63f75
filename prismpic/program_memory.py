"""Compiled programs a process holds: how much it holds, and letting them go.

Every program JAX compiles stays in memory while the function it was compiled for lives: ≈ 1.4 MB even for a
one-operation program (XLA's CPU executable; measured session 33) and ≈ 6 memory maps, which LLVM's JIT maps
section by section (``memory_map_count`` over 400 one-line programs: 417 → 2,887; ``jax.clear_caches`` gives them
back). A long-lived process that compiles many distinct programs grows without bound, and when the kernel refuses a
new mapping LLVM does not raise: it aborts the process ("LLVM ERROR: Unable to allocate section memory!", then
"Fatal Python error: Aborted" inside JAX's compile or its persistent cache's load). Linux allows 65,530 maps per
process (``vm.max_map_count``); a pytest worker that ran half of prismpic's suite held ≈ 27,000 after the component
and circuit tests alone, and one aborted near the end of a full run (session 43). ``release_compiled_programs``
drops them; ``release_when_grown`` does it when the process has grown; the report and the test suite use them.
"""

from __future__ import annotations

from collections.abc import Callable

MAP_LIMIT_FRACTION = 0.4  # ``near_map_limit``: the share of the kernel's map limit past which a process should release


def release_compiled_programs() -> None:
    """Drop JAX's compiled programs held in memory, when its persistent compilation cache is on (the CLI's
    default, and the tests'): what runs next reloads from disk the programs it shares with what ran before. Between
    the report's sections this lowers the default report's peak from 2.07 to 1.37 GB for 5 more CPU-seconds (64 → 69,
    warm cache, measured session 25); without the disk cache the reload would be a full compile, so nothing is
    dropped."""
    import gc

    import jax

    if jax.config.jax_compilation_cache_dir:
        jax.clear_caches()
        gc.collect()
        release_freed_heap()


def resident_mb() -> float | None:
    """This process's resident memory (MB, Linux's /proc/self/statm), None where it cannot be read."""
    import os

    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return None


def release_when_grown(above_mb: float, growth_mb: float) -> Callable[[], None]:
    """A callback that runs ``release_compiled_programs`` when this process's resident memory exceeds ``above_mb`` and
    has grown by more than ``growth_mb`` since the last release (or since the callback was made); nothing where the
    memory cannot be read (``resident_mb``). The growth condition keeps a process that starts large (the report run
    inside a bigger program) from releasing at every call.

    A warm report makes ≈ 770 programs (1.9 GB with none dropped; module docstring). Dropped, the ones a later
    section or claim shares are reloaded from the disk cache and retraced (≈ 15 ms each). The report calls this
    between sections, after each claim and inside the time-domain section."""
    base = [resident_mb()]

    def after() -> None:
        now = resident_mb()
        if now is not None and base[0] is not None and now > above_mb and now - base[0] > growth_mb:
            release_compiled_programs()
            base[0] = resident_mb()

    return after


def release_freed_heap() -> None:
    """Hand the C heap's freed pages back to the system (glibc ``malloc_trim``; elsewhere nothing): XLA's freed
    programs and buffers otherwise stay resident, so every section started from the last one's peak."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
    except OSError:
        libc = None
    if libc is not None and hasattr(libc, "malloc_trim"):
        libc.malloc_trim(0)


def memory_map_count() -> int | None:
    """How many memory maps this process holds (Linux's /proc/self/maps; None where it cannot be read). Reading it
    costs ≈ 2 µs a map (55 ms at 30,000): check it now and then, not at every step."""
    try:
        with open("/proc/self/maps", "rb") as f:
            return f.read().count(b"\n")
    except OSError:
        return None


def map_limit() -> int | None:
    """The kernel's limit on a process's memory maps (Linux's vm.max_map_count; None where it cannot be read)."""
    try:
        with open("/proc/sys/vm/max_map_count") as f:
            return int(f.read())
    except (OSError, ValueError):
        return None


def near_map_limit(fraction: float = MAP_LIMIT_FRACTION) -> bool:
    """True when this process holds more than ``fraction`` of the kernel's memory-map limit (False where either
    cannot be read)."""
    n, limit = memory_map_count(), map_limit()
    return n is not None and limit is not None and n > fraction * limit


def release_near_map_limit(fraction: float = MAP_LIMIT_FRACTION) -> bool:
    """``release_compiled_programs`` when this process holds more than ``fraction`` of the kernel's memory-map limit
    (``near_map_limit``); True when it released. For loops that may compile a program family per item (a wafer's
    spectra of many lengths): ≈ 1 ms a call at 1,000 maps."""
    if not near_map_limit(fraction):
        return False
    release_compiled_programs()
    return True
