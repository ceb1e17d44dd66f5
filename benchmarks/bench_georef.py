"""Georeferencing speed and accuracy on a generated 10000 x 10000 sheet.

Targets (issue 5): detection plus affine georeferencing of a 10000 x 10000 sheet in under
10 s; a projective or thin-plate-spline warp in under 60 s using all cores. Accuracy: the
output geotransform puts every true intersection within 1.5x the largest residual of the
best affine fit to the true points.

Run: ``.venv/bin/python -m benchmarks.bench_georef [--size 10000] [--seed 11]
[--kinds affine,projective,tps] [--keep]``. The sheet is made by core.synth (cached in
bench-output/georef/). When ``core.graticule.detect_graticule`` is not available, the true
intersections plus 0.7 px noise stand in for detection and the line says so.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "bench-output" / "georef"


@dataclass
class _Truth:
    """What the benchmark needs of a generated sheet (rebuilt from its files when cached)."""

    intersections: np.ndarray
    grid_xy: np.ndarray
    grid_spacing_m: float
    grid_crs: str
    geometry: object
    size: tuple[int, int]
    orientation: str

    def grid_to_pixel(self, e, n):
        return self.geometry.grid_to_pixel(e, n)


def _sheet(size: int, seed: int) -> tuple[_Truth, Path]:
    from core.formats.qgis_points import read_points_file
    from core.synth import SheetGeometry, generate_sheet, sheet_paths, write_sheet

    name = f"s{seed}-{size}"
    paths = sheet_paths(OUT, name)
    t = time.perf_counter()
    if not all(p.is_file() for p in paths.values()):
        write_sheet(generate_sheet(seed, size, difficulty=0.3), OUT, name)
        how = f"made in {time.perf_counter() - t:.1f} s"
    else:
        how = "cached"
    params = json.loads(paths["json"].read_text(encoding="utf-8"))
    gcps = read_points_file(paths["points"])
    truth = _Truth(gcps.pixel_xy, gcps.map_xy, float(params["grid_spacing_m"]),
                   str(params["grid_crs"]), SheetGeometry.from_dict(params["geometry"]),
                   (int(params["width"]), int(params["height"])), str(params["orientation"]))
    print(f"sheet: {size} x {size}, seed {seed}, {len(truth.intersections)} intersections, "
          f"{truth.orientation}, {how} -> {paths['image']}")
    return truth, paths["image"]



def _detect(sheet, image: Path, mask: Path):
    from core.georef.grid_labels import graticule_from_points

    try:
        from core.graticule import detect_graticule
    except ImportError:
        detect_graticule = None
    t, c = time.perf_counter(), _cpu()
    if detect_graticule is not None:
        result = detect_graticule(str(image), str(mask))
        how = "core.graticule.detect_graticule"
    else:
        rng = np.random.default_rng(0)
        noisy = sheet.intersections + rng.normal(0, 0.7, sheet.intersections.shape)
        result = graticule_from_points(noisy, sheet.grid_index(), sheet.size)
        how = "NOT AVAILABLE: true intersections + 0.7 px noise stand in"
    dt = time.perf_counter() - t
    print(f"detection: {dt:.2f} s ({_cpu() - c:.1f} CPU s), {len(result)} intersections "
          f"({how})")
    return result, dt


def _accuracy(sheet, res) -> str:
    from osgeo import gdal

    from core.georef import fit_transform
    from core.georef.crs import parse_crs, transform_points
    from core.georef.grid_labels import CENTRE_TO_CORNER

    truth = transform_points(sheet.grid_xy, parse_crs(sheet.grid_crs), parse_crs("EPSG:2154"))
    p = sheet.intersections + CENTRE_TO_CORNER   # raster coordinates, as the geotransform's
    best = fit_transform(p, truth, "affine")
    best_max = float(np.hypot(*best.residuals_map.T).max())
    gt = gdal.Open(str(res.outputs["tif"])).GetGeoTransform()
    ours = np.column_stack([gt[0] + gt[1] * p[:, 0] + gt[2] * p[:, 1],
                            gt[3] + gt[4] * p[:, 0] + gt[5] * p[:, 1]])
    ours_max = float(np.hypot(*(ours - truth).T).max())
    ok = "OK" if ours_max <= 1.5 * best_max else "NOT MET"
    return (f"accuracy: max error of the output geotransform at the true intersections "
            f"{ours_max:.3f} m vs best affine {best_max:.3f} m (ratio {ours_max / best_max:.2f}, "
            f"target <= 1.5): {ok}")


def _cpu() -> float:
    """CPU seconds used so far by this process, all threads (user + system)."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_georef")
    ap.add_argument("--size", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--kinds", default="affine,projective,tps")
    ap.add_argument("--keep", action="store_true", help="keep the outputs in bench-output")
    args = ap.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} "
          "(timings are indicative when others share the machine)")
    t = time.perf_counter()
    from core.georef import georeference
    import_s = time.perf_counter() - t
    print(f"import core.georef: {import_s:.2f} s")
    proc = subprocess.run([sys.executable, "-c", "import time; t=time.perf_counter(); "
                           "import core.georef.pipeline, core.georef.report, "
                           "matplotlib.figure; print(time.perf_counter()-t)"],
                          cwd=REPO, capture_output=True, text=True, check=False)
    if proc.returncode == 0:
        print(f"cold import of georef + matplotlib in a fresh process: "
              f"{float(proc.stdout):.2f} s")

    sheet, image = _sheet(args.size, args.seed)
    mask = image.with_name(image.name.replace("-INPUT.jpg", "-INPUT-MASK.png"))
    graticule, det_s = _detect(sheet, image, mask)
    anchor = f"{sheet.intersections[0][0]:.1f},{sheet.intersections[0][1]:.1f}=" \
             f"{sheet.grid_xy[0][0]:g},{sheet.grid_xy[0][1]:g}"
    for kind in [k.strip() for k in args.kinds.split(",") if k.strip()]:
        outdir = OUT / f"out-{kind}"
        t, c = time.perf_counter(), _cpu()
        res = georeference(image, "EPSG:2154", grid_crs="paris-atlas", anchors=[anchor],
                           gcps=False, transform=kind, graticule=graticule, outdir=outdir)
        dt, cpu = time.perf_counter() - t, _cpu() - c
        size_mb = res.outputs["tif"].stat().st_size / 1e6
        line = (f"{kind}: georeference {dt:.2f} s ({cpu:.1f} CPU s; GeoTIFF {size_mb:.0f} MB), "
                f"RMSE {res.rmse_px:.2f} px = {res.rmse_map:.3f} m, rejected {len(res.rejected)}")
        if kind == "affine":
            total = det_s + dt
            line += (f"; detection + affine {total:.2f} s (target < 10 s: "
                     f"{'OK' if total < 10 else 'NOT MET'})")
        else:
            line += f" (target < 60 s: {'OK' if dt < 60 else 'NOT MET'})"
        print(line)
        if kind == "affine":
            print(_accuracy(sheet, res))
        if not args.keep:
            shutil.rmtree(outdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
