"""Command line: ``python -m core.georef INPUT --crs CRS [options]``.

INPUT is a scanned sheet, or a directory of ``NNN-INPUT.jpg`` sheets (each georeferenced
into ``OUTDIR/<stem>_georef/``, going on past failures). See docs/georef.md.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Sequence
from pathlib import Path

from ..batch import SheetReport, add_batch_options, batch_options, run_batch
from ..batch.resume import is_complete
from ..cli import EXIT_OK, add_accept_corrupt, number, parse_args, run_cli
from ..corrupt_jpeg import accepting_corrupt_jpeg
from ..errors import InputError
from ..mapseg_names import list_inputs, mask_for_input
from ..memory import reuse_freed_memory
from ..outputs import check_outputs
from .allmaps import check_iiif_url
from .footprints import write_footprints
from .mosaic import MOSAIC_NAME, write_mosaic
from .pipeline import default_outdir, default_points_file, georeference
from .raster_output import RESAMPLING
from .robust import METHODS
from .transforms import KINDS, MIN_POINTS


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (also used by the docs)."""
    p = argparse.ArgumentParser(
        prog="python -m core.georef",
        description="Georeference a scanned map sheet from its graticule: detect the grid "
                    "intersections, name them from the grid values printed in the margins "
                    "(or from anchors or known GCPs), fit a transform "
                    "robustly and write a GeoTIFF, QGIS .points, VRT, world file and reports.")
    p.add_argument("input", help="scanned sheet (JPEG, PNG, TIFF) or a directory of "
                                 "NNN-INPUT.jpg sheets")
    p.add_argument("--crs", required=True,
                   help="CRS of the outputs: EPSG code (EPSG:2154), WKT, PROJ string or "
                        "preset (paris-atlas)")
    p.add_argument("--grid-crs", help="CRS the graticule is drawn in (default: --crs)")
    p.add_argument("--spacing", type=number("spacing", positive=True, maximum=1e7),
                   help="distance between grid lines in grid-CRS units (default: the step of "
                        "the grid values read on the sheet; 1000 with --anchor or --gcps)")
    p.add_argument("--anchor", action="append", default=[], metavar="X,Y=E,N",
                   help="the intersection nearest pixel X,Y has grid coordinates E,N "
                        "(repeatable; one = north-up sheet, two fix any rotation); without "
                        "anchors or GCPs the grid values printed on the sheet are read")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--gcps", metavar="FILE.points",
                   help="QGIS GCP file of known grid nodes, snapped to the detected grid "
                        "(default: <stem>.points or NNN.points beside the input)")
    g.add_argument("--no-gcps", action="store_true",
                   help="do not use a .points file found beside the input")
    p.add_argument("--gcps-only", action="store_true",
                   help="fit the GCPs of --gcps (or of the .points beside the input) as they "
                        "are, without detecting the graticule")
    kinds = ", ".join(f"{k} ({MIN_POINTS[k]})" for k in KINDS)
    p.add_argument("--transform", default="affine", choices=KINDS, metavar="KIND",
                   help=f"transform and its minimum number of GCPs: {kinds}; default affine")
    p.add_argument("-o", "--outdir", help="output directory (default <stem>_georef/ beside "
                                          "the input; for a directory input, the parent of "
                                          "the per-sheet directories)")
    m = p.add_mutually_exclusive_group()
    m.add_argument("--mask", help="map-area mask, 0 outside (default NNN-INPUT-MASK.png or "
                                  "<stem>-MASK.png beside the input when present, else the "
                                  "map area computed)")
    m.add_argument("--no-mask", action="store_true", help="ignore any map-area mask")
    p.add_argument("--resampling", default="bilinear", choices=RESAMPLING,
                   help="resampling of warped outputs (default bilinear)")
    p.add_argument("--threshold", type=number("threshold", positive=True, maximum=1e6,
                                               unit="px"), metavar="PX",
                   help="outlier threshold in pixels (default 3%% of a grid cell)")
    p.add_argument("--outliers", default="magsac", choices=METHODS,
                   help="outlier rejection (default magsac)")
    p.add_argument("--debug", action="store_true",
                   help="also write <stem>.labels.png: the grid labels read on the sheet, "
                        "boxed (green used, red left out)")
    p.add_argument("--overviews", action="store_true",
                   help="add internal overviews to the GeoTIFF (faster display in QGIS)")
    p.add_argument("--cog", action="store_true",
                   help="write the GeoTIFF as a Cloud-Optimized GeoTIFF (overviews included; "
                        "for web servers and object storage)")
    p.add_argument("--iiif", metavar="URL",
                   help="IIIF image service URL of the sheet (http or https): also write "
                        "<stem>.allmaps.json, an Allmaps Georeference Annotation")
    p.add_argument("--iiif-version", type=int, choices=(2, 3), default=2,
                   help="IIIF Image API version of that service (default 2)")
    add_accept_corrupt(p)
    add_batch_options(p)
    return p


def _run_one(input_path: Path, args: argparse.Namespace, outdir: Path | None) -> SheetReport:
    reuse_freed_memory()   # this process (or Dask worker) only runs commands
    mask = False if args.no_mask else (args.mask or "auto")
    with accepting_corrupt_jpeg(args.accept_corrupt) as damaged:
        result = georeference(
            input_path, args.crs, grid_crs=args.grid_crs, spacing=args.spacing,
            anchors=args.anchor, gcps=False if args.no_gcps else args.gcps,
            gcps_only=args.gcps_only,
            transform=args.transform, outdir=outdir, mask=mask, resampling=args.resampling,
            threshold_px=args.threshold, outliers=args.outliers, overviews=args.overviews,
            cog=args.cog, iiif=args.iiif, iiif_version=args.iiif_version,
            debug=args.debug)
    warnings = [*damaged, *result.warnings]
    unit = result.report["crs"]["unit"]
    n, used = len(result.inliers), int(result.inliers.sum())
    accuracy = (f"RMSE {result.rmse_px:.2f} px = {result.rmse_map:.3f} {unit}"
                if result.report["summary"]["redundancy"] > 0 else
                "no redundancy, accuracy unknown (see the warning)")
    lines = [f"{input_path.name}: {result.transform.kind}, {used} of {n} GCPs used, {accuracy}"]
    sheet = result.report["sheet"]
    scale = (f", 1:{sheet['scale_if_300_dpi']:,} if scanned at 300 dpi"
             if sheet["scale_if_300_dpi"] else "")
    lines.append(f"  sheet: 1 px = {sheet['pixel_size']:.4g} {unit}, north "
                 f"{sheet['north_deg']:.1f} degrees clockwise from up{scale}")
    lab = result.labelling
    if lab is not None and lab.source == "labels" and lab.certainty:
        fams = lab.certainty["families"]
        lines.append("  grid values read: " + "; ".join(
            f"{name} {fams[name]['best']}" for name in ("columns", "rows"))
            + f"; certainty {lab.certainty['margin']:.1f} (refused below "
              f"{lab.certainty['threshold']:g}), runner-up "
            + "; ".join(f"{name} {fams[name]['runner_up']}" for name in ("columns", "rows")))
    lines += [f"  warning: {w}" for w in warnings]
    lines += [f"  {path}" for path in result.outputs.values()]
    margin = lab.certainty["margin"] if lab is not None and lab.certainty else None
    return SheetReport(text="\n".join(lines), intersections=n,
                       rmse_px=float(result.rmse_px), warnings=tuple(warnings),
                       certainty=margin)


def _sheet_dir(image: Path, parent: Path | None) -> Path:
    return parent / f"{image.stem}_georef" if parent else default_outdir(image)


def _sheet_outputs(image: Path, parent: Path | None) -> list[Path]:
    """The files every georeferenced sheet has (the world file only with affine)."""
    d, stem = _sheet_dir(image, parent), image.stem
    return [d / f"{stem}{ext}" for ext in (".tif", ".points", ".vrt", ".report.json",
                                            ".report.html")]


def _sheet_inputs(image: Path, args: argparse.Namespace) -> list[Path | None]:
    mask = None if args.no_mask else (Path(args.mask) if args.mask else mask_for_input(image))
    gcps = None if args.no_gcps else (Path(args.gcps) if args.gcps
                                      else default_points_file(image))
    return [image, mask, gcps]


def _directory_sheet(image: Path, args: argparse.Namespace, parent: Path | None) -> SheetReport:
    """One sheet of directory mode (runs on a worker: module level, picklable)."""
    return _run_one(image, args, _sheet_dir(image, parent))


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit code (see core.cli)."""
    args = parse_args(build_parser(), argv)
    if args.iiif is not None:
        check_iiif_url(args.iiif)   # before any sheet is read
    src = Path(args.input)
    if src.is_dir():
        if args.gcps or args.anchor:
            print("note: --anchor and --gcps apply to every sheet of the directory",
                  file=sys.stderr)
        parent = Path(args.outdir) if args.outdir else None
        check_outputs(folders={"outdir": parent})
        options = batch_options(args, work="georef")
        inputs = list_inputs(src)
        code = run_batch(inputs, functools.partial(_directory_sheet, args=args, parent=parent),
                         name=lambda p: p.name, desc="georeferencing", options=options,
                         outputs=lambda p: _sheet_outputs(p, parent),
                         inputs=lambda p: _sheet_inputs(p, args), summary=parent or src)
        done = [outs[0] for p in inputs
                if is_complete(outs := _sheet_outputs(p, parent), [])]
        mosaic = write_mosaic((parent or src) / MOSAIC_NAME, done)
        if mosaic is not None:
            print(f"mosaic of {len(done)} georeferenced sheets: {mosaic}", file=sys.stderr)
        footprints, atlas = write_footprints(parent or src, inputs,
                                             lambda p: _sheet_dir(p, parent))
        flagged = sum(fp.status == "flagged" for fp in atlas.footprints)
        print(f"footprints of {len(atlas.footprints)} placed sheets ({flagged} flagged: "
              f"overlapping another's ground or beside a hole): {footprints}", file=sys.stderr)
        return code
    if not src.exists():
        raise InputError(f"{src}: no such file or directory; check the path")
    print(_run_one(src, args, Path(args.outdir) if args.outdir else None).text)
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(run_cli(main))
