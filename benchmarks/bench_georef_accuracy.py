"""Georeferencing accuracy on many generated sheets, detection included.

Acceptance (issue 5): on generated sheets with known truth, the output geotransform puts every
true intersection within 1.5x the residual of the best affine fit to the true points, and the
grid is never shifted by a whole cell or mirrored.

Run: ``.venv/bin/python -m benchmarks.bench_georef_accuracy [--dir bench-output/graticule]``
(the 20 sheets of ``benchmarks.bench_graticule``, generated if missing). For each sheet: its
graticule is detected with its map-area mask, it is georeferenced (affine, EPSG:2154) from the
true grid coordinates of one intersection (two for a sheet turned by 90 degrees), and the
output geotransform is evaluated at every true intersection (from ``NNN.points``).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent


def _true_nodes(image: Path) -> tuple[np.ndarray, np.ndarray, int]:
    """(raster xy, grid xy, number visible) of every true grid node of a generated sheet:
    first the visible ones (``NNN.points``), then the hidden ones inside the image."""
    from core.formats.qgis_points import PIXEL_CENTRE, read_points_file
    from core.synth.geometry import SheetGeometry

    nnn = image.name.split("-")[0]
    listed = read_points_file(image.with_name(f"{nnn}.points"))   # raster coordinates
    meta = json.loads(image.with_name(f"{nnn}.json").read_text())
    hidden = np.asarray(meta.get("hidden_intersections", []), float).reshape(-1, 2)
    geometry = SheetGeometry.from_dict(meta["geometry"])
    pix = geometry.grid_to_pixel(hidden[:, 0], hidden[:, 1]).reshape(-1, 2) + PIXEL_CENTRE
    inside = (pix >= 0).all(axis=1) & (pix[:, 0] < meta["width"]) & (pix[:, 1] < meta["height"])
    return (np.vstack([listed.pixel_xy, pix[inside]]),
            np.vstack([listed.map_xy, hidden[inside]]), len(listed))


def _evaluate(image: Path, workdir: Path) -> dict:
    from osgeo import gdal

    from core.georef import fit_transform, georeference
    from core.georef.crs import parse_crs, transform_points

    nnn = image.name.split("-")[0]
    pixel_xy, grid_xy, n_visible = _true_nodes(image)
    l93 = transform_points(grid_xy, parse_crs("paris-atlas"), parse_crs("EPSG:2154"))
    picks = [0, n_visible - 1]
    anchors = [f"{pixel_xy[i][0]:.1f},{pixel_xy[i][1]:.1f}="
               f"{grid_xy[i][0]:g},{grid_xy[i][1]:g}" for i in picks]
    res = georeference(image, "EPSG:2154", grid_crs="paris-atlas", anchors=anchors,
                       gcps=False, outdir=workdir / nnn,
                       mask=image.with_name(f"{nnn}-INPUT-MASK.png"))
    gt = gdal.Open(str(res.outputs["tif"])).GetGeoTransform()
    p = pixel_xy
    ours = np.column_stack([gt[0] + gt[1] * p[:, 0] + gt[2] * p[:, 1],
                            gt[3] + gt[4] * p[:, 0] + gt[5] * p[:, 1]])
    error = np.hypot(*(ours - l93).T)
    best = np.hypot(*fit_transform(pixel_xy, l93, "affine").residuals_map.T)
    best_visible = np.hypot(*fit_transform(pixel_xy[:n_visible], l93[:n_visible],
                                           "affine").residuals_map.T)
    # every used GCP named with its true node: nearest true node has the same grid xy
    named_right = True
    for q, g in zip(res.pixel_xy[res.inliers], res.grid_xy[res.inliers], strict=True):
        j = int(np.argmin(np.hypot(*(pixel_xy - q).T)))
        if np.hypot(*(pixel_xy[j] - q)) < 20 and not np.allclose(grid_xy[j], g):
            named_right = False
    shutil.rmtree(workdir / nnn, ignore_errors=True)
    return {"sheet": nnn, "nodes": len(pixel_xy), "visible": n_visible,
            "ours": float(error.max()), "best": float(best.max()),
            "ratio": float(error.max() / best.max()),
            "ratio_visible": float(error[:n_visible].max() / best_visible.max()),
            "named_right": named_right, "mirrored": res.labelling.mirrored,
            "used": int(res.inliers.sum()), "rejected": len(res.rejected),
            "rmse_px": res.rmse_px}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_georef_accuracy")
    ap.add_argument("--dir", type=Path, default=REPO / "bench-output" / "graticule")
    args = ap.parse_args(argv)
    sheets = sorted(args.dir.glob("*-INPUT.jpg"))
    if not sheets:
        from benchmarks.bench_graticule import _generate

        sheets = _generate(args.dir, 20, 10000, 2021)
    print(f"{'sheet':<6} {'nodes':>5} {'ours m':>7} {'best m':>7} {'ratio':>6} "
          f"{'visible':>8} {'used':>5} {'rej':>4} {'RMSE px':>8}  named right / not mirrored")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for image in sheets:
            try:
                r = _evaluate(image, Path(tmp))
            except Exception as exc:  # a failure is a result to report
                print(f"{image.name.split('-')[0]:<6} FAILED: {type(exc).__name__}: {exc}")
                continue
            rows.append(r)
            print(f"{r['sheet']:<6} {r['nodes']:>5} {r['ours']:>7.3f} {r['best']:>7.3f} "
                  f"{r['ratio']:>6.2f} {r['ratio_visible']:>8.2f} {r['used']:>5} "
                  f"{r['rejected']:>4} {r['rmse_px']:>8.2f}  "
                  f"{r['named_right']} / {not r['mirrored']}")
    ratios = np.array([r["ratio"] for r in rows])
    visible = np.array([r["ratio_visible"] for r in rows])
    print(f"\n{len(rows)} of {len(sheets)} sheets georeferenced; ratio of the largest error at "
          f"the true grid nodes to the best affine fit's: median {np.median(ratios):.2f}, "
          f"max {ratios.max():.2f}; within 1.5x on {int((ratios <= 1.5).sum())} sheets "
          f"(target: all); visible intersections only: median {np.median(visible):.2f}, "
          f"max {visible.max():.2f}, within 1.5x on {int((visible <= 1.5).sum())} sheets; "
          f"every GCP named with its true node on "
          f"{sum(r['named_right'] for r in rows)} sheets, none mirrored: "
          f"{not any(r['mirrored'] for r in rows)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
