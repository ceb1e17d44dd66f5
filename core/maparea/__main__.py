"""Command line: ``python -m core.maparea INPUT.jpg -o NNN-OUTPUT-PRED.png``.

Directory mode: ``python -m core.maparea SHEETS_DIR -o OUT_DIR`` writes
``OUT_DIR/NNN-OUTPUT-PRED.png`` for every ``SHEETS_DIR/NNN-INPUT.jpg`` (MapSeg task 2).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from ..atomic import atomic_output
from ..cli import run_batch, run_cli
from ..errors import InputError
from ..mapseg_names import OUTPUT_PRED, list_inputs, sheet_id
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
    return ap


def write_mask_png(mask: np.ndarray, path: Path) -> None:
    """Write a bool mask as a single-channel 0/255 PNG, atomically."""
    with atomic_output(path) as tmp:
        if not cv2.imwrite(str(tmp), mask.astype(np.uint8) * np.uint8(255)):
            raise InputError(f"cannot write {path}; check the directory is writable")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit code (0 ok, 1 some sheets failed, 2 bad input)."""
    args = build_parser().parse_args(argv)
    settings = MapAreaSettings(reduce=args.reduce)
    if args.input.is_dir():
        if args.output.exists() and not args.output.is_dir():
            raise InputError(f"{args.output} is a file; give an output directory for a "
                             "directory of sheets")
        inputs = list_inputs(args.input)
        args.output.mkdir(parents=True, exist_ok=True)

        def one(path: Path) -> None:
            mask = map_area_mask(path, settings=settings)
            write_mask_png(mask, args.output / f"{sheet_id(path)}{OUTPUT_PRED}.png")

        return run_batch(inputs, one, name=lambda p: p.name, desc="map areas")
    if args.output.suffix.lower() != ".png":
        raise InputError(f"{args.output}: the output must be a .png file")
    if args.output.is_dir():
        raise InputError(f"{args.output} is a directory; give a .png file name")
    write_mask_png(map_area_mask(args.input, settings=settings), args.output)
    return 0


if __name__ == "__main__":
    sys.exit(run_cli(main))
