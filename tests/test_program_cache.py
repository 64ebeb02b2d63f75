"""Traced programs reused across runs (``prismpic.program_cache``): the same numbers as ``jax.jit``, a key that
follows everything the program depends on, nothing written outside ``enabled()`` or into a foreign folder."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from prismpic import program_cache, user_cache

SCALE = 3.0


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A fresh user cache and an empty in-process table of programs (as in a new process)."""
    monkeypatch.setenv(user_cache.ENV, str(tmp_path / "c"))
    # this module's functions are keyed like prismpic's (by name, bytecode and closure)
    monkeypatch.setattr(program_cache, "KNOWN_PACKAGES", (*program_cache.KNOWN_PACKAGES, __name__))
    program_cache.forget()
    yield tmp_path / "c" / user_cache.PROGRAM_FOLDER
    program_cache.forget()


def _files(folder):
    return sorted(p.name for p in folder.glob(f"*{user_cache.PROGRAM_SUFFIX}")) if folder.is_dir() else []


def _scaled(factor):
    return program_cache.reuse(lambda x, w: jnp.sin(factor * x) @ w["m"] + w["b"])


def _args(n=5):
    x = jnp.linspace(0.0, 1.0, n)
    return x, {"m": jnp.ones((n, 2)), "b": jnp.arange(2.0)}


def test_a_reused_program_gives_the_numbers_of_jit_and_is_read_back_instead_of_traced(cache, monkeypatch):
    f = _scaled(SCALE)
    plain = np.asarray(jax.jit(lambda x, w: jnp.sin(SCALE * x) @ w["m"] + w["b"])(*_args()))
    with program_cache.enabled():
        first = np.asarray(f(*_args()))
        assert len(_files(cache)) == 1
        program_cache.forget()  # as a new process: read from the file
        monkeypatch.setattr(program_cache, "_export", lambda *a: pytest.fail("exported again"))
        second = np.asarray(f(*_args()))
    assert np.array_equal(first, plain) and np.array_equal(second, plain)


def test_the_key_follows_closed_over_values_argument_shapes_and_the_sources(cache, monkeypatch):
    with program_cache.enabled():
        a = np.asarray(_scaled(SCALE)(*_args()))
        b = np.asarray(_scaled(2.0)(*_args()))  # same code, another closed-over value
        c = np.asarray(_scaled(SCALE)(*_args(7)))  # another shape
    assert len(_files(cache)) == 3 and not np.array_equal(a, b) and c.shape == a.shape
    fn = _scaled(SCALE)
    keys = {program_cache.program_key(fn, _args()), program_cache.program_key(_scaled(2.0), _args()),
            program_cache.program_key(fn, (_args()[0].astype(jnp.float32), _args()[1])),
            program_cache.program_key(fn, (np.asarray(_args()[0]), _args()[1]))}
    assert len(keys) == 4
    arr = np.arange(3.0)
    k1 = program_cache.program_key(lambda x: x * arr, (1.0,))
    arr[0] = 9.0  # a closed-over array is keyed by its content
    assert program_cache.program_key(lambda x: x * arr, (1.0,)) != k1
    before = program_cache.program_key(fn, _args())
    monkeypatch.setattr(user_cache, "source_key", lambda **_: "othersources")
    assert program_cache.program_key(fn, _args()) != before


def test_entries_of_other_sources_are_removed_and_nothing_else(cache, monkeypatch):
    with program_cache.enabled():
        _scaled(SCALE)(*_args())
    assert _files(cache)
    (cache / "notes.txt").write_text("the user's")
    monkeypatch.setattr(user_cache, "source_key", lambda **_: "newsources")
    program_cache.forget()
    with program_cache.enabled(), pytest.MonkeyPatch.context() as m:
        # an export lists the program folder alone: a listing of the whole cache stats every JAX entry (0.55 s an
        # export with the 12,000 files a test run's cache holds)
        m.setattr(user_cache, "entries", lambda root: pytest.fail("an export listed the whole cache"))
        _scaled(SCALE)(*_args())
    assert [n.split("-")[1] for n in _files(cache)] == ["newsources"]
    assert (cache / "notes.txt").read_text() == "the user's"
    assert user_cache.usage()["entries"] == 1
    assert user_cache.clear()[0] == 1 and _files(cache) == [] and (cache / "notes.txt").exists()


def _power(p, x):
    return x**p


def test_a_partial_is_keyed_by_its_function_and_arguments_not_its_address(cache):
    """Two partials of the same function and arguments (two objects, as two runs make) share a key, so a second
    run reads the entry the first wrote; another argument is another digest under the same function's name."""
    import functools

    x = (jnp.linspace(0.0, 1.0, 3),)
    a, b = functools.partial(_power, 2.0), functools.partial(_power, 2.0)
    assert program_cache.program_key(a, x) == program_cache.program_key(b, x)
    other = program_cache.program_key(functools.partial(_power, 3.0), x)
    assert other != program_cache.program_key(a, x)
    assert other.split("-")[0] == program_cache.program_key(a, x).split("-")[0]


class Opaque:
    """A value without fields: not describable."""

    def __init__(self, v):
        self.v = v


def test_what_cannot_be_keyed_runs_as_usual(cache):
    o = Opaque(2.0)
    f = program_cache.reuse(lambda x: x * o.v)
    with program_cache.enabled():
        assert float(f(jnp.float64(1.5))) == 3.0
        with pytest.raises(program_cache.Unkeyable):
            program_cache.program_key(f, (1.0,))
    assert _files(cache) == []


def test_outside_enabled_and_under_a_trace_nothing_is_written_and_gradients_flow(cache):
    f = _scaled(SCALE)
    f(*_args())
    assert _files(cache) == []
    x, w = _args()
    with program_cache.enabled():
        g = jax.grad(lambda x: jnp.sum(f(x, w)))(x)
        jitted = np.asarray(jax.jit(f)(x, w))
    assert _files(cache) == []
    assert np.allclose(np.asarray(g), SCALE * np.cos(SCALE * np.asarray(x)) * 2, rtol=1e-12)
    assert np.array_equal(jitted, np.asarray(f(x, w)))


def test_a_foreign_folder_is_not_written(tmp_path, monkeypatch):
    mine = tmp_path / "mine"
    mine.mkdir()
    monkeypatch.setenv(user_cache.ENV, str(mine))
    program_cache.forget()
    with program_cache.enabled():
        assert not program_cache.is_enabled()
        _scaled(SCALE)(*_args())
    assert list(mine.iterdir()) == []


def test_the_physics_programs_give_the_same_numbers_reused(cache):
    """The programs the ledger reuses (a bank's radius solve and prepared state, ring specs, crosstalk terms, a
    ring's S-parameters) give bit-identical numbers from the cache, written and read back, as from ``jax.jit``."""
    from prismpic.analysis.system import crosstalk
    from prismpic.circuits import bank_model
    from prismpic.components import rings

    def run():
        wl = np.linspace(1.545, 1.555, 4)
        radii = bank_model.bank_radii(wl)
        state = bank_model.prepare_bank(wl, radii)
        specs = rings.ring_specs(1.55, "add_drop")
        p = crosstalk.ring_settings({})
        terms = crosstalk.ring_terms(wl, radii, p)
        sdict = rings.ring_sparameters(wl, "add_drop")
        assert ("o1", "o2") in sdict and ("o4", "o1") in sdict  # the port pairs, as the model names them
        return jax.tree.leaves((radii, state, specs, terms, sdict))

    plain = run()
    with program_cache.enabled():
        written = run()
        program_cache.forget()
        read = run()
    assert program_cache.skipped() == {}
    assert len(_files(cache)) == 5
    for a, b, c in zip(plain, written, read, strict=True):
        assert np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)
        assert np.array_equal(np.asarray(a), np.asarray(c), equal_nan=True)


_CHANNEL_RUN = """
import os
os.environ.setdefault("EQX_ON_ERROR", "nan")
import prismpic
from prismpic import program_cache, user_cache
from prismpic.analysis.ledger import claims_context as cc
user_cache.enable_compilation_cache()
with program_cache.enabled():
    ctx = {}
    print(repr(cc.simulated_latency(ctx).electro_optic_ps))
    print(repr(cc.simulated_snr(ctx).snr_db(2e-12, -150.0)))
"""


def test_the_ledgers_channel_simulations_run_again_on_the_cache_they_wrote(tmp_path):
    """A warm cache must not crash a run: the channel optics' exported program, read back, crashed XLA:CPU with a
    segfault in the second process (session 24: the LAPACK kernels its state-space solve calls were not loaded,
    ``program_cache`` loads them first now); the channel optics are reused again since session 44. The same two simulations,
    two processes on one fresh cache folder (the first writes the programs and their executables, the second reads
    both), exit 0 and print the same numbers."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, **{user_cache.ENV: str(tmp_path / "cache")})
    runs, programs = [], []
    for _ in range(2):
        runs.append(subprocess.run([sys.executable, "-c", _CHANNEL_RUN], env=env, capture_output=True, text=True,
                                   timeout=600))
        folder = tmp_path / "cache" / user_cache.PROGRAM_FOLDER
        programs.append({name: (folder / name).stat().st_mtime_ns for name in _files(folder)})
    assert [r.returncode for r in runs] == [0, 0], runs[-1].stderr[-2000:]
    assert runs[0].stdout == runs[1].stdout and len(runs[0].stdout.split()) == 2
    assert programs[0] and programs[1] == programs[0]  # the second run read what the first wrote, wrote nothing


_LINALG_RUN = """
import numpy as np
import jax.numpy as jnp
from prismpic import program_cache
program_cache.KNOWN_PACKAGES = (*program_cache.KNOWN_PACKAGES, "__main__")

def solve(a, b):
    return jnp.linalg.solve(a, b)

a = 6 * np.eye(6) + np.random.default_rng(0).normal(size=(6, 6))
with program_cache.enabled():
    print(repr(np.asarray(program_cache.reuse(solve)(a, np.ones(6))).tolist()))
"""


def test_a_program_that_calls_lapack_runs_when_read_back_in_a_new_process(tmp_path):
    """XLA:CPU's LAPACK kernels load when JAX first lowers a linear-algebra call; a read-back program that calls
    them in a process that lowered none crashed (segfault; jax-ml/jax#29610): the ring fit's solver is such a
    program. Two processes on one fresh cache: the second reads the first's program, exits 0, same numbers."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, **{user_cache.ENV: str(tmp_path / "cache")})
    runs = [subprocess.run([sys.executable, "-c", _LINALG_RUN], env=env, capture_output=True, text=True, timeout=300)
            for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0], runs[-1].stderr[-2000:]
    assert runs[0].stdout == runs[1].stdout and len(_files(tmp_path / "cache" / user_cache.PROGRAM_FOLDER)) == 1
