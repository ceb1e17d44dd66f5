"""Map-area segmentation (MapSeg task 2): Hausdorff-95 and time on generated sheets.

Target (issue 6): mean HD95 at most 15 px on generated sheets, under 5 s per 10000 x 10000
sheet (the 2021 winner had 19 px on the real test set). Also prints the real crop's HD95.

Run: ``.venv/bin/python -m benchmarks.bench_maparea [--count 6] [--size 10000] [--seed 0]``.
Sheets are made by ``python -m core.synth`` with difficulties spread over 0..1 and cached in
bench-output/sheets-<size>-s<seed>/. Timings include decoding the JPEG (at 1/4 size) and
writing nothing; they are indicative on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
REAL_CROP = SHARED / "data" / "paris-1925-sheet1-crop"


def generated_sheets(count: int, size: int, seed: int, style: str = "default") -> list[Path]:
    """``NNN-INPUT.jpg`` paths of ``count`` sheets made by ``python -m core.synth`` (run only
    for the sheets missing from ``bench-output/sheets-<size>-s<seed>/``; another ``style``
    than the default: ``sheets-<size>-s<seed>-<style>/``)."""
    suffix = "" if style == "default" else f"-{style}"
    outdir = REPO / "bench-output" / f"sheets-{size}-s{seed}{suffix}"
    paths = [outdir / f"{k:03d}-INPUT.jpg" for k in range(count)]
    missing = [k for k, p in enumerate(paths)
               if not (p.is_file() and p.with_name(f"{k:03d}-BLOCKS-GT.png").is_file())]
    for k in missing:
        print(f"generating sheet {k:03d} ({size} x {size}) ...", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, "-m", "core.synth", str(outdir), "--count", "1",
                        "--first-index", str(k), "--size", str(size), "--seed", str(seed),
                        *(["--style", style] if suffix else [])],
                       check=True, cwd=REPO)
    return paths


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=6)
    ap.add_argument("--size", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    from core.imageio import read_mask
    from core.maparea import map_area_mask
    from core.metrics.hausdorff import hausdorff95

    rows = []
    for path in generated_sheets(args.count, args.size, args.seed):
        truth = read_mask(path.with_name(path.name.replace("-INPUT.jpg", "-INPUT-MASK.png")))
        params = json.loads(path.with_name(path.name.replace("-INPUT.jpg", ".json")).read_text())
        t = time.perf_counter()
        mask = map_area_mask(path)
        seconds = time.perf_counter() - t
        hd = hausdorff95(truth, mask)
        rows.append((hd, seconds))
        print(f"{path.name}: difficulty {params['difficulty']:.2f} frame "
              f"{params['frame_shape']:<10} HD95 {hd:6.1f} px  {seconds:5.2f} s", flush=True)
    hd = np.array([r[0] for r in rows])
    sec = np.array([r[1] for r in rows])
    print(f"generated ({len(rows)} sheets, {args.size} px): mean HD95 {hd.mean():.1f} px "
          f"(target <= 15), max {hd.max():.1f}; time mean {sec.mean():.2f} s, max "
          f"{sec.max():.2f} s (target < 5 s at 10000 px)")
    if REAL_CROP.is_dir():
        truth = read_mask(REAL_CROP / "INPUT-MASK.png")
        t = time.perf_counter()
        mask = map_area_mask(REAL_CROP / "INPUT.jpg")
        print(f"real crop (paris-1925-sheet1, 9000 x 3000, no frame line): HD95 "
              f"{hausdorff95(truth, mask):.1f} px  {time.perf_counter() - t:.2f} s")


if __name__ == "__main__":
    main()
