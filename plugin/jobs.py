"""The work the plugin's tasks do, without any GUI: detection, georeferencing, blocks.

Each job is a function of plain values and a core progress callback, run in a worker
thread by :class:`plugin.tasks.CoreTask` or by a Processing algorithm; errors are core's
InputError (one line for the message bar).

Building blocks: where the polygons go is core's decision (``core.blocks.find_georeference``:
the georeference given, the sheet's own, one beside the sheet, else pixel coordinates x =
column, y = -row, over the sheet opened unreferenced). Pixel convention of the polygons: x
right, y down, origin at the top-left corner of the top-left pixel (GDAL's), the same as a
geotransform's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .i18n import tr

Progress = Callable[[float, str], None]


def detect(sheet: Path, mask: str | Path | None, progress: Progress | None, *,
           spacing_px: float | None = None):
    """Detect the graticule intersections of ``sheet`` -> ``core`` GraticuleResult.

    ``mask``: the map-area mask (None: ``NNN-INPUT-MASK.png`` or ``<stem>-MASK.png`` beside
    the sheet if present, else the map area computed by ``core.maparea``, as the command
    line does);
    ``spacing_px``: the distance between grid lines in pixels if known.
    """
    from ..core.graticule import COMPUTE, detect_on_sheet
    from ..core.mapseg_names import sheet_mask

    return detect_on_sheet(sheet, sheet_mask(sheet, mask) or COMPUTE, spacing_px=spacing_px,
                           progress=progress)


@dataclass
class GeorefOutcome:
    """A finished georeferencing: core's result and the intersections GeoPackage."""

    result: object
    intersections: Path
    sheet: Path

    @property
    def raster(self) -> Path:
        return self.result.outputs["tif"]


def georeference(options: dict, progress: Progress | None) -> GeorefOutcome:
    """One call of ``core.georef.georeference(**options)`` (which detects unless
    ``options["graticule"]``, a detection already made, is given), then the intersections
    GeoPackage beside the georeferenced raster, from the arrays core returns."""
    from ..core.georef import georeference as core_georeference
    from ..core.progress import report, sub_progress
    from .layers import write_intersections_gpkg

    result = core_georeference(**options, progress=sub_progress(progress, 0.0, 0.95))
    tif = Path(result.outputs["tif"])
    gpkg = write_intersections_gpkg(tif.with_name(tif.stem + ".intersections.gpkg"), result)
    report(progress, 1.0, tr("done"))
    return GeorefOutcome(result, gpkg, Path(options["input_path"]))


@dataclass(frozen=True)
class SaveRequest:
    """A reviewed georeference to write: core's ``review``, the reviewed ``points``
    (``core.georef.review.ReviewPoints``) and transform ``kind``."""

    review: object
    points: object
    kind: str


def save_review(req: SaveRequest, progress: Progress | None) -> GeorefOutcome:
    """Write the reviewed GCPs' outputs (``core.georef.review.save_review``: the files of
    ``--gcps-only``), then the intersections GeoPackage beside them."""
    from ..core.georef.review import save_review as core_save
    from ..core.progress import report, sub_progress
    from .layers import write_intersections_gpkg

    result = core_save(req.review, req.points, req.kind,
                       progress=sub_progress(progress, 0.0, 0.95))
    tif = Path(result.outputs["tif"])
    gpkg = write_intersections_gpkg(tif.with_name(tif.stem + ".intersections.gpkg"), result)
    report(progress, 1.0, tr("done"))
    return GeorefOutcome(result, gpkg, Path(req.review.sheet))


@dataclass
class ReviewOutcome:
    """What the review panel opens: core's ``review`` (``core.georef.review.Review``), or
    the georeferencing ``outcome`` when the sheet was placed after all."""

    review: object
    outcome: GeorefOutcome | None = None


def georeference_for_review(options: dict, progress: Progress | None) -> ReviewOutcome:
    """Georeference a sheet (``options`` as for :func:`georeference`) to review it: its run
    opened for review, or, when the labels name nothing (core's refusal, which carries the
    detection), the refused sheet with what was read."""
    from ..core.georef.review import open_review, refused_review
    from ..core.gridlabels import LabelsUnreadableError

    try:
        outcome = georeference(options, progress)
    except LabelsUnreadableError as refusal:
        review = refused_review(options["input_path"], refusal, crs=options["crs"],
                                grid_crs=options.get("grid_crs"),
                                spacing=options.get("spacing"),
                                transform=options.get("transform", "affine"),
                                outdir=options.get("outdir"),
                                mask=options.get("mask") if options.get("mask") != "auto"
                                else None)
        return ReviewOutcome(review)
    return ReviewOutcome(open_review(outcome.result.outputs["json"]), outcome)


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
    from ..core.mapseg_names import sheet_mask
    from ..core.progress import sub_progress

    georef, placed_by = find_georeference(req.sheet, req.georef)
    mask = sheet_mask(req.sheet, req.mask)
    seg = segment_sheet(req.sheet, None if mask is None else str(mask), level=req.level,
                        settings=BlockSettings.for_level(req.level),
                        progress=sub_progress(progress, 0.0, 0.8))
    write_outputs(seg, req.level, req.png, req.gpkg, source=req.sheet.name, georef=georef,
                  tolerance=req.tolerance, progress=sub_progress(progress, 0.8, 1.0),
                  source_mtime=req.sheet.stat().st_mtime)
    counts = {"blocks": int(seg.n_blocks)}
    if req.level == "shapes":
        counts["shapes"] = int(seg.n_shapes)
    return BlocksOutcome(req.gpkg, LEVEL_LAYERS[req.level], counts, placed_by, req.sheet)
