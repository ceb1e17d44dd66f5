"""The "Vectorize building blocks" job, without GUI: segmentation -> GeoPackage polygons.

Where the polygons go is core's decision (``core.blocks.find_georeference``: the
georeference given, the sheet's own, one beside the sheet, else pixel coordinates x =
column, y = -row, over the sheet opened unreferenced).

Pixel convention of the polygons: x right, y down, origin at the top-left corner of the
top-left pixel (GDAL's), the same as a geotransform's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

Progress = Callable[[float, str], None]
LEVEL_LAYERS = {"blocks": ("blocks",), "shapes": ("blocks", "shapes")}


@dataclass
class BlocksRequest:
    """What to vectorize: ``level`` "blocks" or "shapes"; ``mask`` None = beside the sheet
    or computed; ``georef`` None = automatic (see the module docstring)."""

    sheet: Path
    gpkg: Path
    level: str = "blocks"
    mask: Path | None = None
    georef: Path | None = None
    png: Path | None = None
    tolerance: float = 1.5


@dataclass
class BlocksOutcome:
    """The written GeoPackage, its layers, the polygon counts and where they lie."""

    gpkg: Path
    layers: tuple[str, ...]
    counts: dict[str, int]
    placed_by: str
    sheet: Path


def default_gpkg(sheet: Path, level: str) -> Path:
    """``<stem>_blocks.gpkg`` (or ``_shapes``) beside the sheet."""
    return sheet.with_name(f"{sheet.stem}_{level}.gpkg")


def vectorize_blocks(req: BlocksRequest, progress: Progress | None) -> BlocksOutcome:
    """Segment the sheet and write its blocks (and shapes) to ``req.gpkg``."""
    from ..core.blocks import BlockSettings, find_georeference, segment_sheet, write_outputs
    from ..core.progress import sub_progress
    from ..core.mapseg_names import sheet_mask

    georef, placed_by = find_georeference(req.sheet, req.georef)
    mask = sheet_mask(req.sheet, req.mask)
    seg = segment_sheet(req.sheet, None if mask is None else str(mask), level=req.level,
                        settings=BlockSettings.for_level(req.level),
                        progress=sub_progress(progress, 0.0, 0.8))
    write_outputs(seg, req.level, req.png, req.gpkg, source=req.sheet.name, georef=georef,
                  tolerance=req.tolerance, progress=sub_progress(progress, 0.8, 1.0))
    counts = {"blocks": int(seg.n_blocks)}
    if req.level == "shapes":
        counts["shapes"] = int(seg.n_shapes)
    return BlocksOutcome(req.gpkg, LEVEL_LAYERS[req.level], counts, placed_by, req.sheet)
