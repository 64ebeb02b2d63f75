"""`prismpic claims` today against a pinned earlier commit: CPU seconds and peak memory of a warm run.

Each side runs the whole ledger in a child process (the command's own code path: ``prismpic.cli.main``), first once
to fill the user cache (compiled programs, and today's traced programs: ``prismpic.program_cache``), then
``--repeat`` times, alternating, so both see the same machine load. Prints one line per run and the ratio of the
medians. Usage: ``python benchmarks/bench_claims.py [--baseline COMMIT] [--repeat N]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pinned_baseline import run_pinned  # noqa: E402

BASELINE = "c1f6277"  # session 22's last commit: before traced programs were reused
SCRIPT = """
import json, os, resource, sys
os.environ.setdefault("EQX_ON_ERROR", "nan")  # as the console script sets it
import prismpic
import prismpic.cli as cli
sys.argv = ["prismpic", "claims"]
try:
    cli.main()
except SystemExit as e:
    assert e.code in (0, None), e.code
ru = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"prismpic_file": prismpic.__file__, "cpu_s": ru.ru_utime + ru.ru_stime,
                  "peak_gb": ru.ru_maxrss / 1024**2}))
"""


def run_today() -> dict:
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True, cwd="/")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", default=BASELINE)
    ap.add_argument("--repeat", type=int, default=2)
    a = ap.parse_args()
    runs = {"baseline": [], "today": []}
    run_pinned(a.baseline, SCRIPT)  # warm-up: fill the caches
    run_today()
    for _ in range(a.repeat):
        for name, fn in (("baseline", lambda: run_pinned(a.baseline, SCRIPT)), ("today", run_today)):
            r = fn()
            runs[name].append(r)
            print(f"{name:8s} {r['cpu_s']:6.1f} CPU-s  {r['peak_gb']:.2f} GB", flush=True)
    med = {k: statistics.median(r["cpu_s"] for r in v) for k, v in runs.items()}
    print(f"prismpic claims, warm: today / {a.baseline} = {med['today'] / med['baseline']:.2f} "
          f"({med['today']:.1f} / {med['baseline']:.1f} CPU-s, median of {a.repeat})")


if __name__ == "__main__":
    main()
