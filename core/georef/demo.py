"""The main job end to end on a generated sheet: ``python -m core.georef.demo [OUTDIR]``.

Makes a sheet with core.synth (the Paris atlas grid, known truth), detects its graticule,
georeferences it into Lambert-93 (EPSG:2154) from one true anchor, then prints the output
paths, the RMSE and how far the result is from the truth.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..cli import number, run_cli
from ..outputs import check_outputs
from .crs import parse_crs, transform_points
from .grid_labels import CENTRE_TO_CORNER
from .pipeline import GeorefResult, georeference
from .transforms import fit_transform

DEMO_SEED, DEMO_SIZE, DEMO_SPACING_PX = 1, 4000, 900.0


@dataclass
class DemoResult:
    """The georeferencing result and its errors at the true intersections, metres."""

    result: GeorefResult
    anchor: str
    true_count: int
    max_error_m: float
    best_affine_max_error_m: float


def run_demo(outdir: str | Path, *, seed: int = DEMO_SEED, size: int = DEMO_SIZE,
             spacing_px: float = DEMO_SPACING_PX, difficulty: float = 0.2,
             orientation: str = "tilted") -> DemoResult:
    """Generate, write, detect and georeference one sheet; compare with its truth."""
    from ..synth import generate_sheet, write_sheet

    out = Path(outdir)
    sheet = generate_sheet(seed, size, spacing_px=spacing_px, difficulty=difficulty,
                           orientation=orientation)
    paths = write_sheet(sheet, out, f"{seed:03d}")
    k = len(sheet.intersections) // 2  # the true anchor: a node near the middle of the list
    (x, y), (e, n) = sheet.intersections[k], sheet.grid_xy[k]
    anchor = f"{x:.0f},{y:.0f}={e:g},{n:g}"
    anchors = [anchor]
    if sheet.geometry.quarter_turns:  # a turned scan needs a second anchor
        (x2, y2), (e2, n2) = sheet.intersections[0], sheet.grid_xy[0]
        anchors.append(f"{x2:.0f},{y2:.0f}={e2:g},{n2:g}")
        anchor = " and ".join(anchors)
    result = georeference(paths["image"], "EPSG:2154", grid_crs=sheet.grid_crs,
                          spacing=sheet.grid_spacing_m, anchors=anchors, gcps=False,
                          outdir=out / f"{paths['image'].stem}_georef")
    truth = transform_points(sheet.grid_xy, parse_crs(sheet.grid_crs), parse_crs("EPSG:2154"))
    raster_xy = sheet.intersections + CENTRE_TO_CORNER   # GCPs use raster coordinates
    best = fit_transform(raster_xy, truth, "affine")
    ours = result.transform.forward(raster_xy)
    return DemoResult(result, anchor, len(sheet.intersections),
                      float(np.hypot(*(ours - truth).T).max()),
                      float(np.hypot(*best.residuals_map.T).max()))


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; prints the outputs and the numbers."""
    ap = argparse.ArgumentParser(prog="python -m core.georef.demo", description=__doc__)
    ap.add_argument("outdir", nargs="?", default="demo-output",
                    help="where the sheet and the results go (default demo-output)")
    ap.add_argument("--seed", type=number("seed", minimum=0, maximum=2**32 - 1, integer=True),
                    default=DEMO_SEED)
    ap.add_argument("--size", type=number("size", minimum=256, maximum=40000, integer=True),
                    default=DEMO_SIZE, help="sheet size, pixels")
    ap.add_argument("--spacing-px", type=number("spacing-px", minimum=20, maximum=100000,
                                                unit="px"),
                    default=DEMO_SPACING_PX, help="grid spacing on the sheet, pixels")
    args = ap.parse_args(argv)
    check_outputs(folders=[args.outdir])
    d = run_demo(args.outdir, seed=args.seed, size=args.size, spacing_px=args.spacing_px)
    r = d.result
    print(f"sheet: {r.report['input']} ({args.size} x {args.size} px, core.synth seed "
          f"{args.seed}), true anchor {d.anchor}")
    print(f"detected {len(r.pixel_xy)} intersections ({d.true_count} true); "
          f"{int(r.inliers.sum())} used, {len(r.rejected)} rejected")
    print(f"georeferenced into EPSG:2154 ({r.transform.kind}): RMSE {r.rmse_px:.2f} px = "
          f"{r.rmse_map:.3f} m")
    print(f"error at the true intersections: max {d.max_error_m:.3f} m (best affine fit to "
          f"the truth: {d.best_affine_max_error_m:.3f} m)")
    for name, path in r.outputs.items():
        print(f"  {name}: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(run_cli(main))
