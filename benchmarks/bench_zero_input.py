"""Zero-input georeferencing as a user runs it: ``python -m core.georef SHEET --crs CRS``.

Run: ``make bench-zero-input`` (``.venv/bin/python -m benchmarks.bench_zero_input [--set
a|b|all] [--runtime both|venv|qgis] [--seed-base N] [--sizes 4000,6000,10000]``).

Every run is the user's command and nothing else (no ``--spacing``, no anchor, no mask),
as a separate process, in the venv (``.venv/bin/python``) and/or in the plugin's runtime
(``/usr/bin/python3 -s -E``: QGIS's Python with Debian's packages, OpenCV 4.6). Each run is
**right** (exit 0, the fitted transform within a fifth of a grid cell of the truth at every
true crossing), **refused** (exit 2 with an ``error:`` line) or **WRONG** (exit 0 and off:
the outcome that must never happen).

Sets:

(a) the three real Jacoubet sheets (``../shared/data/jacoubet-1836``), each as it is and
    turned 90/180/270 degrees, tilted 2 degrees, rescaled to 0.7x and 1.4x, grey at JPEG
    quality 40, cut at one frame edge (the labels of that side gone), and with a stain over
    one label: 30 runs; the truth is the hand-placed crossings moved the same way.
(b) generated labelled sheets (``core.synth``) of every label style at 4000, 6000 and 10000
    px, axis-aligned, tilted (3-25 degrees) and turned a quarter in turn, difficulty 0-0.7,
    the two ``plain`` styles (PT Serif, PT Sans, Caladea; labels upright on the sheet,
    grids tilted up to 20 degrees or turned a quarter against the frame) held out: nothing
    is trained or tuned on them. ``--seed-base`` draws another batch (tune on one, confirm
    on another).

Sheets are made once and kept in ``bench-output/zero-input/`` (``--fresh`` remakes them).
Per set it prints right / refused / WRONG and the reading time of the labels (the report's
``labelling.seconds``); with ``--runtime both``, how many runs gave the same labelling in
both runtimes.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
JACOUBET = REPO.parent / "shared" / "data" / "jacoubet-1836"
CACHE = REPO / "bench-output" / "zero-input"
RUNTIMES = {"venv": [str(REPO / ".venv" / "bin" / "python")],
            "qgis": ["/usr/bin/python3", "-s", "-E"]}
#: A run is right when every true crossing lands within this share of a grid cell.
RIGHT_CELLS = 0.2
#: Label styles of set (b); the last two are held out (never trained or tuned on).
STYLES = ("full", "grouped", "thousands", "km", "raised", "unsigned", "oldstyle", "inside",
          "plain", "plain-km")
HELDOUT = ("plain", "plain-km")
ORIENTATIONS = ("axis", "tilted", "rot90")
LAMBERT = "EPSG:2154"


@dataclass
class Case:
    """One run: a sheet file, the CRS given, and the truth (pixel corners -> grid)."""

    set: str
    name: str
    path: Path
    crs: str
    pixel: np.ndarray          # (N, 2) true crossings, GDAL corner convention
    grid: np.ndarray           # (N, 2) their grid coordinates
    cell: float                # grid spacing, grid units
    tags: dict = field(default_factory=dict)


# ---------------------------------------------------------------- set (a): real sheets


def _read_points(path: Path) -> tuple[np.ndarray, np.ndarray]:
    rows = [line.split(",") for line in path.read_text().splitlines()
            if line and not line.startswith(("#", "mapX"))]
    a = np.array([[float(v) for v in r[:4]] for r in rows])
    return a[:, 2:4] * [1, -1], a[:, 0:2]


def _affine_warp(img: np.ndarray, m: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    import cv2

    return cv2.warpAffine(img, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def _moved(m: np.ndarray, corner_xy: np.ndarray) -> np.ndarray:
    """Corner-convention points through a 2x3 map of pixel centres (OpenCV's)."""
    c = corner_xy - 0.5
    return c @ m[:, :2].T + m[:, 2] + 0.5


def _label_spot(pixel: np.ndarray, grid: np.ndarray, cell_px: float, rng) -> np.ndarray:
    """Where one printed label stands: beyond the outermost crossing of a random line."""
    fam = int(rng.integers(2))
    values = np.unique(grid[:, fam])
    v = values[int(rng.integers(len(values)))]
    on = pixel[grid[:, fam] == v]
    centre = pixel.mean(axis=0)
    along = on[np.argmax(np.hypot(*(on - centre).T))]
    out = (along - centre) / np.hypot(*(along - centre))
    axis = np.array([0.0, 1.0]) if fam == 0 else np.array([1.0, 0.0])
    out = axis * np.sign(out @ axis)
    return along + out * 0.04 * cell_px


def real_cases(fresh: bool) -> list[Case]:
    import cv2

    out = CACHE / "a"
    out.mkdir(parents=True, exist_ok=True)
    crs = (JACOUBET / "CRS.proj").read_text().strip()
    cases = []
    for n, sheet in enumerate(("020", "021", "049")):
        src = JACOUBET / f"{sheet}-INPUT.jpg"
        pixel, grid = _read_points(JACOUBET / f"{sheet}-GT.points")
        cell = 250.0
        rng = np.random.default_rng(int(sheet))
        img = None
        h = w = 0
        variants = ["as-is", "rot90", "rot180", "rot270", "tilt2", "scale0.7", "scale1.4",
                    "grey-q40", "cut", "stain"]
        for v in variants:
            path = out / f"j{sheet}-{v}.jpg"
            if v == "as-is":
                if fresh or not path.exists():
                    shutil.copyfile(src, path)
                cases.append(Case("a", f"{sheet} {v}", path, crs, pixel, grid, cell))
                continue
            if img is None:
                img = cv2.imread(str(src), cv2.IMREAD_COLOR)
                h, w = img.shape[:2]
            cell_px = float(np.median(np.hypot(*np.diff(pixel[np.argsort(grid[:, 1])], axis=0).T)))
            q = 90
            if v.startswith("rot"):
                turns = {"rot90": 1, "rot180": 2, "rot270": 3}[v]
                new = np.ascontiguousarray(np.rot90(img, turns))
                p = pixel.copy()
                for _ in range(turns):            # np.rot90: (x, y) -> (y, W - x)
                    p = np.column_stack([p[:, 1], (w if _ % 2 == 0 else h) - p[:, 0]])
                moved = p
            elif v == "tilt2":
                ang = 2.0 if n % 2 == 0 else -2.0
                c, s = np.cos(np.radians(ang)), np.sin(np.radians(ang))
                nw, nh = int(w * c + h * abs(s)) + 2, int(h * c + w * abs(s)) + 2
                m = cv2.getRotationMatrix2D(((w - 1) / 2, (h - 1) / 2), ang, 1.0)
                m[:, 2] += [(nw - w) / 2, (nh - h) / 2]
                new = _affine_warp(img, m, (nw, nh))
                moved = _moved(m, pixel)
            elif v.startswith("scale"):
                k = float(v[5:])
                new = cv2.resize(img, (round(w * k), round(h * k)),
                                 interpolation=cv2.INTER_AREA if k < 1 else cv2.INTER_CUBIC)
                moved = pixel * [new.shape[1] / w, new.shape[0] / h]
            elif v == "grey-q40":
                new, moved, q = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), pixel, 40
            elif v == "cut":
                side = n % 4                      # left, top, right (, bottom)
                margin = 0.012 * cell_px
                if side == 0:
                    x0 = int(pixel[:, 0].min() - margin)
                    new, moved = img[:, x0:], pixel - [x0, 0]
                elif side == 1:
                    y0 = int(pixel[:, 1].min() - margin)
                    new, moved = img[y0:], pixel - [0, y0]
                else:
                    x1 = int(pixel[:, 0].max() + margin)
                    new, moved = img[:, :x1], pixel
            else:                                 # a brown stain over one label
                new, moved = img.copy(), pixel
                spot = _label_spot(pixel, grid, cell_px, rng)
                layer = np.zeros(new.shape[:2], np.uint8)
                axes = (int(0.07 * cell_px), int(0.045 * cell_px))
                cv2.ellipse(layer, (int(spot[0]), int(spot[1])), axes, float(rng.uniform(0, 180)),
                            0, 360, 255, -1)
                layer = cv2.GaussianBlur(layer, (0, 0), 0.01 * cell_px)
                alpha = (layer.astype(np.float32) / 255.0 * 0.8)[:, :, None]
                stain = np.array([40, 70, 110], np.float32)
                new = (new * (1 - alpha) + stain * alpha).astype(np.uint8)
            if fresh or not path.exists():
                cv2.imwrite(str(path), new, [cv2.IMWRITE_JPEG_QUALITY, q])
            cases.append(Case("a", f"{sheet} {v}", path, crs, moved, grid, cell))
    return cases


# ------------------------------------------------------------ set (b): generated sheets


def _centre(style: str, rng) -> tuple[dict, str]:
    """Grid centre and the CRS given: Lambert-93 values (EPSG:2154, an area of use), or
    values west of a meridian printed without sign in a local grid (Jacoubet's CRS)."""
    if style in ("unsigned", "oldstyle"):
        crs = (JACOUBET / "CRS.proj").read_text().strip()
        return {"centre_easting": float(rng.uniform(-9000, -4000)),
                "centre_northing": float(rng.uniform(4000, 9000))}, crs
    return {"centre_easting": float(rng.uniform(300000, 1000000)),
            "centre_northing": float(rng.uniform(6300000, 7000000))}, LAMBERT


def generated_cases(seed_base: int, sizes: list[int], styles: tuple[str, ...],
                    fresh: bool) -> list[Case]:
    from core.synth import generate_sheet

    out = CACHE / "b"
    out.mkdir(parents=True, exist_ok=True)
    cases = []
    k = 0
    for style in styles:
        for size in sizes:
            seed = 5000 + seed_base + k
            orientation = ORIENTATIONS[k % 3]
            k += 1
            rng = np.random.default_rng(seed)
            centre, crs = _centre(style, rng)
            spacing_m = 1000.0 if style not in ("unsigned", "oldstyle") else 250.0
            extra = {}
            if style in HELDOUT:
                # the other generator's way: the frame upright, the grid tilted against it
                # up to 20 degrees or turned a quarter, the labels upright on the sheet
                orientation = "axis"
                turn = 90.0 * float(rng.choice([0.0, 1.0, -1.0]))
                tilt = float(rng.uniform(-20, 20)) if turn == 0 else float(rng.uniform(-4, 4))
                extra["tilt_deg"] = float(np.clip(turn + tilt, -90, 90))
            name = f"{style}-{size}-{orientation}-{seed}"
            path = out / f"{name}.jpg"
            truth = out / f"{name}.json"
            if fresh or not (path.exists() and truth.exists()):
                sheet = generate_sheet(seed, size, difficulty=0.7 * ((k * 0.618) % 1.0),
                                       spacing_px=2363.0 * size / 10000,
                                       jpeg_roundtrip=True, content_scale=size / 10000,
                                       margin_labels=style, orientation=orientation,
                                       grid_spacing_m=spacing_m, **centre, **extra)
                path.write_bytes(sheet.jpeg)
                truth.write_text(json.dumps({"pixel": (sheet.intersections + 0.5).tolist(),
                                             "grid": np.asarray(sheet.grid_xy).tolist(),
                                             "cell": spacing_m}))
            t = json.loads(truth.read_text())
            cases.append(Case("b", name, path, crs, np.array(t["pixel"]), np.array(t["grid"]),
                              float(t["cell"]), {"style": style, "size": size,
                                                 "heldout": style in HELDOUT}))
    return cases


# -------------------------------------------------------------------------- running


def run_case(case: Case, runtime: str, workdir: Path) -> dict:
    """Run the user's command on one case; its outcome and what it said."""
    outdir = workdir / f"{case.set}-{case.path.stem}-{runtime}"
    shutil.rmtree(outdir, ignore_errors=True)
    cmd = [*RUNTIMES[runtime], "-m", "core.georef", str(case.path), "--crs", case.crs,
           "-o", str(outdir)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    t = time.perf_counter()
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, env=env,
                          timeout=600)
    row = {"set": case.set, "name": case.name, "runtime": runtime, **case.tags,
           "exit": proc.returncode, "wall": time.perf_counter() - t}
    err = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    if proc.returncode != 0:
        row.update(outcome="refused" if proc.returncode == 2 and err else "crash",
                   message=(err[0] if err else proc.stderr.strip()[-300:]))
        return row
    report = json.loads(next(outdir.glob("*.report.json")).read_text())
    gt = report["transform"]["geotransform"]
    if gt is None:
        row.update(outcome="crash", message="no geotransform in the report")
        return row
    x, y = case.pixel[:, 0], case.pixel[:, 1]
    mapped = np.column_stack([gt[0] + gt[1] * x + gt[2] * y, gt[3] + gt[4] * x + gt[5] * y])
    error = float(np.hypot(*(mapped - case.grid).T).max())
    lab = report.get("labelling") or {}
    row.update(outcome="right" if error <= RIGHT_CELLS * case.cell else "WRONG",
               error_cells=error / case.cell, seconds=lab.get("seconds"),
               certainty=(lab.get("certainty") or {}).get("margin"),
               labelling={k: lab.get(k) for k in ("orientation", "origin", "spacing")},
               used=sum(1 for r in lab.get("labels", []) if r.get("used")),
               warnings=report.get("warnings", []))
    shutil.rmtree(outdir, ignore_errors=True)
    return row


def _counts(rows: list[dict]) -> str:
    """``right/refused/WRONG of N`` of some rows."""
    n = len(rows)
    c = {k: sum(r["outcome"] == k for r in rows) for k in ("right", "refused", "WRONG")}
    crash = n - sum(c.values())
    return (f"{c['right']}/{c['refused']}/{c['WRONG']} of {n}"
            + (f" ({crash} crashed)" if crash else ""))


def _record(rows: list[dict], parity: str) -> None:
    """The run's row on the Benchmarks page (a default run only): the venv's outcomes and
    ``parity``, how many runs QGIS's runtime gave the same outcome and labelling ("-" when
    it was not run)."""
    from benchmarks.record import record

    rows = [r for r in rows if r["runtime"] == "venv"]
    secs = [r["seconds"] for r in rows if r.get("seconds") is not None]
    a = [r for r in rows if r["set"] == "a"]
    b = [r for r in rows if r["set"] == "b"]
    record("zero-input", {
        "(a) Jacoubet x 10 scan changes: right/refused/WRONG": _counts(a),
        "(b) generated, other styles": _counts([r for r in b if not r.get("heldout")]),
        "(b) generated, held-out styles": _counts([r for r in b if r.get("heldout")]),
        "reading s, median / max": (f"{np.median(secs):.2f} / {max(secs):.2f}"
                                    if secs else "-"),
        "QGIS's runtime: same outcome and labelling": parity})


def _summary(rows: list[dict], title: str) -> None:
    if not rows:
        return
    n = len(rows)
    right = sum(r["outcome"] == "right" for r in rows)
    refused = sum(r["outcome"] == "refused" for r in rows)
    wrong = sum(r["outcome"] == "WRONG" for r in rows)
    crash = n - right - refused - wrong
    secs = [r["seconds"] for r in rows if r.get("seconds") is not None]
    walls = [r["wall"] for r in rows]
    timing = (f"reading {np.median(secs):.2f} s median, {max(secs):.2f} s max"
              if secs else "reading time not reported")
    print(f"{title}: {n} runs: right {right} ({100 * right / n:.0f} %), refused {refused}, "
          f"WRONG {wrong}" + (f", crashed {crash}" if crash else "")
          + f"; {timing}; command {np.median(walls):.1f} s median", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", choices=("a", "b", "all"), default="all")
    ap.add_argument("--runtime", choices=("venv", "qgis", "both"), default="both")
    ap.add_argument("--seed-base", type=int, default=0)
    ap.add_argument("--sizes", default="4000,6000,10000")
    ap.add_argument("--styles", default=",".join(STYLES))
    ap.add_argument("--only", default="", help="run only cases whose name contains this")
    ap.add_argument("--fresh", action="store_true", help="remake the sheets")
    ap.add_argument("--json", type=Path, help="write every row here")
    args = ap.parse_args(argv)
    runtimes = ["venv", "qgis"] if args.runtime == "both" else [args.runtime]
    cases = []
    if args.set in ("a", "all"):
        cases += real_cases(args.fresh)
    if args.set in ("b", "all"):
        cases += generated_cases(args.seed_base, [int(s) for s in args.sizes.split(",")],
                                 tuple(args.styles.split(",")), args.fresh)
    cases = [c for c in cases if args.only in c.name]
    work = CACHE / "runs"
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    for case in cases:
        for rt in runtimes:
            row = run_case(case, rt, work)
            rows.append(row)
            extra = (f"error {row['error_cells']:.3f} cells, {row['used']} labels used, "
                     f"certainty {row['certainty']}" if "error_cells" in row
                     else row.get("message", "")[:200])
            secs = f"{row['seconds']:.2f} s" if row.get("seconds") is not None else "-"
            print(f"  {case.set} {rt:4s} {case.name:34s} {row['outcome']:7s} reading {secs:7s} "
                  f"{extra}", flush=True)
    print()
    for rt in runtimes:
        for s in ("a", "b"):
            sel = [r for r in rows if r["set"] == s and r["runtime"] == rt]
            _summary(sel, f"set ({s}) {rt}")
            if s == "b":
                _summary([r for r in sel if r.get("heldout")], f"set (b) {rt} held-out styles")
                _summary([r for r in sel if not r.get("heldout")],
                         f"set (b) {rt} other styles")
    parity = "-"
    if len(runtimes) == 2:
        same = total = 0
        for case in cases:
            a, b = (next(r for r in rows if r["name"] == case.name and r["runtime"] == rt
                         and r["set"] == case.set) for rt in runtimes)
            total += 1
            same += (a["outcome"] == b["outcome"]
                     and a.get("labelling") == b.get("labelling"))
        print(f"same outcome and labelling in both runtimes: {same} of {total}")
        parity = f"{same} of {total}"
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, default=str))
    default = (args.set == "all" and args.runtime == "both" and args.seed_base == 0
               and args.sizes == "4000,6000,10000" and args.styles == ",".join(STYLES)
               and not args.only)
    if default:
        _record(rows, parity)
    return 0


if __name__ == "__main__":
    sys.exit(main())
