"""Command line: ``python -m core.synth OUTDIR --count N --size 10000 --seed S``.

Writes, for each sheet NNN (first index .. first index + count - 1, three digits at least):
NNN-INPUT.jpg, NNN-OUTPUT-GT.csv, NNN-INPUT-MASK.png, NNN-BLOCKS-GT.png, NNN.points and
NNN.json. Sheet k of a run is reproducible alone (``--first-index k --count 1``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from ..cli import number, run_batch, run_cli
from ..outputs import check_outputs
from .params import LABEL_STYLES, ORIENTATIONS, STYLES, make_params, run_difficulty, sheet_seed
from .sheet import generate_sheet
from .writer import write_sheet


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (also used by the documentation)."""
    ap = argparse.ArgumentParser(
        prog="python -m core.synth",
        description="Generate synthetic historical atlas sheets with exact ground truth "
                    "(graticule intersections, map-area mask, building blocks).")
    ap.add_argument("outdir", type=Path, help="output directory (created if missing)")
    ap.add_argument("--count", type=number("count", minimum=1, maximum=100000, integer=True),
                    default=1, help="number of sheets (default 1)")
    ap.add_argument("--size", type=number("size", minimum=256, maximum=40000, integer=True),
                    default=10000,
                    help="width and height of square sheets, pixels (default 10000)")
    ap.add_argument("--width", type=number("width", minimum=256, maximum=40000, integer=True),
                    help="sheet width, pixels (overrides --size)")
    ap.add_argument("--height", type=number("height", minimum=256, maximum=40000,
                                             integer=True),
                    help="sheet height, pixels (overrides --size)")
    ap.add_argument("--seed", type=number("seed", minimum=0, maximum=2**32 - 1, integer=True),
                    default=0, help="run seed (default 0)")
    ap.add_argument("--first-index", type=number("first-index", minimum=0, maximum=10**6,
                                                 integer=True), default=0,
                    help="number of the first sheet, NNN (default 0)")
    ap.add_argument("--difficulty", type=number("difficulty", minimum=0, maximum=1),
                    help="0 (clean) to 1 (hard) for every sheet; default: spread over the "
                         "range by sheet number")
    ap.add_argument("--spacing", type=number("spacing", minimum=20, maximum=100000, unit="px"),
                    default=2363.0,
                    help="graticule spacing (1000 m), pixels (default 2363: 1:5000 at 300 dpi)")
    ap.add_argument("--orientation", choices=ORIENTATIONS,
                    help="force the orientation case (default: random per sheet)")
    ap.add_argument("--quality", type=number("quality", minimum=1, maximum=100, integer=True),
                    help="JPEG quality 1-100 (default: 70-95 by "
                    "difficulty)")
    ap.add_argument("--content-scale",
                    type=number("content-scale", minimum=0.02, maximum=10),
                    help="scale of streets and lettering (default 1: 1:5000 at 300 dpi)")
    ap.add_argument("--labels", choices=LABEL_STYLES[1:],
                    help="print the grid values in the margins in this style, or with "
                         "inside along the grid lines inside the map (default none; "
                         "truth in NNN.json, grid_labels)")
    ap.add_argument("--style", choices=tuple(STYLES), default="default",
                    help="drawing style: default; heldout (a validation style that the "
                         "block network's training never draws: other water, hatching, "
                         "outlines, lettering, paper and JPEG quality); heldout-organic "
                         "(that drawing of another layout too: a grown town's irregular "
                         "blocks)")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit code (0 ok, 1 some sheets failed, 2 bad input)."""
    args = build_parser().parse_args(argv)
    size = (args.width or args.size, args.height or args.size)
    overrides: dict = {}
    if args.orientation:
        overrides["orientation"] = args.orientation
    if args.quality is not None:
        overrides["jpeg_quality"] = args.quality
    if args.content_scale is not None:
        overrides["content_scale"] = args.content_scale
    if args.labels:
        overrides["margin_labels"] = args.labels
    if args.style != "default":
        overrides["style"] = args.style
    # Fail on bad sizes or spacing before any sheet is made.
    make_params(0, size, difficulty=0.0, spacing_px=args.spacing, **overrides)
    check_outputs(folders=[args.outdir])
    args.outdir.mkdir(parents=True, exist_ok=True)

    indices = list(range(args.first_index, args.first_index + args.count))
    width = max(3, len(str(indices[-1])))

    def one(index: int) -> None:
        difficulty = args.difficulty if args.difficulty is not None else run_difficulty(index)
        sheet = generate_sheet(sheet_seed(args.seed, index), size, difficulty=difficulty,
                               spacing_px=args.spacing, **overrides)
        sheet.params["run"] = {"seed": args.seed, "index": index}
        write_sheet(sheet, args.outdir, f"{index:0{width}d}")

    code = run_batch(indices, one, name=lambda i: f"sheet {i:0{width}d}", desc="sheets")
    if code == 0:
        print(f"wrote {len(indices)} sheet(s) to {args.outdir}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(run_cli(main))
