"""Speed and memory of the MapSeg metrics T1, T2, T3 against the official icdar21-mapseg-eval.

    .venv/bin/python -m benchmarks.bench_metrics [--size 10000] [--points 100] [--tasks T1,T2,T3]

Generates (seeded) a building-block mask pair and a map-area mask pair of ``size`` x ``size``
pixels (0/255 PNG) and a ``points``-point CSV pair, then scores each pair in a fresh
subprocess per implementation: ours (default and ``official=True``) and the official tool
(``skimage.io.imread(as_gray=True)`` + ``COCO`` / ``hausdorff`` / ``np.loadtxt`` +
``eval_pt_detect``, as its command line does, without the plots). Each subprocess reports the
time to read and score the pair and its peak resident memory (``VmHWM``, else
``ru_maxrss``). Prints a table,
the speed ratios and whether the targets hold: T2 at least 5x faster than the official tool
with an equal value, every one of ours under 2 GB. Timings depend on the machine's load.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

MEMORY_LIMIT_MB = 2048
T2_MIN_SPEEDUP = 5.0
IMPLS = ("ours", "ours-official", "official")


# ---- data ----------------------------------------------------------------------------------

def make_blocks(size: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """A street grid of quadrilateral blocks, some with courtyards; the prediction moves
    corners by a few pixels, drops, merges and splits some blocks and adds false ones."""
    import cv2

    ref = np.zeros((size, size), np.uint8)
    pred = np.zeros((size, size), np.uint8)
    y = 0
    while y < size:
        h = int(rng.integers(60, 260))
        x = 0
        while x < size:
            w = int(rng.integers(60, 300))
            street = int(rng.integers(8, 22))
            quad = np.array([[x, y], [x + w - street, y], [x + w - street, y + h - street],
                             [x, y + h - street]], np.float64)
            quad += rng.normal(0, 3, quad.shape)
            cv2.fillPoly(ref, [np.round(quad).astype(np.int32)], 255)
            fate = rng.random()
            if fate > 0.03:  # 3 % missed
                moved = quad + rng.normal(0, 2.5, quad.shape)
                cv2.fillPoly(pred, [np.round(moved).astype(np.int32)], 255)
                if fate > 0.97:  # merged with the right neighbour
                    cv2.rectangle(pred, (x + w - street - 2, y + h // 3),
                                  (x + w + 2, y + h // 2), 255, -1)
                elif fate < 0.06:  # split in two
                    cv2.line(pred, (x, y + h // 2), (x + w, y + h // 2), 0, 3)
            if rng.random() < 0.15 and w > 120 and h > 120:  # courtyard
                cv2.rectangle(ref, (x + 30, y + 30), (x + w - 50, y + h - 50), 0, -1)
                cv2.rectangle(pred, (x + 31, y + 29), (x + w - 49, y + h - 51), 0, -1)
            x += w
        y += h
    for _ in range(size // 200):  # false blocks
        cx, cy = (int(v) for v in rng.integers(0, size, 2))
        cv2.circle(pred, (cx, cy), int(rng.integers(5, 30)), 255, -1)
    return ref, pred


def make_map_area(size: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """A map area with a wiggly outline; the prediction's outline is off by up to ~40 px."""
    import cv2

    n = 400
    angles = np.linspace(0, 2 * np.pi, n, endpoint=False)
    radius = size * 0.42 * (1 + 0.03 * np.sin(7 * angles)) + rng.normal(0, size * 0.002, n)
    centre = size / 2

    def outline(r):
        pts = np.column_stack((centre + r * np.cos(angles), centre + r * np.sin(angles)))
        return [np.round(pts).astype(np.int32)]

    ref = np.zeros((size, size), np.uint8)
    cv2.fillPoly(ref, outline(radius), 255)
    pred = np.zeros((size, size), np.uint8)
    cv2.fillPoly(pred, outline(radius + rng.normal(0, size * 0.002, n) + size * 0.001), 255)
    for _ in range(20):  # stray blobs outside and holes inside
        cx, cy = (int(v) for v in rng.integers(0, size, 2))
        cv2.circle(pred, (cx, cy), int(rng.integers(3, 25)), int(rng.choice([0, 255])), -1)
    return ref, pred


def make_points(n: int, size: int, rng) -> tuple[np.ndarray, np.ndarray]:
    side = int(np.ceil(np.sqrt(n)))
    grid = np.stack(np.meshgrid(np.arange(side), np.arange(side)), -1).reshape(-1, 2)[:n]
    ref = (grid + 0.5) * (size / side) + rng.normal(0, 3, (n, 2))
    pred = ref + rng.normal(0, 8, ref.shape)
    pred = np.vstack((pred[5:], rng.uniform(0, size, (5, 2)), pred[10:13]))
    return np.round(ref, 1), np.round(pred[rng.permutation(len(pred))], 1)


def write_inputs(folder: Path, size: int, n_points: int, tasks: list[str]) -> dict[str, tuple]:
    import cv2

    from core.formats.mapseg_csv import write_points_csv

    rng = np.random.default_rng(2021)
    files = {}
    for task, make in (("T1", make_blocks), ("T2", make_map_area)):
        if task in tasks:
            ref, pred = make(size, rng)
            paths = (folder / f"{task}-OUTPUT-GT.png", folder / f"{task}-OUTPUT-PRED.png")
            for path, img in zip(paths, (ref, pred), strict=True):
                cv2.imwrite(str(path), img)
            files[task] = paths
            del ref, pred
    if "T3" in tasks:
        ref, pred = make_points(n_points, size, rng)
        paths = (folder / "T3-OUTPUT-GT.csv", folder / "T3-OUTPUT-PRED.csv")
        write_points_csv(paths[0], ref)
        write_points_csv(paths[1], pred)
        files["T3"] = paths
    return files


# ---- one measurement (child process) -------------------------------------------------------

def score(task: str, impl: str, ref: str, pred: str) -> float:
    """Read and score one pair with one implementation (no plots)."""
    if impl == "official":
        if task == "T3":
            from icdar21_mapseg_eval import eval_pt_detect

            expected = np.loadtxt(ref, delimiter=",", skiprows=1)
            predicted = np.loadtxt(pred, delimiter=",", skiprows=1)
            return float(eval_pt_detect(expected, predicted, 50, beta=0.5)[0])
        from skimage.io import imread

        a, b = imread(ref, as_gray=True), imread(pred, as_gray=True)
        if task == "T1":
            from icdar21_mapseg_eval import COCO

            return float(COCO(a, b)[0])
        from icdar21_mapseg_eval import hausdorff

        return float(hausdorff(a, b))
    official = impl == "ours-official"
    from core.metrics import mapseg_io

    if task == "T3":
        from core.metrics.point_detection import pds

        return pds(mapseg_io.read_points(ref, official=official),
                   mapseg_io.read_points(pred, official=official), official=official).score
    if task == "T1":
        from core.metrics.panoptic import panoptic_quality

        a, b = mapseg_io.read_label_image(ref), mapseg_io.read_label_image(pred)
        return panoptic_quality(a, b, official=official).pq
    from core.metrics.hausdorff import hausdorff95

    a = mapseg_io.read_mask_image(ref, official=official)
    b = mapseg_io.read_mask_image(pred, official=official)
    return hausdorff95(a, b, official=official)


def child(task: str, impl: str, ref: str, pred: str) -> None:
    if impl == "official":  # import outside the timing, as for ours
        import icdar21_mapseg_eval  # noqa: F401
        import skimage.io  # noqa: F401
    else:
        import core.metrics.hausdorff
        import core.metrics.panoptic
        import core.metrics.point_detection  # noqa: F401
    start = time.perf_counter()
    value = score(task, impl, ref, pred)
    seconds = time.perf_counter() - start
    print(json.dumps({"value": value, "seconds": seconds, "peak_mb": peak_memory_mb()}))


def peak_memory_mb() -> float:
    """This process's peak resident memory. Linux's VmHWM counts only this program (after
    exec); ``ru_maxrss`` would also count the parent's memory copied at fork time."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(task: str, impl: str, ref: Path, pred: Path) -> dict:
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONWARNINGS": "ignore"}
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_metrics", "--child", task, impl, str(ref),
         str(pred)], capture_output=True, text=True, env=env, check=False)
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["?"])[-1]
        return {"error": tail}
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ---- report --------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10000, help="image side in pixels")
    parser.add_argument("--points", type=int, default=100, help="points per CSV")
    parser.add_argument("--tasks", default="T1,T2,T3", help="comma-separated subset")
    parser.add_argument("--child", nargs=4, metavar=("TASK", "IMPL", "REF", "PRED"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(*args.child)
        return 0
    tasks = [t.strip() for t in args.tasks.split(",") if t.strip()]
    print(f"MapSeg metrics benchmark: {args.size} x {args.size} px masks, {args.points}-point "
          f"CSVs; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    ok = True
    with tempfile.TemporaryDirectory(prefix="bench-mapseg-") as tmp:
        t0 = time.perf_counter()
        files = write_inputs(Path(tmp), args.size, args.points, tasks)
        print(f"inputs written in {time.perf_counter() - t0:.1f} s\n")
        print(f"{'task':<5}{'implementation':<16}{'seconds':>9}{'peak MB':>9}  value")
        for task in tasks:
            results = {impl: measure(task, impl, *files[task]) for impl in IMPLS}
            for impl, r in results.items():
                if "error" in r:
                    print(f"{task:<5}{impl:<16}{'failed':>9}{'':>9}  {r['error']}")
                    continue
                print(f"{task:<5}{impl:<16}{r['seconds']:9.3f}{r['peak_mb']:9.0f}  "
                      f"{r['value']!r}")
            ours, theirs = results["ours"], results["official"]
            ours_off = results["ours-official"]
            if any("error" in r for r in results.values()):
                ok = False
                continue
            ratio = theirs["seconds"] / max(ours["seconds"], 1e-9)
            same = ours_off["value"] == theirs["value"]
            default_gap = abs(ours["value"] - theirs["value"])
            print(f"{task:<5}speed-up {ratio:.1f}x (official / ours); official mode equal bit "
                  f"for bit: {same}; default - official = {default_gap:.3g}")
            for impl in ("ours", "ours-official"):
                if results[impl]["peak_mb"] >= MEMORY_LIMIT_MB:
                    print(f"{task:<5}FAIL: {impl} peak memory {results[impl]['peak_mb']:.0f} MB "
                          f">= {MEMORY_LIMIT_MB} MB")
                    ok = False
            if not same:
                print(f"{task:<5}FAIL: official mode differs from the official tool")
                ok = False
            if task == "T2" and (ratio < T2_MIN_SPEEDUP or default_gap > 1e-9):
                print(f"{task:<5}FAIL: T2 must be >= {T2_MIN_SPEEDUP:g}x faster with an equal "
                      "value")
                ok = False
            print()
    print("targets met" if ok else "some targets NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
