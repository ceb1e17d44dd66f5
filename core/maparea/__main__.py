"""Command line: ``python -m core.maparea INPUT.jpg -o NNN-OUTPUT-PRED.png``.

Directory mode: ``python -m core.maparea SHEETS_DIR -o OUT_DIR`` writes
``OUT_DIR/NNN-OUTPUT-PRED.png`` for every ``SHEETS_DIR/NNN-INPUT.jpg`` (MapSeg task 2).
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from ..atomic import atomic_output
from ..batch import add_batch_options, batch_options, run_batch
from ..cli import add_accept_corrupt, parse_args, run_cli
from ..corrupt_jpeg import accepting_corrupt_jpeg
from ..errors import InputError
from ..imageio import check_readable_file
from ..mapseg_names import OUTPUT_PRED, list_inputs, sheet_id
from ..memory import reuse_freed_memory
from ..outputs import cannot_write, check_outputs
from .segment import MapAreaSettings, map_area_mask


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (also used by the documentation)."""
    ap = argparse.ArgumentParser(
        prog="python -m core.maparea",
        description="Segment the map area (content inside the frame, without margins, "
                    "titles and legends) of scanned sheets; writes 0/255 PNG masks.")
    ap.add_argument("input", type=Path, help="a sheet image, or a directory of NNN-INPUT.jpg")
    ap.add_argument("-o", "--output", type=Path, required=True,
                    help="output PNG (single sheet) or directory (directory mode)")
    ap.add_argument("--reduce", type=int, choices=(1, 2, 4, 8), default=4,
                    help="work at 1/REDUCE of the size (default 4)")
    add_accept_corrupt(ap)
    add_batch_options(ap)
    return ap


def write_mask_png(mask: np.ndarray, path: Path) -> None:
    """Write a bool mask as a single-channel 0/255 PNG, atomically."""
    with atomic_output(path) as tmp:
        if not cv2.imwrite(str(tmp), mask.astype(np.uint8) * np.uint8(255)):
            raise cannot_write(path)


def _sheet_output(image: Path, outdir: Path) -> Path:
    return outdir / f"{sheet_id(image)}{OUTPUT_PRED}.png"


def _mask_of(image: Path, settings: MapAreaSettings, accept_corrupt: bool) -> np.ndarray:
    """The map-area mask of a sheet; a warning on stderr for damaged JPEG data accepted."""
    with accepting_corrupt_jpeg(accept_corrupt) as damaged:
        mask = map_area_mask(image, settings=settings)
    for w in damaged:
        print(f"warning: {w}", file=sys.stderr)
    return mask


def _directory_sheet(image: Path, outdir: Path, settings: MapAreaSettings,
                     accept_corrupt: bool = False) -> None:
    """One sheet of directory mode (runs on a worker: module level, picklable)."""
    reuse_freed_memory()   # this Dask worker (or process) only runs commands
    out = _sheet_output(image, outdir)
    check_outputs([out], inputs=[image])
    write_mask_png(_mask_of(image, settings, accept_corrupt), out)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit code (0 ok, 1 some sheets failed, 2 bad input)."""
    args = parse_args(build_parser(), argv)
    reuse_freed_memory()   # this process only runs the command
    settings = MapAreaSettings(reduce=args.reduce)
    if args.input.is_dir():
        check_outputs(folders={"output": args.output})
        options = batch_options(args, work="maparea")
        return run_batch(list_inputs(args.input),
                         functools.partial(_directory_sheet, outdir=args.output,
                                           settings=settings,
                                           accept_corrupt=args.accept_corrupt),
                         name=lambda p: p.name, desc="map areas", options=options,
                         outputs=lambda p: [_sheet_output(p, args.output)],
                         summary=args.output)
    check_readable_file(args.input)
    if args.output.suffix.lower() != ".png":
        raise InputError(f"{args.output}: the output must be a .png file")
    check_outputs({"output": args.output}, inputs=[args.input])
    write_mask_png(_mask_of(args.input, settings, args.accept_corrupt), args.output)
    return 0


if __name__ == "__main__":
    sys.exit(run_cli(main))
