"""Where the test suite's time goes: a pytest plugin that records, per test, CPU and wall seconds and the seconds JAX
spent tracing, lowering and compiling (its monitoring events), and a summary of what it recorded.

Run (from the repository; the plugin loads by module name):
    COMPILE_TIMER_OUT=/tmp/ct PYTHONPATH=benchmarks python -m pytest -p compile_timer tests/components/test_wdm.py
    python benchmarks/compile_timer.py /tmp/ct [--top 20]

Each pytest process (the controller or an xdist worker) writes ``$COMPILE_TIMER_OUT.<worker>.jsonl``, one JSON object
per test: ``id``, ``cpu``, ``wall`` and the summed durations of JAX's events by their last path part
(``jaxpr_trace_duration``, ``jaxpr_to_mlir_module_duration``, ``backend_compile_duration``, persistent-cache
retrieval), and a last line with the run's seconds per event and traced function (``by_function``). Measured with it (session 27): tests/components/test_wdm.py's netlist test, 45.8 s wall of which 28.3 s
XLA backend compile, 5.7 lowering, 1.9 tracing.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import time
from collections import defaultdict

import pytest

EVENTS = ("jaxpr_trace_duration", "jaxpr_to_mlir_module_duration", "backend_compile_duration")
_ACC: defaultdict[str, float] = defaultdict(float)
_ROWS: list[dict] = []


_BY_FUNCTION: defaultdict[str, float] = defaultdict(float)  # "<event> <function>" -> seconds, the whole run


def _listen(event: str, duration: float, **kwargs) -> None:
    name = event.rsplit("/", 1)[-1]
    _ACC[name] += duration
    if name in EVENTS:
        _BY_FUNCTION[f"{name} {kwargs.get('fun_name', '?')}"] += duration


def pytest_configure(config):
    import jax

    jax.monitoring.register_event_duration_secs_listener(_listen)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _ACC.clear()
    cpu, wall = time.process_time(), time.perf_counter()
    yield
    _ROWS.append({"id": item.nodeid, "cpu": time.process_time() - cpu, "wall": time.perf_counter() - wall, **_ACC})


def pytest_sessionfinish(session):
    out = os.environ.get("COMPILE_TIMER_OUT")
    if out and _ROWS:
        with open(f"{out}.{os.environ.get('PYTEST_XDIST_WORKER', 'master')}.jsonl", "w") as f:
            f.writelines(json.dumps(row) + "\n" for row in _ROWS)
            f.write(json.dumps({"by_function": _BY_FUNCTION}) + "\n")


def main() -> None:
    """Print the slowest tests (wall) with their compile seconds, and the totals."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("prefix", help="the COMPILE_TIMER_OUT the run was given")
    parser.add_argument("--top", type=int, default=20)
    args = parser.parse_args()
    records = [json.loads(line) for path in sorted(glob.glob(f"{args.prefix}.*.jsonl")) for line in open(path)]
    rows = [r for r in records if "id" in r]
    if not rows:
        raise SystemExit(f"no records under {args.prefix}.*.jsonl")
    print(f"{'wall s':>8} {'cpu s':>8} {'trace':>7} {'lower':>7} {'compile':>8}  test")
    for r in sorted(rows, key=lambda r: -r["wall"])[:args.top]:
        print(f"{r['wall']:8.1f} {r['cpu']:8.1f} " + " ".join(f"{r.get(e, 0.0):7.1f}" for e in EVENTS) + f"  {r['id']}")
    totals = {key: sum(r.get(key, 0.0) for r in rows) for key in ("wall", "cpu", *EVENTS)}
    print("total: " + ", ".join(f"{k} {v:.0f} s" for k, v in totals.items()) + f" over {len(rows)} tests")
    by_function: defaultdict[str, float] = defaultdict(float)
    for r in records:
        for key, seconds in r.get("by_function", {}).items():
            by_function[key] += seconds
    print("\nthe functions JAX spent most on (seconds; a trace inside another trace counts in both):")
    for key, seconds in sorted(by_function.items(), key=lambda kv: -kv[1])[:args.top]:
        print(f"{seconds:8.1f}  {key}")


if __name__ == "__main__":
    main()
