import fcntl
import os
import shutil
import tempfile

import pytest
import threadpoolctl
from hypothesis import HealthCheck, settings

# One BLAS thread per process: the suite runs two xdist workers on the machine's two cores (pyproject's addopts), and
# OpenBLAS's idle threads spin, so two workers each with a pool of two fight for the cores. Measured (session 28):
# tests/pdk/test_table_jobs.py under -n 2 took 307 CPU-s and 157 s wall with the default pools, 47 and 32 with one
# thread. The variables reach the libraries loaded later (SciPy's OpenBLAS, the `prismpic` subprocesses, Dask's
# workers); NumPy's, loaded by pytest's plugins before this file, is limited in place.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
threadpoolctl.threadpool_limits(limits=1)

import prismpic  # noqa: E402  (after the thread limits: SciPy is loaded through it)
from prismpic import user_cache  # noqa: E402

# One compilation cache for the whole run, shared by the xdist workers and every `prismpic` subprocess (they inherit
# PRISMPIC_CACHE_DIR): a program compiled by one is loaded by the others. A fresh folder per run (removed at the
# end) unless PRISMPIC_CACHE_DIR is set; the workers inherit the controller's variable.
if user_cache.ENV not in os.environ:
    os.environ["PRISMPIC_TEST_OWNS_CACHE"] = tempfile.mkdtemp(prefix="prismpic-test-cache-")
    os.environ[user_cache.ENV] = os.path.join(os.environ["PRISMPIC_TEST_OWNS_CACHE"], "cache")
assert user_cache.enable_compilation_cache() is not None

# Property-based fuzzing (tests/test_fuzz_*.py, tests/analysis/test_fuzz_measurements.py). Each fuzz test asks for
# a multiple of the profile's max_examples (``settings.default.max_examples``), so one number scales them all:
# "ci" (default): a fixed seed (derandomized, no example database) and a small budget, seconds per target;
# "fuzz-long" (pytest --fuzz-long): 50 times the examples, random seeds, failures kept in .hypothesis/.
_COMMON = dict(deadline=None, print_blob=True,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                      HealthCheck.data_too_large, HealthCheck.filter_too_much])
settings.register_profile("ci", max_examples=10, derandomize=True, database=None, **_COMMON)
settings.register_profile("fuzz-long", max_examples=500, derandomize=False, **_COMMON)


def pytest_addoption(parser):
    parser.addoption("--fuzz-long", action="store_true", default=False,
                     help="run the hypothesis fuzz tests with the 'fuzz-long' profile (50x the CI examples, random "
                          "seeds)")


def pytest_collection_modifyitems(config, items):
    """The tests that read the shared report first: xdist's worksteal hands each worker a contiguous share of the
    list, so they all land on the first worker, which builds the report (``report_dir``) once while the other
    worker runs other tests instead of waiting on the report's lock."""
    items.sort(key=lambda item: "report_dir" not in getattr(item, "fixturenames", ()))


def pytest_configure(config):
    settings.load_profile("fuzz-long" if config.getoption("--fuzz-long") else "ci")


def pytest_unconfigure(config):
    owned = os.environ.get("PRISMPIC_TEST_OWNS_CACHE")
    if owned and not hasattr(config, "workerinput"):
        shutil.rmtree(owned, ignore_errors=True)  # the run's own temporary cache (made above)


@pytest.fixture(scope="session", autouse=True)
def pdk():
    return prismpic.get_pdk()


@pytest.fixture(scope="session")
def report_dir(tmp_path_factory, worker_id):
    """One full ``prismpic report`` run (≈ 2 CPU-minutes) for the whole test run, shared by the report tests and by
    the xdist workers (the first to ask builds it under a file lock; the others wait and reuse it). Read only."""
    from typer.testing import CliRunner

    from prismpic.cli import app

    base = tmp_path_factory.getbasetemp()
    root = base.parent if worker_id != "master" else base
    out = root / "shared-report" / "rep"
    with open(root / "shared-report.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (out / "report.json").is_file():
            out.parent.mkdir(exist_ok=True)
            res = CliRunner().invoke(app, ["report", "--out", str(out)])
            assert res.exit_code == 0, res.output
    return out


@pytest.fixture(scope="session")
def report_ledger(report_dir):
    """The ledger the report judged (``prismpic report``, every entry, flips solved as ``ledger()`` solves them) as
    ``Entry`` rows: read back from report.json, so the suite judges the whole ledger once (the report's run)."""
    import json

    from prismpic.analysis.ledger.verdicts import Entry

    rows = json.loads((report_dir / "report.json").read_text())["claims"]
    return [Entry(**{**r, "assumptions": tuple(r["assumptions"])}) for r in rows]


# A worker runs about half the suite in one process and keeps every program it compiled (``prismpic.program_memory``):
# ≈ 27,000 memory maps and 4 GB after the component and circuit tests alone, and one worker aborted inside XLA near the
# end of a full run when the kernel refused a new map (65,530 per process). Released every MAP_CHECK_EVERY tests when it
# holds 40 % of the kernel's map limit, or when it has grown by RELEASE_STEP_MB past RELEASE_ABOVE_MB (two workers
# within the machine's 24 GB); later tests reload what they share from the run's compilation cache. A release costs
# 2–4 CPU-s and the reloads after it more: at 2.5 GB and every 1 GB more a worker released 16 times a run.
RELEASE_ABOVE_MB, RELEASE_STEP_MB, MAP_CHECK_EVERY = 6000.0, 2000.0, 20
_RELEASE = {}


@pytest.fixture(autouse=True)
def _bounded_programs():
    from prismpic import program_memory

    if not _RELEASE:
        _RELEASE.update(after=program_memory.release_when_grown(RELEASE_ABOVE_MB, RELEASE_STEP_MB), tests=0)
    yield
    _RELEASE["tests"] += 1
    if _RELEASE["tests"] % MAP_CHECK_EVERY == 0:
        program_memory.release_near_map_limit()
    _RELEASE["after"]()


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef, request):
    """A fixture wider than one test (module, class, session) is set up before the test's own ``_reused_programs``
    opens, so it would trace and lower every program anew (a module's six ring fits: 28 of their 38 s); it runs on
    the exported programs too. Such a fixture cannot ask for ``monkeypatch``, which is function-scoped."""
    if fixturedef.scope == "function":
        return (yield)
    from prismpic import program_cache

    with program_cache.enabled():
        return (yield)


@pytest.fixture(autouse=True)
def _reused_programs(request):
    """Every test runs as the CLI runs, on the exported programs (``program_cache``) a previous run or test left,
    except one that patches module state (``monkeypatch``), which a program's key does not follow."""
    from prismpic import program_cache

    if "monkeypatch" in request.fixturenames:
        yield
        return
    with program_cache.enabled():
        yield
