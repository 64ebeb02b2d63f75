"""The table builds' solves: run in worker processes, each result appended to a job cache as it finishes.

A build (``tables.build_tables``, ``bend_radiation.build_table``, ``coupler_table.build_table``) hands ``run_jobs``
its tasks (kind, key, arguments); results found in the cache (a JSON line per finished solve, beside the output)
are not solved again, so an interrupted build resumes where it stopped, and a build may seed the cache with solves
it already holds (``tables.earlier_node_solves``).
"""

from __future__ import annotations

import json
import multiprocessing as mp
from pathlib import Path

import numpy as np

from prismpic.pdk.table_jobs import run_job


def _encode(res):
    if res is None:
        return None
    if isinstance(res, list):  # a line job's results (one per gap or radius)
        return {"line": [_encode(r) for r in res]}
    return [[v.real, v.imag] if isinstance(v, complex) else float(v) for v in (complex(x) if np.iscomplexobj(x)
                                                                            else x for x in res)]


def _decode(res):
    if res is None:
        return None
    if isinstance(res, dict):
        return [_decode(r) for r in res["line"]]
    return tuple(complex(*v) if isinstance(v, list) else v for v in res)


def load_job_cache(path: Path) -> dict:
    """Finished solves of an interrupted build: {(kind, key): result}; a torn last line is ignored."""
    done = {}
    if path.is_file():
        for line in path.read_text().splitlines():
            try:
                item = json.loads(line)
            except json.JSONDecodeError:
                continue
            done[(item["kind"], _tuplify(item["key"]))] = _decode(item["res"])
    return done


def _tuplify(x):
    return tuple(_tuplify(v) for v in x) if isinstance(x, list) else x


def run_jobs(tasks, workers, progress, done0, total, cache: dict, cache_file):
    """Run the tasks not in ``cache`` (in ``workers`` processes), appending each result to ``cache_file``
    and calling progress(done, total) as they finish."""
    results = {(k, key): cache[(k, key)] for k, key, _ in tasks if (k, key) in cache}
    todo = [t for t in tasks if (t[0], t[1]) not in cache]
    done, cpu = done0 + len(results), 0.0
    if progress and results:
        progress(done, total)
    if not todo:
        return results, done, cpu
    if workers <= 1:
        outputs = map(run_job, todo)
    else:
        pool = mp.get_context("spawn").Pool(workers)
        outputs = pool.imap_unordered(run_job, todo, chunksize=2)
    try:
        with open(cache_file, "a") as log:
            for kind, key, res, seconds in outputs:
                results[(kind, key)] = res
                log.write(json.dumps({"kind": kind, "key": key, "res": _encode(res)}) + "\n")
                log.flush()
                cpu += seconds
                done += 1
                if progress:
                    progress(done, total)
    finally:
        if workers > 1:
            pool.terminate()
            pool.join()
    return results, done, cpu
