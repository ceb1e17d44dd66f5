"""``python -m core.graticule``: graticule intersections of one sheet or a directory.

    python -m core.graticule INPUT.jpg -o OUT.csv [--mask MASK.png] [--debug DIR]
    python -m core.graticule INDIR -o OUTDIR [--debug DIR]

The CSV is MapSeg task 3: an ``x,y`` header, then one intersection a line, pixels (x right,
y down, integer values at pixel centres), one decimal. In directory mode every
``NNN-INPUT.jpg`` gives ``OUTDIR/NNN-OUTPUT-PRED.csv``.

The map-area mask keeps the search inside the map: ``--mask`` if given, else
``NNN-INPUT-MASK.png`` or ``<stem>-MASK.png`` beside the sheet when present, else one
computed by core.maparea
(``--no-mask``: none).
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
from ..formats.mapseg_csv import write_points_csv
from ..mapseg_names import OUTPUT_PRED, list_inputs, mask_for_input, sheet_id
from ..memory import reuse_freed_memory
from ..outputs import check_outputs
from .debug import write_debug
from .sheet import COMPUTE, detect_on_sheet


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m core.graticule",
        description="Find the graticule (grid line) intersections of scanned map sheets "
                    "and write them as MapSeg task 3 CSV files.")
    p.add_argument("input", help="a sheet image (JPEG, PNG, TIFF) or a directory of "
                                 "NNN-INPUT.jpg sheets")
    p.add_argument("-o", "--output", required=True,
                   help="output CSV (file mode) or directory (directory mode)")
    p.add_argument("--mask", help="map-area mask (0 outside the map, 255 inside); default: "
                                  "NNN-INPUT-MASK.png or <stem>-MASK.png beside the sheet "
                                  "when present, else one computed from the sheet "
                                  "(core.maparea)")
    p.add_argument("--no-mask", action="store_true",
                   help="search the whole image: no mask file, no computed mask")
    p.add_argument("--spacing", type=number("spacing", minimum=20, maximum=100000, unit="px"),
                   metavar="PX",
                   help="expected distance between grid lines, pixels (default: found)")
    p.add_argument("--all", action="store_true",
                   help="also write crossings hidden under a gap of a grid line (left out by "
                        "MapSeg ground truth, still valid control points)")
    p.add_argument("--debug", metavar="DIR",
                   help="write a downscaled picture of each sheet with the grid drawn on it")
    add_accept_corrupt(p)
    add_batch_options(p)
    return p


def _debug_path(args: argparse.Namespace, image: Path) -> Path | None:
    return Path(args.debug) / f"{image.stem}-graticule.png" if args.debug else None


def _detect_one(image: Path, mask: Path | None, out_csv: Path,
                args: argparse.Namespace) -> SheetReport:
    reuse_freed_memory()   # this process (or Dask worker) only runs commands
    check_outputs({"output": out_csv, "debug": _debug_path(args, image)},
                  inputs=[image, mask])
    area = None if args.no_mask else (COMPUTE if mask is None else mask)
    with accepting_corrupt_jpeg(args.accept_corrupt) as damaged:
        result = detect_on_sheet(image, area, spacing_px=args.spacing)
        kept = result if args.all else result.visible_only()
        write_points_csv(out_csv, kept.points)
        if args.debug:
            write_debug(_debug_path(args, image), image, result)
    hidden = len(result) - len(result.visible_only())
    spacing = result.columns.spacing_px
    text = (f"{image.name}: {len(kept)} intersections"
            + (f" ({hidden} hidden crossings {'included' if args.all else 'left out'})"
               if hidden else "")
            + f", spacing {spacing:.1f} px, lines at {result.columns.line_angle_deg - 90:.2f} "
              f"and {result.rows.line_angle_deg - 90:.2f} deg -> {out_csv}"
            + "".join(f"\n  warning: {w}" for w in damaged))
    return SheetReport(text=text, intersections=len(kept), warnings=tuple(damaged))


def _sheet_outputs(image: Path, outdir: Path, args: argparse.Namespace) -> list[Path | None]:
    """What a sheet of directory mode writes (all of it when the sheet is done)."""
    return [outdir / f"{sheet_id(image)}{OUTPUT_PRED}.csv", _debug_path(args, image)]


def _sheet_inputs(image: Path, args: argparse.Namespace) -> list[Path | None]:
    return [image, None if args.no_mask else mask_for_input(image)]


def _directory_sheet(image: Path, outdir: Path, args: argparse.Namespace) -> SheetReport:
    """One sheet of directory mode (runs on a worker: module level, picklable)."""
    out, _ = _sheet_outputs(image, outdir, args)
    return _detect_one(image, _sheet_inputs(image, args)[1], out, args)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(build_parser(), argv)
    src = Path(args.input)
    if not src.exists():
        raise InputError(f"{src}: no such file or directory; check the path")
    if src.is_dir():
        if args.mask:
            raise InputError("--mask names one file; in directory mode each sheet's "
                             "NNN-INPUT-MASK.png is used")
        outdir = Path(args.output)
        check_outputs(folders={"output": outdir, "debug": args.debug})
        options = batch_options(args, work="graticule")
        return run_batch(list_inputs(src), functools.partial(_directory_sheet, outdir=outdir,
                                                             args=args),
                         name=lambda p: p.name, desc="sheets", options=options,
                         outputs=lambda p: _sheet_outputs(p, outdir, args),
                         inputs=lambda p: _sheet_inputs(p, args), summary=outdir)
    mask = Path(args.mask) if args.mask else (None if args.no_mask else mask_for_input(src))
    print(_detect_one(src, mask, Path(args.output), args).text)
    return 0


if __name__ == "__main__":
    sys.exit(run_cli(main))
