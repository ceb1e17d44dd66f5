"""Speed of the synthetic sheet generator (target: a 10000 x 10000 sheet in under 20 s).

``.venv/bin/python -m benchmarks.bench_synth [--size 10000] [--count 2] [--seed 0]``

Prints, per sheet, the wall and CPU seconds of ``generate_sheet`` and of ``write_sheet``
(the six files), then the mean and the worst sheet and the peak resident memory of the
process. Sheets k = 0.. of a run with the given seed are used (difficulty spread by k);
files go to a temporary folder unless ``--keep DIR``.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

from core.synth import generate_sheet, run_difficulty, sheet_seed, write_sheet

TARGET_S = 20.0


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def run(size: int, count: int, seed: int, outdir: Path, first: int) -> list[dict]:
    """Generate and write ``count`` sheets; one dict of timings per sheet."""
    rows = []
    for k in range(first, first + count):
        t0, c0 = time.perf_counter(), time.process_time()
        sheet = generate_sheet(sheet_seed(seed, k), size, difficulty=run_difficulty(k))
        t1, c1 = time.perf_counter(), time.process_time()
        write_sheet(sheet, outdir, f"{k:03d}")
        t2, c2 = time.perf_counter(), time.process_time()
        p = sheet.params
        rows.append({"k": k, "gen": t1 - t0, "gen_cpu": c1 - c0, "write": t2 - t1,
                     "write_cpu": c2 - c1, "difficulty": p["difficulty"],
                     "orientation": p["orientation"], "blocks": p["stats"]["blocks"],
                     "labels": p["stats"]["labels"], "points": len(sheet.intersections)})
        r = rows[-1]
        print(f"sheet {k:03d}  d={r['difficulty']:.2f} {r['orientation']:<6}  "
              f"generate {r['gen']:5.2f} s (cpu {r['gen_cpu']:5.2f})  "
              f"write {r['write']:4.2f} s (cpu {r['write_cpu']:4.2f})  "
              f"total {r['gen'] + r['write']:5.2f} s  blocks {r['blocks']}  "
              f"labels {r['labels']}  intersections {r['points']}", flush=True)
        del sheet
    return rows


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_synth", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=10000)
    ap.add_argument("--count", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--first-index", type=int, default=1,
                    help="first sheet number (default 1: a medium difficulty)")
    ap.add_argument("--keep", type=Path, help="write the sheets here and keep them")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench_synth_") as tmp:
        out = args.keep or Path(tmp)
        rows = run(args.size, args.count, args.seed, out, args.first_index)
    gen = [r["gen"] for r in rows]
    tot = [r["gen"] + r["write"] for r in rows]
    print(f"\n{args.size} x {args.size} px, {len(rows)} sheet(s): "
          f"generate mean {sum(gen) / len(gen):.2f} s, "
          f"worst {max(gen):.2f} s; generate + write mean {sum(tot) / len(tot):.2f} s, "
          f"worst {max(tot):.2f} s; peak RSS {_peak_rss_mb():.0f} MB")
    ok = max(tot) < TARGET_S
    print(f"target: a sheet generated and written in under {TARGET_S:.0f} s: "
          f"{'met' if ok else 'NOT met'} (timings depend on the machine's load)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
