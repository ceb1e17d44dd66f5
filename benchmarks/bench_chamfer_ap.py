"""Speed of the chamfer-distance AP: 1000 frames x 30 GT polylines (target: under 20 s).

Generated, seeded data in the challenge's shape: a 60 x 30 m frame, 30 GT lines a frame
(ped-crossing rings, dividers and boundaries of 2 to 30 vertices, 3 to 60 m long), and about
30 predictions a frame: noisy, shifted, reversed, truncated or resampled copies of most GT lines
plus false positives. The data is written as the challenge's JSON files, then scored end to end
(reading included) in default and official mode, with per-frame details (every distance
computed, no pruning), and through the command line.

Run: ``.venv/bin/python -m benchmarks.bench_chamfer_ap [--frames N] [--lines N] [--seed S]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from core.metrics.chamfer_ap import chamfer_ap, read_challenge

TARGET_SECONDS = 20.0
CLASSES = ("ped_crossing", "divider", "boundary")


def random_line(rng: np.random.Generator, label: int) -> np.ndarray:
    """A GT polyline (x in [-30, 30], y in [-15, 15], metres) of the given class."""
    if label == 0:  # ped crossing: a closed ring of 4 to 8 vertices, 3 to 12 m across
        n = int(rng.integers(4, 9))
        angles = np.sort(rng.uniform(0, 2 * np.pi, n))
        radius = rng.uniform(1.5, 6.0) * rng.uniform(0.6, 1.0, n)
        centre = rng.uniform([-25, -12], [25, 12])
        ring = centre + np.c_[np.cos(angles), np.sin(angles)] * radius[:, None]
        return np.vstack([ring, ring[:1]])
    n = int(rng.integers(2, 31))
    length = rng.uniform(3.0, 60.0)
    heading = rng.uniform(0, 2 * np.pi)
    turns = np.cumsum(rng.normal(0, 0.15, n - 1))
    steps = np.c_[np.cos(heading + turns), np.sin(heading + turns)] * (length / (n - 1))
    start = rng.uniform([-30, -15], [30, 15])
    pts = np.vstack([start, start + np.cumsum(steps, axis=0)])
    return np.clip(pts, [-30, -15], [30, 15])


def prediction_of(rng: np.random.Generator, gt: np.ndarray) -> np.ndarray:
    """A prediction made from a GT line: noisy, shifted, reversed, truncated or resampled."""
    pts = gt + rng.normal(0, rng.choice([0.02, 0.1, 0.3, 0.8]), gt.shape)
    kind = rng.integers(0, 4)
    if kind == 0:
        pts = pts[::-1]
    elif kind == 1 and len(pts) > 3:
        pts = pts[: max(2, int(len(pts) * rng.uniform(0.4, 0.95)))]
    elif kind == 2:  # resampled to a fixed number of points, as models output them
        seg = np.r_[0, np.cumsum(np.hypot(*np.diff(pts, axis=0).T))]
        t = np.linspace(0, seg[-1], int(rng.choice([10, 20, 30])))
        pts = np.c_[np.interp(t, seg, pts[:, 0]), np.interp(t, seg, pts[:, 1])]
    return pts + rng.normal(0, 0.3, 2)


def generate(n_frames: int, n_lines: int, seed: int) -> tuple[dict, dict]:
    """Challenge-format GT and submission dictionaries."""
    rng = np.random.default_rng(seed)
    frames, results = [], {}
    for f in range(n_frames):
        token = f"{315_900_000_000_000_000 + f}"
        labels = rng.integers(0, 3, n_lines)
        gts = [random_line(rng, int(lab)) for lab in labels]
        annotation = {c: [] for c in CLASSES}
        for lab, line in zip(labels, gts, strict=True):
            z = np.zeros((len(line), 1))
            annotation[CLASSES[lab]].append(np.round(np.c_[line, z, z + 1], 3).tolist())
        frames.append({"segment_id": f"seg{f // 100}", "timestamp": token,
                       "annotation": annotation})
        vectors, scores, pred_labels = [], [], []
        for lab, line in zip(labels, gts, strict=True):
            if rng.random() < 0.85:
                vectors.append(prediction_of(rng, line))
                scores.append(rng.uniform(0.3, 1.0))
                pred_labels.append(int(lab) if rng.random() < 0.95 else int(rng.integers(3)))
        for _ in range(n_lines - len(vectors)):  # false positives
            lab = int(rng.integers(0, 3))
            vectors.append(random_line(rng, lab))
            scores.append(rng.uniform(0.01, 0.6))
            pred_labels.append(lab)
        order = rng.permutation(len(vectors))
        results[token] = {"vectors": [np.round(vectors[i], 4).tolist() for i in order],
                          "scores": [round(float(scores[i]), 4) for i in order],
                          "labels": [pred_labels[i] for i in order]}
    gt = {}
    for frame in frames:
        gt.setdefault(frame["segment_id"], []).append(frame)
    return gt, {"meta": {"output_format": "vector"}, "results": results}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=1000)
    parser.add_argument("--lines", type=int, default=30)
    parser.add_argument("--seed", type=int, default=2023)
    args = parser.parse_args(argv)

    t0 = time.perf_counter()
    gt, pred = generate(args.frames, args.lines, args.seed)
    print(f"generated {args.frames} frames x {args.lines} GT lines "
          f"in {time.perf_counter() - t0:.1f} s")
    with tempfile.TemporaryDirectory() as tmp:
        gt_path, pred_path = Path(tmp) / "gt.json", Path(tmp) / "pred.json"
        gt_path.write_text(json.dumps(gt))
        pred_path.write_text(json.dumps(pred))
        timings = {}
        for mode, official, details in (("default", False, False), ("official", True, False),
                                        ("per-frame", False, True)):
            t0, c0 = time.perf_counter(), time.process_time()
            inp = read_challenge(gt_path, pred_path, official=official)
            t_read = time.perf_counter() - t0
            result = chamfer_ap(inp.gt_frames, inp.pred_frames, classes=inp.classes,
                                official=official, per_frame=details)
            timings[mode] = time.perf_counter() - t0
            cpu = time.process_time() - c0
            stats = result.stats
            print(f"{mode:9s}: {timings[mode]:6.2f} s wall, {cpu:6.2f} s CPU (reading "
                  f"{t_read:.2f} s); mAP {result.mean_ap:.4f}; "
                  f"{sum(stats['gt_lines'].values())} GT lines, "
                  f"{stats['pred_lines_evaluated']} predictions")
        t0 = time.perf_counter()
        cli = subprocess.run([sys.executable, "-m", "core.metrics", "chamfer-ap",
                              str(gt_path), str(pred_path)], capture_output=True, text=True,
                             check=False)
        timings["cli"] = time.perf_counter() - t0
        print(f"cli      : {timings['cli']:6.2f} s (exit {cli.returncode}, "
              f"python start-up and imports included)")
    worst = max(timings.values())
    verdict = "met" if worst < TARGET_SECONDS else "NOT met"
    print(f"target: under {TARGET_SECONDS:.0f} s for {args.frames} frames: {verdict} "
          f"(slowest run {worst:.2f} s; timings on a shared machine are indicative)")
    return 0 if cli.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
