"""Command line: building blocks or closed shapes as a 0/255 PNG and GeoPackage polygons.

Single sheet::

    python -m core.blocks INPUT.jpg [--mask MASK.png] [--level blocks|shapes] -o OUT.png
        [--gpkg OUT.gpkg] [--georef GEOREF_DIR_OR_POINTS]

Directory mode (every NNN-INPUT.jpg; MapSeg names; progress bar; goes on past bad sheets)::

    python -m core.blocks SHEETS_DIR -o OUT_DIR [--level ...] [--gpkg] [--georef DIR]

writes OUT_DIR/NNN-OUTPUT-PRED.png (and OUT_DIR/NNN-OUTPUT-PRED.gpkg with --gpkg).
The map-area mask is --mask, else NNN-INPUT-MASK.png or <stem>-MASK.png beside the sheet,
else computed with core.maparea.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Sequence
from pathlib import Path

from ..batch import SheetReport, add_batch_options, batch_options, run_batch
from ..cli import add_accept_corrupt, number, parse_args, run_cli
from ..corrupt_jpeg import accepting_corrupt_jpeg
from ..errors import InputError
from ..imageio import check_readable_file
from ..mapseg_names import OUTPUT_PRED, list_inputs, mask_for_input, sheet_id, sheet_mask
from ..outputs import check_outputs
from .export import write_outputs
from .georeference import Georeference, find_georeference
from .pipeline import LEVELS, segment_sheet
from .report import count_phrase, sheet_warnings
from .settings import BlockSettings


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (also used by the documentation)."""
    ap = argparse.ArgumentParser(
        prog="python -m core.blocks",
        description="Extract building blocks (MapSeg task 1) or every closed shape of "
                    "scanned city maps, as a 0/255 PNG and GeoPackage polygons.")
    ap.add_argument("input", type=Path, help="a sheet image, or a directory of NNN-INPUT.jpg")
    ap.add_argument("-o", "--output", type=Path, required=True,
                    help="output PNG (single sheet) or directory (directory mode)")
    ap.add_argument("--mask", type=Path,
                    help="map-area mask PNG (directory mode: a directory of "
                         "NNN-INPUT-MASK.png); default: NNN-INPUT-MASK.png or "
                         "<stem>-MASK.png beside the sheet, else computed")
    ap.add_argument("--level", choices=LEVELS, default="blocks",
                    help="blocks (default) or shapes (blocks split into every closed shape)")
    ap.add_argument("--gpkg", nargs="?", const=True, default=None, metavar="GPKG",
                    help="also write polygons to this GeoPackage (directory mode: flag, or "
                         "a directory for NNN-OUTPUT-PRED.gpkg)")
    ap.add_argument("--georef", type=Path, metavar="DIR_OR_POINTS",
                    help="output of core.georef (its directory or .points file): polygons "
                         "in its CRS; directory mode: a directory holding NNN_georef/ or "
                         "NNN.points (default for one sheet: its own geotransform, else "
                         "<stem>_georef/<stem>.points or <file name>.points beside it, else "
                         "pixel coordinates)")
    ap.add_argument("--tolerance", type=number("tolerance", minimum=0, maximum=100, unit="px"),
                    default=1.5,
                    help="polygon simplification: the largest distance, in pixels, of a "
                         "simplified boundary from the pixel boundary (Douglas-Peucker on "
                         "each boundary shared by two polygons); 0 keeps the pixel "
                         "boundaries (default 1.5)")
    ap.add_argument("--scale", type=number("scale", minimum=0.05, maximum=20), default=1.0,
                    help="scan pixels per metre / 2.363 (default 1: 1:5000 at 300 dpi)")
    ap.add_argument("--lines", action="store_true",
                    help="no learned model: blocks (and closed shapes) from the line "
                         "network instead of the block-interior and edge networks "
                         "(slower, lower PQ on generated sheets)")
    ap.add_argument("--line-shapes", action="store_true",
                    help="shapes level: closed shapes from the classical line network "
                         "instead of the learned edge network (models/edge_net.onnx)")
    add_accept_corrupt(ap)
    add_batch_options(ap)
    return ap


def _mask_for(image: Path, mask_arg: Path | None, directory_mode: bool) -> Path | None:
    if mask_arg is None or not directory_mode:
        return sheet_mask(image, mask_arg)
    if not mask_arg.is_dir():
        raise InputError(f"{mask_arg} is not a directory; in directory mode --mask "
                         "names a directory of NNN-INPUT-MASK.png")
    return mask_for_input(image, mask_arg)


def _process(image: Path, png: Path | None, gpkg: Path | None, mask: Path | None,
             level: str, georef: Georeference | None, where: str | None,
             args: argparse.Namespace) -> SheetReport:
    """Segment one sheet, write its outputs, and say what was written where."""
    check_outputs({"output": png, "gpkg": gpkg},
                  inputs=[image, mask, georef.points_file if georef else None])
    settings = BlockSettings.for_level(level, scale=args.scale, block_net=not args.lines,
                                       edge_net=not (args.lines or args.line_shapes))
    with accepting_corrupt_jpeg(args.accept_corrupt) as damaged:
        seg = segment_sheet(image, mask, level=level, settings=settings)
    polygons = write_outputs(seg, level, png, gpkg, source=image.name, georef=georef,
                             tolerance=args.tolerance, source_mtime=image.stat().st_mtime)
    found = {"blocks": seg.n_blocks} | ({"shapes": seg.n_shapes} if level == "shapes" else {})
    warnings = [*damaged, *sheet_warnings(seg)]
    lines = [f"{image.name}: {count_phrase(found)} found"]
    if png is not None:
        lines.append(f"  {png}: the {count_phrase({level: found[level]})} as a 0/255 PNG "
                     "of the sheet's size")
    if gpkg is not None:
        lines.append(f"  {gpkg}: {count_phrase(polygons)} as polygons, {_placement(georef, where)}")
    lines += [f"  warning: {w}" for w in warnings]
    return SheetReport(text="\n".join(lines), warnings=tuple(warnings))


def _placement(georef: Georeference | None, where: str | None) -> str:
    """In what CRS the polygons are, and what placed them."""
    if georef is None:
        return ("in pixel coordinates (x = column, y = -row, as QGIS shows a raster without "
                "georeference; no georeference found)")
    from ..georef.crs import crs_label, parse_crs

    return f"in {crs_label(parse_crs(georef.crs_wkt))}, {where}"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit code (0 ok, 1 some sheets failed, 2 bad input)."""
    args = parse_args(build_parser(), argv)
    if args.georef is not None and args.gpkg is None:
        raise InputError("--georef only affects the GeoPackage; add --gpkg")
    if args.input.is_dir():
        return _directory(args)
    check_readable_file(args.input)
    if args.output.suffix.lower() != ".png" or args.output.is_dir():
        raise InputError(f"{args.output}: the output must be a .png file")
    gpkg = None
    if args.gpkg is not None:
        if args.gpkg is True:
            raise InputError("--gpkg needs a file name for a single sheet")
        gpkg = Path(args.gpkg)
        if gpkg.suffix.lower() != ".gpkg":
            raise InputError(f"{gpkg}: the GeoPackage name must end with .gpkg")
    georef = where = None
    if gpkg is not None:   # the georeference given, else the sheet's own or one beside it
        georef, where = find_georeference(args.input, args.georef)
    print(_process(args.input, args.output, gpkg, _mask_for(args.input, args.mask, False),
                   args.level, georef, where, args).text)
    return 0


def _directory(args: argparse.Namespace) -> int:
    gpkg_dir = None
    if args.gpkg is not None:
        gpkg_dir = args.output if args.gpkg is True else Path(args.gpkg)
    check_outputs(folders={"output": args.output, "gpkg": gpkg_dir})
    inputs = list_inputs(args.input)
    if args.georef is not None and not args.georef.is_dir():
        raise InputError(f"{args.georef} is not a directory; in directory mode --georef "
                         "names a directory of core.georef outputs")

    options = batch_options(args, work=args.level)
    return run_batch(inputs, functools.partial(_directory_sheet, gpkg_dir=gpkg_dir, args=args),
                     name=lambda p: p.name, desc=f"{args.level}", options=options,
                     outputs=lambda p: _sheet_outputs(p, gpkg_dir, args),
                     inputs=lambda p: [p, _mask_for(p, args.mask, True)],
                     summary=args.output)


def _sheet_outputs(image: Path, gpkg_dir: Path | None,
                   args: argparse.Namespace) -> list[Path | None]:
    """The PNG and (with --gpkg) the GeoPackage of a sheet of directory mode."""
    name = sheet_id(image)
    return [args.output / f"{name}{OUTPUT_PRED}.png",
            gpkg_dir / f"{name}{OUTPUT_PRED}.gpkg" if gpkg_dir is not None else None]


def _directory_sheet(image: Path, gpkg_dir: Path | None,
                     args: argparse.Namespace) -> SheetReport:
    """One sheet of directory mode (runs on a worker: module level, picklable)."""
    png, gpkg = _sheet_outputs(image, gpkg_dir, args)
    # the georeference given, else the sheet's own or one beside it (as for one sheet)
    georef, where = find_georeference(image, args.georef) if gpkg is not None else (None, None)
    return _process(image, png, gpkg, _mask_for(image, args.mask, True), args.level, georef,
                    where, args)


if __name__ == "__main__":
    sys.exit(run_cli(main))
