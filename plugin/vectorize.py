"""The "Vectorize building blocks" job, without GUI: segmentation -> GeoPackage polygons.

Where the polygons go (first that applies):

1. a georeferencing given by the user: a QGIS ``.points`` file (with its ``#CRS:`` line) or
   a ``core.georef`` output folder;
2. the sheet's own georeferencing (a GeoTIFF with a geotransform and a CRS, such as the
   raster the "Detect graticule & georeference" action writes);
3. ``<sheet>_georef/<sheet>.points`` beside the sheet (that action's default output folder);
4. ``<sheet file name>.points`` beside the sheet (where QGIS's georeferencer saves GCPs);
5. otherwise pixel coordinates: x = column, y = -row, over the sheet opened unreferenced.

Pixel convention of the polygons: x right, y down, origin at the top-left corner of the
top-left pixel (GDAL's), the same as a geotransform's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .i18n import tr

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
    crs_wkt: str | None
    placed_by: str
    sheet: Path


def default_gpkg(sheet: Path, level: str) -> Path:
    """``<stem>_blocks.gpkg`` (or ``_shapes``) beside the sheet."""
    return sheet.with_name(f"{sheet.stem}_{level}.gpkg")


def raster_georeference(sheet: Path):
    """A ``core.blocks.Georeference`` from the sheet's own geotransform and CRS, or None."""
    from osgeo import gdal

    from ..core.blocks import Georeference
    from ..core.georef.crs import parse_crs

    gdal.UseExceptions()
    try:
        ds = gdal.Open(str(sheet))
    except RuntimeError:
        return None
    gt = ds.GetGeoTransform(can_return_null=True)
    wkt = ds.GetProjection()
    ds = None
    if gt is None or not wkt:
        return None
    crs = parse_crs(wkt)
    a = (gt[0], gt[1], gt[2], gt[3], gt[4], gt[5])

    def forward(xy):
        import numpy as np

        xy = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
        return np.column_stack([a[0] + a[1] * xy[:, 0] + a[2] * xy[:, 1],
                                a[3] + a[4] * xy[:, 0] + a[5] * xy[:, 1]])

    unit = crs.axis_info[0].unit_name if crs.axis_info else "unknown"
    return Georeference(forward, crs.to_wkt(), "affine", bool(crs.is_geographic), unit, sheet)


def find_georeference(sheet: Path, given: Path | None):
    """(Georeference or None, a short note saying where the polygons lie)."""
    from ..core.blocks import load_georeference

    if given is not None:
        georef = load_georeference(given, sheet.stem)
        return georef, tr("georeferenced with {0}").format(georef.points_file.name)
    own = raster_georeference(sheet)
    if own is not None:
        return own, tr("georeferenced like the sheet")
    for candidate in (sheet.with_name(f"{sheet.stem}_georef") / f"{sheet.stem}.points",
                      sheet.with_name(sheet.name + ".points")):
        if candidate.is_file():
            georef = load_georeference(candidate, sheet.stem)
            return georef, tr("georeferenced with {0}").format(candidate.name)
    return None, tr("in pixel coordinates (no georeferencing found)")


def vectorize_blocks(req: BlocksRequest, progress: Progress | None) -> BlocksOutcome:
    """Segment the sheet and write its blocks (and shapes) to ``req.gpkg``."""
    from ..core.blocks import BlockSettings, segment_sheet, write_outputs
    from ..core.progress import sub_progress
    from .jobs import resolve_mask

    georef, placed_by = find_georeference(req.sheet, req.georef)
    mask = resolve_mask(req.sheet, req.mask)
    seg = segment_sheet(req.sheet, None if mask is None else str(mask), level=req.level,
                        settings=BlockSettings.for_level(req.level),
                        progress=sub_progress(progress, 0.0, 0.8))
    write_outputs(seg, req.level, req.png, req.gpkg, source=req.sheet.name, georef=georef,
                  tolerance=req.tolerance, progress=sub_progress(progress, 0.8, 1.0))
    counts = {"blocks": int(seg.n_blocks)}
    if req.level == "shapes":
        counts["shapes"] = int(seg.n_shapes)
    return BlocksOutcome(req.gpkg, LEVEL_LAYERS[req.level], counts,
                         georef.crs_wkt if georef is not None else None, placed_by, req.sheet)
