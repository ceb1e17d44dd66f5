"""Graticule detection benchmark: quality (PDS), localisation error, speed and memory.

    .venv/bin/python -m benchmarks.bench_graticule [--count 20] [--size 10000] [--seed 2021]
        [--repeat 1] [--real DIR ...]

Generates ``--count`` sheets with ``core.synth`` (difficulty spread over the generator's
whole range; cached in bench-output/graticule/ and reused), then for each sheet, in a fresh
process: decodes the JPEG once (the reference time) and runs ``detect_graticule`` in two
ways: with the sheet's map-area mask (``NNN-INPUT-MASK.png``, as the command line uses it
when present), and with no mask file, the map area computed by ``core.maparea`` first (the
command line's default otherwise; its time included). The visible intersections are scored
with the MapSeg PDS (``core.metrics.point_detection.pds``). Prints one line per sheet and the
summary the targets are checked against: mean PDS, median localisation error, the worst
sheet, seconds per sheet (wall clock, and the CPU seconds of all threads: when other jobs
share the machine the wall time grows, the CPU time barely does) and the ratio to the JPEG
decoding time, peak memory.

Decoding and detection are timed in the same process, one after the other (``--repeat N``:
N times each, the fastest kept, which steadies the numbers on a busy machine); the ratio
is detection over decoding, wall clock, and the same over CPU seconds. The child process
keeps freed memory for reuse as the command line does (``core.memory``) and decodes the
sheet once untimed first, so that neither timed step pays for the first touch of its
memory and the other not.

Real sheets (``--real DIR``, default every folder of ``../shared/data`` holding one): each
``<prefix>INPUT.jpg`` with its ground truth ``<prefix>OUTPUT-GT.csv`` or ``GRATICULE-GT.csv``
beside it is detected in the same way, with the map area computed (the command line's default
without a mask file) and, when there is one, with its ``<prefix>INPUT-MASK.png``, and scored
with the PDS. ``--count 0`` scores the real sheets only.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent


def _generate(outdir: Path, count: int, size: int, seed: int) -> list[Path]:
    """Generate the sheets unless a previous run left them: sheet i depends on the seed and
    the size only, so a run of more sheets serves a run of fewer (``--count 3``)."""
    stamp = outdir / "params.json"
    params = {"count": count, "size": size, "seed": seed}
    old = json.loads(stamp.read_text()) if stamp.exists() else {}
    if not (old.get("size") == size and old.get("seed") == seed
            and old.get("count", 0) >= count):
        print(f"generating {count} sheets of {size} px in {outdir} ...", file=sys.stderr)
        outdir.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "core.synth", str(outdir), "--count", str(count),
                        "--size", str(size), "--seed", str(seed)], check=True, cwd=REPO)
        stamp.write_text(json.dumps(params))
    return sorted(outdir.glob("*-INPUT.jpg"))[:count]


def _timed(fn):
    """(result, wall seconds, CPU seconds of all threads) of ``fn()``."""
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t0, time.process_time() - c0


def _measure_one(image: str, mask: str | None, repeat: int = 1) -> dict:
    """Run in a child process: decode time, detection time, points, peak memory (the
    fastest of ``repeat`` runs of each). Without a mask file the map area is computed
    first, as the command line does (its time included). The process keeps freed memory
    for reuse, as the command line's does (``core.memory``)."""
    import cv2

    from core.graticule import detect_graticule
    from core.imageio import read_red_channel
    from core.maparea import map_area_mask
    from core.memory import reuse_freed_memory

    def detect():
        source, area = image, mask
        if area is None:
            source = read_red_channel(image)
            area = map_area_mask(source)
        return detect_graticule(source, area)

    reuse_freed_memory()
    cv2.imread(image, cv2.IMREAD_COLOR)   # untimed: decode and detection both reuse memory
    runs = []
    for _ in range(repeat):
        # the decoded image is dropped at once: it must not weigh on the detection
        _, decode_s, decode_cpu = _timed(lambda: cv2.imread(image, cv2.IMREAD_COLOR) is None)
        try:
            result, detect_s, cpu_s = _timed(detect)
            points, error = result.visible_only().points.tolist(), None
        except Exception as exc:  # a failure is a result to report
            points, error, detect_s, cpu_s = [], f"{type(exc).__name__}: {exc}", 0.0, 0.0
        runs.append((decode_s, decode_cpu, detect_s, cpu_s))
    decode_s, decode_cpu, detect_s, cpu_s = (min(v) for v in zip(*runs, strict=True))
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"decode_s": decode_s, "decode_cpu_s": decode_cpu, "detect_s": detect_s,
            "cpu_s": cpu_s, "points": points, "error": error, "peak_mb": peak_mb}


def _run_child(image: Path, mask: Path | None, repeat: int = 1) -> dict:
    cmd = [sys.executable, "-m", "benchmarks.bench_graticule", "--child", str(image),
           "--repeat", str(repeat)]
    if mask is not None:
        cmd += ["--mask", str(mask)]
    out = subprocess.run(cmd, check=True, cwd=REPO, capture_output=True, text=True)
    return json.loads(out.stdout)


def _score(gt: np.ndarray, pred: np.ndarray) -> tuple[float, list[float]]:
    from core.metrics.point_detection import pds

    score = pds(gt, pred).score
    errors = []
    for p in pred:
        d = np.hypot(*(gt - p).T)
        if len(d) and d.min() <= 50:
            errors.append(float(d.min()))
    return score, errors


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_graticule")
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--size", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=2021)
    ap.add_argument("--dir", type=Path, default=REPO / "bench-output" / "graticule")
    ap.add_argument("--repeat", type=int, default=1,
                    help="time decoding and detection this many times, keep the fastest")
    ap.add_argument("--real", type=Path, action="append",
                    help="folder of real sheets with ground truth (repeatable; default: "
                         "the folders of ../shared/data)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--mask", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(_measure_one(args.child, args.mask, args.repeat)))
        return 0

    from core.formats.mapseg_csv import read_points_csv

    sheets = _generate(args.dir, args.count, args.size, args.seed) if args.count > 0 else []
    if not sheets:
        _real_sheets(args.real, args.repeat)
        return 0
    rows = {"mask": [], "nomask": []}
    print(f"2 CPUs shared: load average {os.getloadavg()[0]:.1f} at the start")
    print(f"{'sheet':<6} {'diff':>5} {'orient':>7} | {'PDS mask':>8} {'PDS auto':>8} | "
          f"{'med err':>7} | {'decode s':>8} {'detect s':>8} {'ratio':>5} | {'decode cpu':>10} "
          f"{'detect cpu':>10} {'ratio':>5} | {'auto s':>6} {'cpu s':>5} | {'peak MB':>7}")
    for image in sheets:
        nnn = image.name.split("-")[0]
        gt = read_points_csv(image.with_name(f"{nnn}-OUTPUT-GT.csv"))
        params = json.loads(image.with_name(f"{nnn}.json").read_text())
        res = {}
        for mode, mask in (("mask", image.with_name(f"{nnn}-INPUT-MASK.png")),
                           ("nomask", None)):
            r = _run_child(image, mask, args.repeat)
            r["pds"], r["errors"] = _score(gt, np.array(r["points"]).reshape(-1, 2))
            r["sheet"] = nnn
            rows[mode].append(r)
            res[mode] = r
        m, n = res["mask"], res["nomask"]
        med = np.median(m["errors"]) if m["errors"] else float("nan")
        print(f"{nnn:<6} {params['difficulty']:>5.2f} {params['orientation']:>7} | "
              f"{m['pds']:>8.4f} {n['pds']:>8.4f} | {med:>7.2f} | {_times(m)} | "
              f"{n['detect_s']:>6.2f} {n['cpu_s']:>5.2f} | "
              f"{max(m['peak_mb'], n['peak_mb']):>7.0f}"
              + (f"  FAILED: {m['error']}" if m["error"] else ""))
    print()
    for mode, label in (("mask", "with the sheet's map-area mask"),
                        ("nomask", "with the map area computed by core.maparea")):
        rs = rows[mode]
        scores = np.array([r["pds"] for r in rs])
        errs = np.concatenate([r["errors"] for r in rs]) if rs else np.array([])
        worst = rs[int(np.argmin(scores))]
        times = np.array([r["detect_s"] for r in rs])
        cpu = np.array([r["cpu_s"] for r in rs])
        ratios = times / np.array([r["decode_s"] for r in rs])
        cpu_ratios = cpu / np.array([r["decode_cpu_s"] for r in rs])
        print(f"{label}: mean PDS {scores.mean():.4f} over {len(rs)} sheets "
              f"(target >= 0.97), median localisation error {np.median(errs):.2f} px, "
              f"worst sheet {worst['sheet']} PDS {worst['pds']:.4f}; "
              f"detection {times.mean():.2f} s mean, {times.max():.2f} s max per sheet "
              f"(target <= 5 s; CPU {cpu.mean():.2f} s mean, {cpu.max():.2f} s max), "
              f"{ratios.mean():.1f}x the JPEG decoding time (max {ratios.max():.1f}x; "
              f"CPU {cpu_ratios.mean():.1f}x, max {cpu_ratios.max():.1f}x); "
              f"peak memory {max(r['peak_mb'] for r in rs):.0f} MB (target < 2048)")
    real = _real_sheets(args.real, args.repeat)
    defaults = (args.count, args.size, args.seed, args.repeat, args.real) == (20, 10000, 2021,
                                                                              1, None)
    if defaults:
        _record(rows, real)
    else:
        print("\nnot recorded on docs/benchmarks.md: options other than the defaults")
    return 0


def _record(rows: dict[str, list[dict]], real: dict[str, float]) -> None:
    """This run's summary as a row of the bench-graticule table of docs/benchmarks.md."""
    from benchmarks.record import record

    def mean(mode: str, key: str) -> float:
        return float(np.mean([r[key] for r in rows[mode]]))

    mask = rows["mask"]
    errs = np.concatenate([r["errors"] for r in mask])
    worst = min(mask, key=lambda r: r["pds"])
    ratio = np.mean([r["detect_s"] / r["decode_s"] for r in mask])
    jacoubet = " / ".join(f"{v:.4f}" for k, v in sorted(real.items()) if "jacoubet" in k)
    crop = [v for k, v in sorted(real.items()) if "paris-1925" in k]
    page = record("graticule", {
        "sheets": str(len(mask)),
        "mean PDS, mask file": f"{mean('mask', 'pds'):.4f}",
        "mean PDS, map area computed": f"{mean('nomask', 'pds'):.4f}",
        "median error px": f"{np.median(errs):.2f}",
        "worst sheet": f"{worst['sheet']} ({worst['pds']:.4f})",
        "detection s (CPU s), mask file": f"{mean('mask', 'detect_s'):.2f} "
                                          f"({mean('mask', 'cpu_s'):.2f})",
        "x JPEG decoding": f"{ratio:.1f}",
        "peak MB": f"{max(r['peak_mb'] for m in rows.values() for r in m):.0f}",
        "Paris crop PDS, computed / file": " / ".join(f"{v:.4f}" for v in crop),
        "Jacoubet 020 / 021 / 049 PDS": jacoubet})
    print(f"\nrecorded on {page}")


def _times(r: dict) -> str:
    """Decode, detect, ratio; the same in CPU seconds (columns of the table)."""
    return (f"{r['decode_s']:>8.2f} {r['detect_s']:>8.2f} "
            f"{r['detect_s'] / r['decode_s']:>5.2f} | {r['decode_cpu_s']:>10.2f} "
            f"{r['cpu_s']:>10.2f} {r['cpu_s'] / r['decode_cpu_s']:>5.2f}")


def _real_inputs(folders: list[Path] | None) -> list[tuple[Path, Path | None, Path]]:
    """(image, mask or None, ground truth) of every real sheet with ground truth: each sheet
    once with the map area computed (mask None), and once more with its mask file if any."""
    if folders is None:
        shared = REPO.parent / "shared" / "data"
        folders = sorted(p for p in shared.iterdir() if p.is_dir()) if shared.is_dir() else []
    out = []
    for folder in folders:
        for image in sorted(folder.glob("*INPUT.jpg")):
            prefix = image.name[:-len("INPUT.jpg")]
            gt = next((g for g in (folder / f"{prefix}OUTPUT-GT.csv",
                                   folder / "GRATICULE-GT.csv") if g.is_file()), None)
            if gt is not None:
                out.append((image, None, gt))
                mask = folder / f"{prefix}INPUT-MASK.png"
                if mask.is_file():
                    out.append((image, mask, gt))
    return out


def _real_sheets(folders: list[Path] | None, repeat: int) -> dict[str, float]:
    """Score the real sheets; returns ``{"folder/name mask": PDS}`` (mask: auto or file)."""
    from core.formats.mapseg_csv import read_points_csv

    sheets = _real_inputs(folders)
    scores: dict[str, float] = {}
    if not sheets:
        return scores
    print(f"\nreal sheets (the map area computed, its time included, and with the mask file "
          f"when there is one):"
          f"\n{'sheet':<40} {'mask':>5} {'PDS':>7} | {'decode s':>8} {'detect s':>8} "
          f"{'ratio':>5} | {'decode cpu':>10} {'detect cpu':>10} {'ratio':>5}")
    for image, mask, gt in sheets:
        r = _run_child(image, mask, repeat)
        score, _ = _score(read_points_csv(gt), np.array(r["points"]).reshape(-1, 2))
        name = f"{image.parent.name}/{image.name}"
        print(f"{name:<40} {'file' if mask else 'auto':>5} {score:>7.4f} | {_times(r)}"
              + (f"  FAILED: {r['error']}" if r["error"] else ""))
        scores[f"{name} {'file' if mask else 'auto'}"] = float(score)
    return scores


if __name__ == "__main__":
    sys.exit(main())
