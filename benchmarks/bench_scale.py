"""Whole atlases: graticule directory mode on 1 and 2 local workers and on a cluster.

    .venv/bin/python -m benchmarks.bench_scale [--count 6] [--size 8000] [--seed 2026]

Generates ``--count`` sheets with ``core.synth`` (cached in bench-output/sheets-<size>-s<seed>/,
as bench-maparea does), then runs ``python -m core.graticule SHEETS -o OUT --force`` three
times, each in a fresh process, start-up included (what a user waits for):

- ``--workers 1``: one sheet after another in that process;
- ``--workers 2``: a local Dask cluster of 2 processes;
- ``--scheduler``: a cluster started here as on real machines, a ``dask scheduler`` and a
  ``dask worker --nworkers 2`` process on 127.0.0.1 (stopped at the end; its start-up is not
  counted, as a real cluster is already up).

Prints, per run: wall time, sheets per minute, speed-up over ``--workers 1``, the mean
seconds of a sheet inside its worker (wall and CPU), the peak memory of each worker process
(from the run's summary.csv) and whether the CSVs are byte-identical to those of ``--workers 1``;
then the time 1000 sheets would take at each rate. Target: ``--workers 2`` at least 1.6x
faster than ``--workers 1``. The machine is shared: the load average is printed.
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.bench_maparea import generated_sheets

REPO = Path(__file__).resolve().parent.parent
TARGET_SPEEDUP = 1.6


def _run(sheets: Path, out: Path, extra: list[str], env: dict[str, str]) -> float:
    """Wall seconds of one directory-mode run (raises if it fails)."""
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "core.graticule", str(sheets), "-o", str(out),
                           "--force", *extra], cwd=REPO, env=env, capture_output=True,
                          text=True)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"run {extra} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return seconds


def _only(paths: list[Path], folder: Path) -> Path:
    """A folder holding links to exactly these sheets and their files (``NNN-*``): the
    cache may hold more sheets from an earlier run with a larger ``--count``."""
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for path in paths:
        prefix = path.name.split("-")[0] + "-"
        for f in path.parent.glob(prefix + "*"):
            (folder / f.name).symlink_to(f.resolve())
    return folder


def _summary(out: Path) -> list[dict[str, str]]:
    with (out / "summary.csv").open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _identical(a: Path, b: Path) -> bool:
    names = sorted(p.name for p in a.glob("*-OUTPUT-PRED.csv"))
    return bool(names) and names == sorted(p.name for p in b.glob("*-OUTPUT-PRED.csv")) and all(
        (a / n).read_bytes() == (b / n).read_bytes() for n in names)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_scale")
    ap.add_argument("--count", type=int, default=6)
    ap.add_argument("--size", type=int, default=8000)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--projection", type=int, default=1000,
                    help="collection size to project the times to")
    args = ap.parse_args(argv)

    from core.batch.loopback import loopback_cluster

    work = REPO / "bench-output" / "scale"
    sheets = _only(generated_sheets(args.count, args.size, args.seed), work / "sheets")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    print(f"{args.count} sheets of {args.size} px in {sheets}; 2 CPUs shared: load average "
          f"{os.getloadavg()[0]:.1f} at the start")
    runs: dict[str, float] = {}
    runs["--workers 1"] = _run(sheets, work / "w1", ["--workers", "1"], env)
    runs["--workers 2"] = _run(sheets, work / "w2", ["--workers", "2"], env)
    with loopback_cluster(work / "cluster-tmp", 2, env=env, timeout=120) as address:
        runs["cluster (2 workers)"] = _run(sheets, work / "cluster", ["--scheduler", address],
                                          env)
    print(f"load average {os.getloadavg()[0]:.1f} at the end\n")
    base = runs["--workers 1"]
    print(f"{'run':<22} {'wall s':>7} {'sheets/min':>10} {'speed-up':>8} {'s/sheet':>8} "
          f"{'cpu s':>6} "
          f"{'peak MB per worker':>24} {'identical':>9} | {args.projection} sheets")
    for (label, seconds), out in zip(runs.items(), ("w1", "w2", "cluster"), strict=True):
        rows = _summary(work / out)
        peaks: dict[str, float] = {}
        for r in rows:
            peaks[r["worker"]] = max(peaks.get(r["worker"], 0.0), float(r["peak_mb"] or 0))
        per_sheet = sum(float(r["seconds"]) for r in rows) / len(rows)
        cpu = sum(float(r["cpu_seconds"]) for r in rows) / len(rows)
        rate = 60 * len(rows) / seconds
        projected_h = args.projection / rate / 60
        peak = " ".join(f"{p:.0f}" for p in sorted(peaks.values()))
        print(f"{label:<22} {seconds:>7.1f} {rate:>10.2f} {base / seconds:>7.2f}x "
              f"{per_sheet:>8.2f} {cpu:>6.2f} {peak:>24} "
              f"{'yes' if _identical(work / 'w1', work / out) else 'NO':>9} | "
              f"{projected_h:.1f} h")
    speedup = base / runs["--workers 2"]
    print(f"\n--workers 2 is {speedup:.2f}x faster than --workers 1 (target >= "
          f"{TARGET_SPEEDUP}: {'met' if speedup >= TARGET_SPEEDUP else 'NOT met'})")
    if _autogroup() and os.getloadavg()[0] > os.cpu_count():
        print("note: the machine is busy and Linux shares the CPU equally between sessions "
              "(sched_autogroup), not processes: the workers of this session together get "
              "no more CPU than one process would; run it on an idle machine")
    return 0


def _autogroup() -> bool:
    try:
        return Path("/proc/sys/kernel/sched_autogroup_enabled").read_text().strip() == "1"
    except OSError:
        return False


if __name__ == "__main__":
    sys.exit(main())
