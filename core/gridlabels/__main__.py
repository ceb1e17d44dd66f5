"""Read the grid values printed on a sheet: ``python -m core.gridlabels SHEET --crs CRS``.

Detects the graticule (in the map area ``core.maparea`` finds, as ``core.georef`` does),
reads the labels and prints the naming (``grid = origin + spacing * P @ index``), its
certainty and every word read, as JSON with ``--json``. Writes nothing. Exit 0 when the
values name the grid, 2 (and an ``error:`` line) when they do not.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from ..cli import run_cli
from ..errors import InputError


def main(argv: Sequence[str] | None = None) -> int:
    return run_cli(_main, argv)


def _main(argv: Sequence[str] | None) -> int:
    ap = argparse.ArgumentParser(prog="python -m core.gridlabels", description=__doc__.split(
        "\n\n")[0])
    ap.add_argument("input", help="the scanned sheet (JPEG, PNG, TIFF)")
    ap.add_argument("--crs", required=True, help="the grid's CRS (EPSG code, WKT, PROJ, preset)")
    ap.add_argument("--spacing", type=float, help="the grid spacing in CRS units, if known")
    ap.add_argument("--json", action="store_true", help="print the whole reading as JSON")
    args = ap.parse_args(argv)
    from ..georef.crs import parse_crs
    from ..graticule import detect_on_sheet
    from ..graticule.sheet import COMPUTE
    from ..imageio import check_readable_file
    from . import read_grid_labels

    path = check_readable_file(args.input)
    crs = parse_crs(args.crs)
    graticule = detect_on_sheet(str(path), COMPUTE)
    if len(graticule) == 0:
        raise InputError(f"{path}: no graticule intersection was found")
    read = read_grid_labels(path, graticule, crs=crs, spacing=args.spacing)
    n = read.naming
    out = {"orientation": n.orientation.tolist(), "origin": n.origin.tolist(),
           "spacing": n.spacing, "north": n.describe(), "certainty": read.certainty,
           "warnings": read.warnings, "seconds": round(read.seconds, 3)}
    if args.json:
        print(json.dumps({**out, "labels": read.labels}, indent=1))
    else:
        print(f"{path.name}: {n.describe()}, origin {n.origin.tolist()}; certainty "
              f"{read.certainty['margin']:.1f} (threshold {read.certainty['threshold']:g}); "
              f"{sum(r['used'] for r in read.labels)} labels used; {read.seconds:.2f} s")
        for w in read.warnings:
            print(f"  warning: {w}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
