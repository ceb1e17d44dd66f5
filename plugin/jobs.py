"""The work the plugin's tasks do, without any GUI: detection, georeferencing, blocks.

Each job is a function of plain values and a core progress callback, run in a worker
thread by :class:`plugin.tasks.CoreTask`; errors are core's InputError (one line for the
message bar).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .crs import crs_from_wkt
from .i18n import tr

Progress = Callable[[float, str], None]


def resolve_mask(sheet: Path, mask: str | Path | None) -> Path | None:
    """The map-area mask to use: the one given, else ``NNN-INPUT-MASK.png`` beside the sheet."""
    from ..core.imageio import check_readable_file
    from ..core.mapseg_names import mask_for_input

    if mask:
        return check_readable_file(mask)
    return mask_for_input(sheet)


def detection_area(sheet: Path, mask: str | Path | None) -> str:
    """What detection searches, as core takes it: the mask file given or found beside the
    sheet, else ``"compute"`` (the map area found by ``core.maparea``, as the command line
    does)."""
    from ..core.graticule.sheet import COMPUTE

    found = resolve_mask(sheet, mask)
    return COMPUTE if found is None else str(found)


def detect(sheet: Path, mask: str | Path | None, progress: Progress | None, *,
           spacing_px: float | None = None):
    """Detect the graticule intersections of ``sheet`` -> ``core`` GraticuleResult.

    ``mask``: the map-area mask (None: ``NNN-INPUT-MASK.png`` beside the sheet if present,
    else the computed map area); ``spacing_px``: the distance between grid lines in pixels
    if known.
    """
    from ..core.graticule import detect_on_sheet

    return detect_on_sheet(str(sheet), detection_area(sheet, mask), spacing_px=spacing_px,
                           progress=progress)


@dataclass
class GeorefRequest:
    """Everything the dialog asks for; CRSs as text core reads (authority code or WKT).

    ``anchors`` are ``"X,Y=E,N"`` strings (pixel x right, y down = grid coordinates);
    ``gcps`` a QGIS .points file (None: ``<stem>.points`` beside the sheet if present);
    ``graticule`` a detection already made (e.g. for picking an anchor), reused as is.
    """

    sheet: Path
    crs: str
    grid_crs: str
    spacing: float | None = None
    anchors: list[str] = field(default_factory=list)
    transform: str = "affine"
    outdir: Path | None = None
    mask: Path | None = None
    gcps: Path | None = None
    graticule: object | None = None


@dataclass
class GeorefOutcome:
    """A finished georeferencing: core's result, the detection used, the points layer file."""

    result: object
    graticule: object
    intersections: Path
    sheet: Path

    @property
    def raster(self) -> Path:
        return self.result.outputs["tif"]


def intersections_path(result) -> Path:
    """``<stem>.intersections.gpkg`` beside the georeferenced raster."""
    tif = Path(result.outputs["tif"])
    return tif.with_name(tif.stem + ".intersections.gpkg")


def georeference(req: GeorefRequest, progress: Progress | None) -> GeorefOutcome:
    """One core call (which detects unless ``req.graticule`` is given), then the
    intersections GeoPackage from the arrays core returns."""
    from ..core.georef import georeference as core_georeference
    from ..core.progress import report, sub_progress
    from .intersections import write_intersections_gpkg

    result = core_georeference(
        req.sheet, req.crs, grid_crs=req.grid_crs, spacing=req.spacing, anchors=req.anchors,
        gcps=req.gcps, transform=req.transform, outdir=req.outdir,
        mask=req.mask if req.mask else "auto", graticule=req.graticule,
        progress=sub_progress(progress, 0.0, 0.95))
    crs = crs_from_wkt(result.report["crs"]["output_wkt"])
    gpkg = write_intersections_gpkg(intersections_path(result), result, crs)
    report(progress, 1.0, tr("done"))
    return GeorefOutcome(result, result.graticule, gpkg, req.sheet)
