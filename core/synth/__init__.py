"""Synthetic historical atlas sheets with exact ground truth (graticule, map area, blocks).

``generate_sheet(seed, size, difficulty=..., spacing_px=...)`` makes a sheet in memory;
``write_sheet(sheet, outdir, name)`` writes its MapSeg-style files;
``python -m core.synth OUTDIR --count N --size 10000 --seed S`` does both for a batch.
"""

from .geometry import SheetGeometry
from .params import PARIS_GRID_CRS, SheetParams, make_params, run_difficulty, sheet_seed
from .sheet import SyntheticSheet, generate_sheet
from .writer import sheet_paths, write_sheet

__all__ = ["PARIS_GRID_CRS", "SheetGeometry", "SheetParams", "SyntheticSheet",
           "generate_sheet", "make_params", "run_difficulty", "sheet_paths", "sheet_seed",
           "write_sheet"]
