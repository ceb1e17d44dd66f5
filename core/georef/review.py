"""Reviewing a georeference: a sheet's GCPs opened from its outputs, a ``.points`` file or a
refusal, refitted after every change with core's own fit, and saved through
:func:`.pipeline.georeference`.

A review is what the QGIS plugin's GCP panel edits, without any GUI here: the panel keeps
:class:`ReviewPoints` snapshots (its undo history) and calls :func:`refit` after each change
and :func:`save_review` to write. :func:`refit` is :func:`.pipeline.fit_gcps` with every
point marked used and nothing left out as an outlier (the reviewer decides, as in QGIS's
georeferencer): the numbers of ``python -m core.georef SHEET --gcps FILE.points --gcps-only
--outliers none`` on the same points, and of the default ``--gcps-only`` whenever its
outlier test keeps every enabled point. :func:`save_review` is that run.

Pixel positions: GCP convention (x right, y down, top-left CORNER of the image at (0, 0),
as in ``.points`` files once their y is negated back, and in GDAL); detected crossings are
shifted by :data:`.grid_labels.CENTRE_TO_CORNER` on the way in.

>>> import numpy as np
>>> points = ReviewPoints(pixel_xy=[[0, 0], [700, 0], [0, 700], [700, 700]],
...                       grid_xy=[[0, 1000], [1000, 1000], [0, 0], [1000, 0]])
>>> fit = refit(points, "EPSG:2154", "EPSG:2154", "affine")
>>> round(fit.rmse_px, 6), fit.used.tolist()
(0.0, [True, True, True, True])
>>> round(refit(points.with_used(0, False), "EPSG:2154", "EPSG:2154", "affine").rmse_px, 6)
0.0
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..formats.qgis_points import GroundControlPoints, read_points_file
from ..graticule.result import GraticuleResult
from ..gridlabels.reader import margin_of
from ..progress import ProgressCallback
from . import crs as crsmod
from .grid_labels import CENTRE_TO_CORNER, Anchor, label_intersections
from .pipeline import DEFAULT_SPACING, GeorefResult, default_points_file, fit_gcps, georeference
from .raster_output import world_file_suffix

#: The report a run writes in its output folder: ``<stem>.report.json``.
REPORT_SUFFIX = ".report.json"
_IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".tif", ".tiff")
_AUTHORITY = re.compile(r"^([A-Za-z]+:\d+)\b")


def _array2(values, fill: float = np.nan) -> np.ndarray:
    arr = np.asarray(values if values is not None else [], dtype=np.float64)
    return arr.reshape(-1, 2) if arr.size else np.full((0, 2), fill)


@dataclass(frozen=True)
class ReviewPoints:
    """The GCPs of a review: one immutable snapshot (a step of the undo history).

    Attributes
    ----------
    pixel_xy : ndarray, shape (N, 2), float64
        Pixel positions, x right, y down, top-left corner of the image at (0, 0).
    grid_xy : ndarray, shape (N, 2), float64
        Grid coordinates (easting, northing) in the review's grid CRS; NaN where not known
        yet (crossings of a refused sheet, a point just added).
    used : ndarray, shape (N,), bool
        The points the fit uses (only points with grid coordinates can be).
    index : ndarray, shape (N, 2), float64
        (column, row) of the detected crossing each point is, NaN for none.
    """

    pixel_xy: np.ndarray
    grid_xy: np.ndarray
    used: np.ndarray = None  # type: ignore[assignment]
    index: np.ndarray = None  # type: ignore[assignment]

    def __post_init__(self) -> None:
        pixel = _array2(self.pixel_xy)
        object.__setattr__(self, "pixel_xy", pixel)
        object.__setattr__(self, "grid_xy", _array2(self.grid_xy))
        n = len(pixel)
        used = np.ones(n, bool) if self.used is None else np.asarray(self.used, bool)
        index = np.full((n, 2), np.nan) if self.index is None else _array2(self.index)
        object.__setattr__(self, "used", used.reshape(-1) & self.known)
        object.__setattr__(self, "index", index)
        if not (len(self.grid_xy) == len(self.used) == len(self.index) == n):
            raise ValueError("pixel_xy, grid_xy, used and index must have the same length")
        for arr in (self.pixel_xy, self.grid_xy, self.used, self.index):
            arr.setflags(write=False)

    def __len__(self) -> int:
        return len(self.pixel_xy)

    @property
    def known(self) -> np.ndarray:
        """``(N,)`` bool: the points with grid coordinates."""
        return np.isfinite(self.grid_xy).all(axis=1)

    def _with(self, **arrays: np.ndarray) -> ReviewPoints:
        return replace(self, **arrays)

    def with_used(self, k: int, used: bool) -> ReviewPoints:
        """Point ``k`` used or not (a point without grid coordinates stays unused)."""
        flags = self.used.copy()
        flags[k] = bool(used)
        return self._with(used=flags)

    def with_grid(self, k: int, easting: float, northing: float) -> ReviewPoints:
        """Point ``k`` with other grid coordinates (NaN: unknown), used once both are
        known."""
        grid = self.grid_xy.copy()
        grid[k] = (easting, northing)
        flags = self.used.copy()
        flags[k] = flags[k] or not np.isfinite(self.grid_xy[k]).all()
        return self._with(grid_xy=grid, used=flags)

    def with_pixel(self, k: int, x: float, y: float) -> ReviewPoints:
        """Point ``k`` moved to pixel (x, y)."""
        pixel = self.pixel_xy.copy()
        pixel[k] = (x, y)
        return self._with(pixel_xy=pixel)

    def with_point(self, x: float, y: float, easting: float = np.nan,
                   northing: float = np.nan) -> ReviewPoints:
        """A new point at pixel (x, y), last, with grid coordinates if given."""
        return ReviewPoints(np.vstack([self.pixel_xy, [[x, y]]]),
                            np.vstack([self.grid_xy, [[easting, northing]]]),
                            np.append(self.used, True), np.vstack([self.index, [[np.nan] * 2]]))

    def without(self, k: int) -> ReviewPoints:
        """Point ``k`` removed."""
        keep = np.arange(len(self)) != k
        return ReviewPoints(self.pixel_xy[keep], self.grid_xy[keep], self.used[keep],
                            self.index[keep])

    def same_as(self, other: ReviewPoints) -> bool:
        """True when both snapshots hold the same values (NaN equal to NaN)."""
        return len(self) == len(other) and all(
            np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
            for a, b in ((self.pixel_xy, other.pixel_xy), (self.grid_xy, other.grid_xy),
                         (self.used, other.used), (self.index, other.index)))

    def as_gcps(self, grid_crs: str) -> GroundControlPoints:
        """The points with grid coordinates as QGIS GCPs in ``grid_crs`` (unused ones
        disabled), as :func:`save_review` hands them to :func:`.pipeline.georeference`."""
        k = self.known
        return GroundControlPoints(self.grid_xy[k], self.pixel_xy[k], self.used[k],
                                   crs=crsmod.crs_wkt(crsmod.parse_crs(grid_crs)))


@dataclass(frozen=True)
class ReviewFit:
    """The fit of one snapshot (see :func:`refit`).

    Attributes
    ----------
    kind : str
        The transform fitted.
    used : ndarray, shape (N,), bool
        The points the fit used.
    map_xy : ndarray, shape (N, 2)
        Each point's grid coordinates in the output CRS (NaN where unknown).
    residual_px : ndarray, shape (N, 2)
        ``inverse(map) - pixel`` of every point with grid coordinates, used or not, pixels
        (x right, y down); NaN for the others and when there is no fit.
    residual_map : ndarray, shape (N, 2)
        ``forward(pixel) - map``, output-CRS units.
    rmse_px, rmse_map : float
        RMS residual length of the used points (NaN without a fit).
    warnings : list of str
        Sentences about the fit (no redundancy, mirrored image).
    error : InputError or None
        Why there is no fit (too few points, points on one line; each front end words it
        with ``error.render``); None when there is one.
    transform : FittedTransform or None
        The fitted transform (pixel -> output CRS).
    """

    kind: str
    used: np.ndarray
    map_xy: np.ndarray
    residual_px: np.ndarray
    residual_map: np.ndarray
    rmse_px: float = float("nan")
    rmse_map: float = float("nan")
    warnings: list[str] = field(default_factory=list)
    error: InputError | None = None
    transform: object = None

    @property
    def ok(self) -> bool:
        """True when the points were fitted."""
        return self.error is None


def refit(points: ReviewPoints, crs: str, grid_crs: str, kind: str = "affine",
          *, spacing: float | None = None) -> ReviewFit:
    """Fit ``kind`` to the used points, every point marked used (no outlier test).

    Parameters
    ----------
    points : ReviewPoints
        The snapshot to fit.
    crs, grid_crs : str
        Output CRS and grid CRS (anything :func:`.crs.parse_crs` reads).
    kind : str
        helmert, affine, projective, poly2, poly3 or tps.
    spacing : float, optional
        Grid spacing, grid-CRS units (only for the cell size in warnings).

    Returns
    -------
    ReviewFit
        With ``error`` set (and NaN residuals) when the used points cannot be fitted: the
        reviewer sees why and goes on editing. A CRS core cannot read is an InputError.

    Examples
    --------
    >>> p = ReviewPoints([[0, 0], [700, 0], [0, 700]], [[0, 1000], [1000, 1000], [0, 0]])
    >>> fit = refit(p.with_used(2, False), "EPSG:2154", "EPSG:2154", "affine")
    >>> fit.ok, str(fit.error).split(";")[0]
    (False, 'the affine transform needs at least 3 GCPs, got 2')
    """
    out_crs, g_crs = crsmod.parse_crs(crs), crsmod.parse_crs(grid_crs)
    n = len(points)
    known = points.known
    map_xy = np.full((n, 2), np.nan)
    if known.any():
        map_xy[known] = crsmod.transform_points(points.grid_xy[known], g_crs, out_crs)
    blank = np.full((n, 2), np.nan)
    try:
        fit = fit_gcps(points.pixel_xy[known], points.grid_xy[known], g_crs, out_crs, kind,
                       enabled=points.used[known], outliers="none",
                       spacing=spacing or DEFAULT_SPACING)
    except InputError as exc:
        return ReviewFit(kind, points.used.copy(), map_xy, blank, blank.copy(), error=exc)
    res_px, res_map = blank, blank.copy()
    res_px[known], res_map[known] = fit.residual_px, fit.residual_map
    used = np.zeros(n, bool)
    used[known] = fit.inliers
    return ReviewFit(kind, used, map_xy, res_px, res_map, fit.rmse_px, fit.rmse_map,
                     list(fit.warnings), None, fit.transform)


@dataclass
class Review:
    """A sheet opened for review: where it comes from and what was read on it.

    Attributes
    ----------
    sheet : Path
        The scanned sheet.
    crs, grid_crs : str
        Output CRS and grid CRS, as WKT (or any text :func:`.crs.parse_crs` reads).
    transform : str
        The transform kind of the run opened (the reviewer may choose another).
    points : ReviewPoints
        The GCPs as opened.
    outdir : Path
        Where :func:`save_review` writes (the run's output folder).
    mask : Path or None
        The map-area mask the run used.
    crossings : ndarray, shape (K, 2)
        Detected crossings, GCP convention: where a moved point may snap to.
    spacing : float or None
        Grid spacing in grid-CRS units, when known.
    labels : list of dict
        The grid labels read on the sheet (``box``, ``text``, ``value``, ``family``,
        ``line``, ``used``, ``why``; other keys kept as read).
    refusal : InputError or None
        The refusal of a refused sheet (its one line: ``str(refusal)``, or
        ``refusal.render`` as each front end words options).
    certainty : float or None
        The labelling's certainty when the reader gives one.
    candidates : list
        Other readings the labelling considered, as the reader gives them.
    warnings : list of str
        The run's warnings.
    graticule : GraticuleResult or None
        The detection, when opened from a refusal (its crossings get named from typed
        values, :func:`name_crossings`).
    source : Path or None
        The file the review was read from (report, .points), None for a refusal.
    """

    sheet: Path
    crs: str
    grid_crs: str
    transform: str
    points: ReviewPoints
    outdir: Path
    mask: Path | None = None
    crossings: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    spacing: float | None = None
    labels: list[dict] = field(default_factory=list)
    refusal: InputError | None = None
    certainty: float | None = None
    candidates: list = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    graticule: GraticuleResult | None = None
    source: Path | None = None

    @property
    def refused(self) -> bool:
        """True when the sheet was refused (nothing names its crossings yet)."""
        return self.refusal is not None


# --------------------------------------------------------------------------- opening

def find_report(path: str | os.PathLike) -> Path | None:
    """The run report for ``path``: the file itself (``*.report.json``), the only report
    in a folder, or ``<stem>_georef/<stem>.report.json`` beside a sheet; None if none."""
    p = Path(path)
    if p.is_file() and p.name.endswith(REPORT_SUFFIX):
        return p
    if p.is_dir():
        reports = sorted(p.glob(f"*{REPORT_SUFFIX}"))
        return reports[0] if len(reports) == 1 else None
    beside = p.with_name(f"{p.stem}_georef") / f"{p.stem}{REPORT_SUFFIX}"
    return beside if beside.is_file() else None


def open_review(path: str | os.PathLike, *, crs: str | None = None,
                grid_crs: str | None = None, transform: str = "affine",
                sheet: str | os.PathLike | None = None) -> Review:
    """Open a sheet for review.

    Parameters
    ----------
    path : path
        A run's output folder or its ``<stem>.report.json``; a sheet (its
        ``<stem>_georef/`` run if there is one, else ``<stem>.points`` or ``NNN.points``
        beside it); or a ``.points`` file (with ``sheet``, or a sheet of the same stem
        beside it).
    crs : str, optional
        Output CRS for a ``.points`` file without a run (default: the file's CRS).
    grid_crs : str, optional
        Grid CRS for a ``.points`` file without ``#CRS`` (default ``crs``); a file's own
        CRS is used as the grid CRS.
    transform : str
        Transform kind for a ``.points`` file without a run.
    sheet : path, optional
        The scanned sheet of a ``.points`` file.

    Returns
    -------
    Review

    Raises
    ------
    InputError
        Nothing to review at ``path``, an unreadable report, a missing sheet.
    """
    p = Path(path)
    if not p.exists():
        raise InputError(f"{p}: no such file or folder; choose a run's output folder, a "
                         "sheet or a .points file")
    report = find_report(p)
    if report is not None:
        return _from_report(report)
    if p.is_dir():
        reports = len(list(p.glob(f"*{REPORT_SUFFIX}")))
        if reports > 1:
            raise InputError(f"{p} holds the runs of {reports} sheets; open one of their "
                             f"<sheet>{REPORT_SUFFIX} files")
        raise InputError(f"{p} holds no run report (<sheet>.report.json); choose the output "
                         "folder of one sheet, or the sheet itself")
    if p.suffix.lower() == ".points":
        image = Path(sheet) if sheet is not None else _sheet_beside(p)
        return _from_points(p, image, crs, grid_crs, transform)
    points = default_points_file(p)
    if points is None:
        raise InputError(f"{p}: no run of it (<stem>_georef/) and no .points file beside it; "
                         "georeference it first, or give its .points file")
    return _from_points(points, p, crs, grid_crs, transform)


def _sheet_beside(points: Path) -> Path:
    for suffix in _IMAGE_SUFFIXES:
        for name in (points.stem, f"{points.stem}-INPUT"):
            candidate = points.with_name(name + suffix)
            if candidate.is_file():
                return candidate
    raise InputError(f"{points}: no sheet of the same name beside it; give the sheet too")


def _check_sheet(sheet: Path, where: Path) -> Path:
    if not sheet.is_file():
        raise InputError(f"{where} is about the sheet {sheet}, which is missing; put it back "
                         "or open the sheet with its .points file")
    return sheet


def _grid_crs_of(report: dict) -> tuple[str, bool]:
    """The grid CRS of a report (WKT) and whether it was known (reports before the
    ``grid_wkt`` key name it by label only: its authority code is taken when it has one)."""
    crs = report.get("crs") or {}
    if crs.get("grid_wkt"):
        return crs["grid_wkt"], True
    code = _AUTHORITY.match(str(crs.get("grid", "")))
    if code:
        return crsmod.crs_wkt(crsmod.parse_crs(code.group(1))), True
    return crs["output_wkt"], False


def _from_report(path: Path) -> Review:
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
        out_wkt = report["crs"]["output_wkt"]
        rows = report["gcps"]
        kind = report["transform"]["kind"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InputError(f"{path} is not a report of core.georef ({exc}); open the run's "
                         "output folder again or run it again") from None
    sheet = _check_sheet(Path(report["input"]), path)
    grid_wkt, grid_known = _grid_crs_of(report)
    pixel = _array2([r["pixel"] for r in rows])
    if grid_known and all(r.get("grid") is not None for r in rows):
        grid = _array2([r["grid"] for r in rows])
    else:   # the map coordinates, taken as grid coordinates in the output CRS
        grid, grid_wkt = _array2([r["map"] for r in rows]), out_wkt
    index = _array2([r.get("index") or [np.nan, np.nan] for r in rows])
    used = np.array([bool(r["used"]) for r in rows], dtype=bool)
    labelling = report.get("labelling") or {}
    mask = Path(report["mask"]) if report.get("mask") else None
    return Review(sheet=sheet, crs=out_wkt, grid_crs=grid_wkt, transform=kind,
                  points=ReviewPoints(pixel, grid, used, index), outdir=path.parent,
                  mask=mask if mask is not None and mask.is_file() else None,
                  crossings=pixel.copy(), spacing=report.get("spacing"),
                  labels=list(labelling.get("labels") or []),
                  certainty=margin_of(labelling.get("certainty")),
                  candidates=list(labelling.get("candidates") or []),
                  warnings=list(report.get("warnings") or []), source=path)


def _from_points(points_path: Path, sheet: Path, crs: str | None, grid_crs: str | None,
                 transform: str) -> Review:
    gcps = read_points_file(points_path)
    if len(gcps) == 0:
        raise InputError(f"{points_path} holds no GCP; give a .points file with points")
    if gcps.crs:
        grid_text = gcps.crs      # the file's coordinates are the grid values shown
    elif grid_crs or crs:
        grid_text = grid_crs or crs
    else:
        raise InputError(f"{points_path} has no #CRS line; choose the CRS of its coordinates")
    g_crs = crsmod.parse_crs(grid_text)
    out_crs = crsmod.parse_crs(crs) if crs else g_crs
    return Review(sheet=_check_sheet(sheet, points_path), crs=crsmod.crs_wkt(out_crs),
                  grid_crs=crsmod.crs_wkt(g_crs), transform=transform,
                  points=ReviewPoints(gcps.pixel_xy, gcps.map_xy, gcps.enabled),
                  outdir=sheet.with_name(f"{sheet.stem}_georef"),
                  crossings=gcps.pixel_xy.copy(), source=points_path)


def refused_review(sheet: str | os.PathLike, refusal: InputError, *, crs: str,
                   grid_crs: str | None = None, spacing: float | None = None,
                   transform: str = "affine", outdir: str | os.PathLike | None = None,
                   mask: str | os.PathLike | None = None,
                   graticule: GraticuleResult | None = None) -> Review:
    """A review of a sheet the labels did not name: every detected crossing a point
    without grid coordinates, and what was read.

    Parameters
    ----------
    sheet : path
        The scanned sheet.
    refusal : InputError
        The refusal (``core.gridlabels.LabelsUnreadableError``): its ``labels``,
        the ``graticule`` it carries, and a ``certainty`` and ``candidates`` when the
        reader gives them, are read when present.
    crs, grid_crs : str
        Output and grid CRS of the run (grid default: ``crs``).
    spacing : float, optional
        Grid spacing, grid-CRS units (default: 1000, as with anchors).
    transform, outdir, mask
        As for :func:`.pipeline.georeference`.
    graticule : GraticuleResult, optional
        The detection when the refusal carries none.

    Raises
    ------
    InputError
        No detection to review (the refusal came before detection).
    """
    graticule = graticule if graticule is not None else getattr(refusal, "graticule", None)
    image = Path(sheet)
    if graticule is None or len(graticule) == 0:
        raise InputError(f"{image}: no detected crossing to review; {refusal}")
    crossings = graticule.points + CENTRE_TO_CORNER
    g_text = grid_crs or crs
    return Review(sheet=image, crs=crsmod.crs_wkt(crsmod.parse_crs(crs)),
                  grid_crs=crsmod.crs_wkt(crsmod.parse_crs(g_text)), transform=transform,
                  points=ReviewPoints(crossings, np.full(crossings.shape, np.nan),
                                      np.zeros(len(crossings), bool),
                                      graticule.index.astype(np.float64)),
                  outdir=Path(outdir) if outdir else image.with_name(f"{image.stem}_georef"),
                  mask=Path(mask) if mask else None, crossings=crossings.copy(),
                  spacing=spacing, labels=list(getattr(refusal, "labels", []) or []),
                  refusal=refusal, certainty=getattr(refusal, "certainty", None),
                  candidates=list(getattr(refusal, "candidates", []) or []),
                  graticule=graticule)


# --------------------------------------------------------------------------- editing

def name_crossings(review: Review, points: ReviewPoints) -> tuple[ReviewPoints, list[str]]:
    """The crossings of a refused sheet named from the points given grid coordinates.

    Every point that is a detected crossing and has grid coordinates is an anchor
    (:func:`.grid_labels.label_intersections`: one anchor takes the sheet as north-up,
    two fix any rotation); every crossing then gets its grid coordinates and is used.
    Points that are no crossing keep theirs. Without a detection, or without any anchor
    yet, ``points`` come back unchanged.

    Returns
    -------
    (ReviewPoints, list of str)
        The named points and the labelling's warnings.

    Raises
    ------
    InputError
        An anchor names no crossing of the sheet, or the anchors disagree.
    """
    graticule = review.graticule
    crossing = np.isfinite(points.index).all(axis=1)
    anchors_at = np.flatnonzero(crossing & points.known)
    if graticule is None or len(anchors_at) == 0:
        return points, []
    anchors = [Anchor(tuple(points.pixel_xy[k]), tuple(points.grid_xy[k]), f"point {k + 1}")
               for k in anchors_at]
    grid, labelling = label_intersections(graticule, anchors,
                                          review.spacing or DEFAULT_SPACING)
    lookup = {tuple(ij): g for ij, g in zip(graticule.index.tolist(), grid, strict=True)}
    named = points.grid_xy.copy()
    used = points.used.copy()
    for k in np.flatnonzero(crossing):
        g = lookup.get(tuple(int(v) for v in points.index[k]))
        if g is not None and not points.known[k]:
            named[k], used[k] = g, True
    return replace(points, grid_xy=named, used=used), list(labelling.warnings)


def nearest_crossing(review: Review, xy: tuple[float, float],
                     max_px: float | None = None) -> tuple[float, float] | None:
    """The detected crossing nearest pixel ``xy`` (GCP convention), within ``max_px``
    (default: a quarter of the distance between neighbouring crossings); None if none."""
    crossings = review.crossings
    if len(crossings) == 0:
        return None
    d = np.hypot(*(crossings - np.asarray(xy, dtype=np.float64)).T)
    k = int(np.argmin(d))
    limit = max_px if max_px is not None else 0.25 * crossing_spacing(crossings)
    return (float(crossings[k, 0]), float(crossings[k, 1])) if d[k] <= limit else None


def crossing_spacing(crossings: np.ndarray) -> float:
    """Median distance from each crossing to its nearest neighbour, pixels (inf for fewer
    than two)."""
    pts = np.asarray(crossings, dtype=np.float64).reshape(-1, 2)
    if len(pts) < 2:
        return float("inf")
    d = np.hypot(*(pts[:, None, :] - pts[None, :, :]).transpose(2, 0, 1))
    np.fill_diagonal(d, np.inf)
    return float(np.median(d.min(axis=1)))


# --------------------------------------------------------------------------- saving

def save_review(review: Review, points: ReviewPoints, kind: str, *,
                outdir: str | os.PathLike | None = None,
                progress: ProgressCallback | None = None) -> GeorefResult:
    """Write the reviewed georeference: ``.points``, GeoTIFF, VRT, world file and reports,
    atomically, through :func:`.pipeline.georeference` with the points as GCPs
    (``gcps_only``, no outlier test): the files ``python -m core.georef SHEET --crs CRS
    --grid-crs GRID --gcps FILE.points --gcps-only --outliers none --transform KIND`` writes
    for the same points. A world file of an earlier affine run that the new kind does not
    have is removed. Points without grid coordinates are not written.

    Raises
    ------
    InputError
        Too few used points for ``kind``, an output that cannot be written (nothing is
        written then).
    core.progress.Cancelled
        Raised by ``progress`` (nothing is written).
    """
    if not points.known.any():
        raise InputError("no point has grid coordinates yet; type the easting and northing "
                         "of one crossing first")
    target = Path(outdir) if outdir is not None else review.outdir
    result = georeference(review.sheet, review.crs, grid_crs=review.grid_crs,
                          spacing=review.spacing, gcps=points.as_gcps(review.grid_crs),
                          gcps_only=True, outliers="none", transform=kind, outdir=target,
                          mask=review.mask if review.mask is not None else "auto",
                          progress=progress)
    if "world" not in result.outputs:
        stale = target / f"{review.sheet.stem}{world_file_suffix(review.sheet.suffix)}"
        stale.unlink(missing_ok=True)
    return result
