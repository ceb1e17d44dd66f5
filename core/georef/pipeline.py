"""``georeference()``: from a scanned sheet to a georeferenced raster, GCP files and reports.

Pixel positions of GCPs, anchors and outputs follow GDAL and QGIS: x right, y down, the
centre of the top-left pixel at (0.5, 0.5). Detected intersections (core's default: integer
coordinates are pixel centres) are shifted by half a pixel on the way in.

Steps: detect the graticule (or take a given :class:`GraticuleResult`), name the
intersections from anchors or known GCPs (:mod:`.grid_labels`) or, when none is given,
from the grid values printed on the sheet (:func:`core.gridlabels.read_grid_labels`, which
refuses with the candidates when they do not name the grid surely), reproject
their grid coordinates to the output CRS, fit the transform while leaving out outliers
(:mod:`.robust`), then write into OUTDIR (default ``<stem>_georef/`` beside the input):

- ``<stem>.tif``: GeoTIFF; helmert/affine keep the original pixels with a geotransform,
  other kinds are warped (GDAL; projective with OpenCV), transparent outside the map area;
- ``<stem>.points``: QGIS georeferencer GCPs (rejected ones disabled);
- ``<stem>.vrt``: the original image with the used GCPs;
- ``<stem>.<x>w``: world file of the original image (helmert/affine only);
- ``<stem>.report.json`` and ``<stem>.report.html`` (with the grid labels read, if any);
- ``<stem>.labels.png`` with ``debug``: the labels read, boxed on the sheet;
- with ``cog``, the GeoTIFF is a Cloud-Optimized GeoTIFF (overviews included);
- with ``iiif`` (a IIIF image service URL), ``<stem>.allmaps.json``: an Allmaps
  Georeference Annotation of the used GCPs and the map area (:mod:`.allmaps`).

All files are written under temporary names and renamed at the end: an error or a
cancellation (:class:`core.progress.Cancelled` from the progress callback) leaves nothing.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .. import __version__
from ..atomic import atomic_outputs
from ..corrupt_jpeg import gdal_reads_checked
from ..errors import InputError, NoGraticuleError, option
from ..formats.qgis_points import GroundControlPoints, read_points_file, write_points_file
from ..graticule.result import GraticuleResult
from ..gridlabels import LabelsUnreadableError, read_grid_labels
from ..gridlabels.orient import north_word
from ..imageio import check_jpeg_data, check_readable_file, image_size
from ..mapseg_names import mask_for_input, sheet_id
from ..outputs import check_outputs, write_errors
from ..progress import ProgressCallback, report, sub_progress
from ..units import linear_unit_name
from . import allmaps
from . import crs as crsmod
from . import raster_output as ro
from . import report as rep
from .grid_labels import (
    CENTRE_TO_CORNER,
    Anchor,
    Labelling,
    label_intersections,
    parse_anchor,
)
from .robust import METHODS, robust_fit
from .transforms import (
    GDAL_ORDER,
    FittedTransform,
    check_configuration,
    check_kind,
    redundancy,
)

if TYPE_CHECKING:
    import pyproj

#: Grid spacing (grid-CRS units) with anchors or GCPs when none is given.
DEFAULT_SPACING = 1000.0
#: Default outlier threshold as a fraction of one grid cell in pixels (71 px for the Paris
#: atlas's 2363 px cells).
DEFAULT_THRESHOLD_CELLS = 0.03
Detector = Callable[..., GraticuleResult]
#: The map area detection searched, read or computed on first call (see _searched_area).
AreaMask = Callable[[], "np.ndarray | None"]
#: How to go on without detection (end of an error message).
GCPS_ONLY = (f"give the GCPs with {option('gcps')} FILE.points {option('gcps-only')}")
#: The warning of a fit whose residuals are 0 by construction (no redundancy).
NO_REDUNDANCY = ("no redundancy: {used} GCPs determine a {kind} transform exactly, so the "
                 "residuals are 0 whatever the GCPs are and the RMSE says nothing about "
                 "accuracy; add GCPs (anchors or a .points file){simpler}")


@dataclass
class GeorefResult:
    """What :func:`georeference` produced.

    Attributes:
        outputs: name ("tif", "points", "vrt", "world", "json", "html") -> written path.
        transform: the fitted transform (pixel -> output CRS).
        inliers: ``(N,)`` bool, the GCPs used; ``rejected`` lists the others (0-based).
        pixel_xy, map_xy: ``(N, 2)`` all GCPs (map in the output CRS); ``grid_xy`` in the
            grid CRS (None when the GCPs came from a file as they are).
        rmse_map, rmse_px: RMS residual of the used GCPs in map units and pixels.
        threshold_px: the outlier threshold used.
        labelling: how intersections were named (None with ``gcps_only``); with labels
            read from the sheet, ``labelling.labels`` lists them (see :attr:`labels`).
        warnings: sentences also written to the reports.
        report: the JSON report as a dict.
        graticule: the detection the GCPs came from (None with ``gcps_only``); GCP ``k`` is
            its intersection ``k``.
        grid_index: ``(N, 2)`` int, each GCP's (column, row) in that detection (column
            grows with x, row with y down), or None with ``gcps_only``.
        residual_px: ``(N, 2)`` map position sent back to the image minus the pixel
            position, in pixels (x right, y down).
        residual_map: ``(N, 2)`` fitted map position minus the GCP's map position, in
            output-CRS units.
        disabled: ``(N,)`` bool, the GCPs disabled in the ``.points`` file fitted with
            ``gcps_only`` (kept, left out of the fit; not outliers), or None.
    """

    outputs: dict[str, Path]
    transform: FittedTransform
    inliers: np.ndarray
    pixel_xy: np.ndarray
    map_xy: np.ndarray
    grid_xy: np.ndarray | None
    rmse_map: float
    rmse_px: float
    threshold_px: float
    labelling: Labelling | None
    warnings: list[str] = field(default_factory=list)
    report: dict = field(default_factory=dict)
    graticule: GraticuleResult | None = None
    grid_index: np.ndarray | None = None
    residual_px: np.ndarray | None = None
    residual_map: np.ndarray | None = None
    disabled: np.ndarray | None = None

    @property
    def labels(self) -> list[dict]:
        """The grid labels read on the sheet (empty when anchors or GCPs named the grid):
        one dict per word with ``box`` [x0, y0, x1, y1] (pixels, x right, y down), ``text``,
        ``value``, ``family`` (columns or rows), ``line``, ``used`` and ``why``."""
        return list(self.labelling.labels) if self.labelling is not None else []

    @property
    def rejected(self) -> list[int]:
        """0-based positions of the GCPs left out as outliers (not those disabled)."""
        left_out = ~self.inliers if self.disabled is None else ~self.inliers & ~self.disabled
        return [int(i) for i in np.flatnonzero(left_out)]


@dataclass
class GcpFit:
    """A transform fitted to GCPs, and every GCP's residuals (see :func:`fit_gcps`).

    Attributes:
        transform: the least-squares fit of the used GCPs (pixel -> output CRS).
        inliers: ``(N,)`` bool, the GCPs used: enabled and not left out as outliers.
        map_xy: ``(N, 2)`` every GCP in the output CRS.
        residual_px: ``(N, 2)`` ``inverse(map) - pixel`` of every GCP, used or not, pixels
            (x right, y down).
        residual_map: ``(N, 2)`` ``forward(pixel) - map`` of every GCP, output-CRS units.
        threshold_px: the outlier threshold, pixels.
        warnings: sentences about the fit (outliers, no redundancy, mirrored image).
    """

    transform: FittedTransform
    inliers: np.ndarray
    map_xy: np.ndarray
    residual_px: np.ndarray
    residual_map: np.ndarray
    threshold_px: float
    warnings: list[str]

    @property
    def rmse_px(self) -> float:
        """RMS residual length of the used GCPs, pixels."""
        return self.transform.rmse_px

    @property
    def rmse_map(self) -> float:
        """RMS residual length of the used GCPs, output-CRS units."""
        return self.transform.rmse_map


def default_points_file(input_path: Path) -> Path | None:
    """``<stem>.points`` or ``<NNN>.points`` (MapSeg sheet id) beside the input, if any."""
    for candidate in (input_path.with_suffix(".points"),
                      input_path.with_name(sheet_id(input_path) + ".points")):
        if candidate.is_file():
            return candidate
    return None


def default_outdir(input_path: Path) -> Path:
    """``<stem>_georef/`` beside the input."""
    return input_path.with_name(f"{input_path.stem}_georef")


def _resolve_mask(mask, input_path: Path, size: tuple[int, int]) -> Path | None:
    if mask is None or mask is False:
        return None
    if isinstance(mask, str) and mask == "auto":
        found = mask_for_input(input_path)
        if found is None:
            return None
        mask = found
    p = check_readable_file(mask)
    msize = image_size(p, min_side=1)   # compared with the image below
    if msize != size:
        raise InputError(f"mask {p} is {msize[0]} x {msize[1]} px but the image is "
                         f"{size[0]} x {size[1]} px; give the mask made for this image")
    return p


def _gcps_in(gcps: GroundControlPoints, target, what: str) -> np.ndarray:
    """Map coordinates of a GCP file in ``target`` CRS (file without #CRS: taken as is)."""
    if not gcps.crs:
        return gcps.map_xy.copy()
    try:
        src = crsmod.parse_crs(gcps.crs)
    except InputError:
        raise InputError(f"{what}: its #CRS line is not a CRS GDAL/PROJ understands; fix or "
                         "remove it") from None
    return crsmod.transform_points(gcps.map_xy, src, target)


def _cell_size_px(pixel_xy: np.ndarray, grid_xy: np.ndarray, spacing: float,
                  graticule: GraticuleResult | None) -> float:
    """Grid cell size in pixels: from the line families, else the median scale of pairs."""
    if graticule is not None:
        return float(np.mean([graticule.columns.spacing_px, graticule.rows.spacing_px]))
    i, j = np.triu_indices(len(pixel_xy), 1)
    dp = np.hypot(*(pixel_xy[i] - pixel_xy[j]).T)
    dg = np.hypot(*(grid_xy[i] - grid_xy[j]).T)
    ok = (dp > 0) & (dg > 0)
    if not np.any(ok):
        raise InputError("the GCPs coincide; give GCPs at different places")
    return float(spacing * np.median(dp[ok] / dg[ok]))


def _load_detector() -> Detector:
    try:
        from ..graticule import detect_on_sheet
    except ImportError:
        raise InputError("graticule detection is not available in this version; " + GCPS_ONLY,
                         field="gcps") from None
    return detect_on_sheet


def _detection_area(mask, mask_path: Path | None) -> str | None:
    """What the detector searches: the mask file, the computed map area ("compute": the
    default when no mask file is found) or the whole image (None: ``mask=False``)."""
    if mask_path is not None:
        return str(mask_path)
    if isinstance(mask, str) and mask == "auto":
        from ..graticule.sheet import COMPUTE

        return COMPUTE
    return None


def _points_file(gcps, inp: Path, keep_disabled: bool = False
                 ) -> tuple[Path | None, GroundControlPoints | None]:
    """The GCP file to use (explicit, default beside the input, or none) and its points
    (the enabled ones unless ``keep_disabled``); GCPs given as such have no file."""
    if isinstance(gcps, GroundControlPoints):
        return None, gcps if keep_disabled else gcps.only_enabled()
    if gcps is False:
        path = None
    elif gcps is None or gcps is True:
        path = default_points_file(inp)
    else:
        path = Path(gcps)
    if path is None:
        return None, None
    points = read_points_file(path)
    return path, points if keep_disabled else points.only_enabled()


def _labelled_detections(inp: Path, area: str | None, area_mask: AreaMask,
                         anchors: list[Anchor],
                         spacing: float | None, graticule: GraticuleResult | None,
                         detect: Detector | None, progress: ProgressCallback | None,
                         grid_crs=None, debug_picture: Path | None = None
                         ) -> tuple[np.ndarray, np.ndarray, float, Labelling,
                                    GraticuleResult]:
    """Detected intersections (GCP pixel convention), their grid coordinates, the cell size
    in pixels, the labelling (from the anchors, or from the labels printed on the sheet when
    there is none, :func:`core.gridlabels.read_grid_labels`; ``spacing`` None: the step the
    labels give) and the detection. ``debug_picture``: where the labels picture goes when
    the labels are refused (the only file such a run writes)."""
    if graticule is None:
        detector = detect or _load_detector()
        graticule = detector(str(inp), area, progress=sub_progress(progress, 0.0, 0.5))
    if len(graticule) == 0:
        raise NoGraticuleError(f"{inp}: no graticule intersection was found; " + GCPS_ONLY,
                               field="input", value=str(inp))
    if anchors:
        grid, labelling = label_intersections(graticule, anchors, spacing or DEFAULT_SPACING,
                                              _map_area_test(area, area_mask))
    else:
        report(progress, 0.45, "reading the grid labels")
        try:
            read = read_grid_labels(inp, graticule, crs=grid_crs, spacing=spacing)
        except LabelsUnreadableError as refused:
            refused.graticule = graticule   # what a review shows beside the labels read
            if debug_picture is not None:
                _write_labels_picture(inp, debug_picture, refused.labels)
            raise
        n = read.naming
        labelling = Labelling(orientation=n.orientation, origin=n.origin, spacing=n.spacing,
                              north_in_image=north_word(n.north), mirrored=False,
                              warnings=read.warnings, source="labels", labels=read.labels,
                              certainty=read.certainty, seconds=round(read.seconds, 3))
        grid = labelling.grid_coordinates(graticule.index)
    pixel = graticule.points + CENTRE_TO_CORNER  # detection -> GDAL/QGIS convention
    return (pixel, grid, _cell_size_px(pixel, grid, labelling.spacing, graticule), labelling,
            graticule)


def _searched_area(inp: Path, area: str | None) -> np.ndarray | None:
    """The map area detection searched, as an ``(H, W)`` mask (0 outside): the mask file
    read, or the map area computed again by ``core.maparea``; None when the whole image was
    searched (``area`` None, or no map was found) or the intersections were given."""
    if area is None or area == "given":
        return None
    from ..graticule.sheet import COMPUTE

    if area == COMPUTE:
        from ..maparea import map_area_mask

        mask = map_area_mask(inp)
        return mask if mask.any() else None
    from ..imageio import read_mask

    return read_mask(area)


def _map_area_test(area: str | None, area_mask: AreaMask):
    """``(K, 2)`` pixel positions (detection convention) -> ``(K,)`` bool: inside the map
    area detection searched (``area_mask()`` is called only when the test is); None when
    the whole image was searched or the intersections were given."""
    if area is None or area == "given":
        return None

    def in_map(pixel_xy: np.ndarray) -> np.ndarray:
        mask = area_mask()
        if mask is None:                       # no map found: the whole image was searched
            return np.ones(len(pixel_xy), dtype=bool)
        h, w = mask.shape
        ij = np.round(np.asarray(pixel_xy, dtype=np.float64)).astype(np.int64)
        ok = (ij[:, 0] >= 0) & (ij[:, 0] < w) & (ij[:, 1] >= 0) & (ij[:, 1] < h)
        out = np.zeros(len(ij), dtype=bool)
        out[ok] = mask[ij[ok, 1], ij[ok, 0]]
        return out

    return in_map


def _fit_warnings(fitted: FittedTransform, inliers: np.ndarray, threshold: float) -> list[str]:
    """Warnings about a fit; ``inliers``: the fit's inlier mask over the GCPs it was given."""
    warnings = []
    if redundancy(fitted.kind, int(inliers.sum())) <= 0:
        simpler = "" if fitted.kind == "helmert" else " or choose a transform with fewer unknowns"
        warnings.append(NO_REDUNDANCY.format(kind=fitted.kind, used=int(inliers.sum()),
                                             simpler=simpler))
    n_rej = int((~inliers).sum())
    if n_rej:
        warnings.append(f"{n_rej} of {len(inliers)} GCPs disagree by more than "
                        f"{threshold:.1f} px and were left out (see the table)")
    if fitted.geotransform is not None:
        det = np.linalg.det(np.array(fitted.geotransform)[[1, 2, 4, 5]].reshape(2, 2))
        if det > 0:
            warnings.append("the fitted transform mirrors the image (north and east do not "
                            "turn the usual way); check the anchors")
    return warnings


def fit_gcps(pixel_xy: np.ndarray, grid_xy: np.ndarray, grid_crs: str | pyproj.CRS,
             crs: str | pyproj.CRS, kind: str = "affine",
             *, enabled: np.ndarray | None = None, outliers: str = "magsac",
             threshold_px: float | None = None, cell_px: float | None = None,
             spacing: float = DEFAULT_SPACING) -> GcpFit:
    """Fit a transform to GCPs as :func:`georeference` does, residuals of every GCP.

    This is the fit of ``python -m core.georef --gcps-only`` (and of every run once the
    intersections are named): the grid coordinates are reprojected to ``crs``, the
    configuration checked in grid coordinates (where grid lines are exact), the enabled
    GCPs fitted robustly (``outliers``), and every GCP, enabled or not, gets its residuals.

    Args:
        pixel_xy: ``(N, 2)`` pixel positions, x right, y down, top-left corner of the image
            at (0, 0) (GDAL's and the ``.points`` convention).
        grid_xy: ``(N, 2)`` grid coordinates in ``grid_crs`` (easting, northing).
        grid_crs: the grid CRS (text :func:`.crs.parse_crs` reads, or a pyproj CRS).
        crs: the output CRS (text :func:`.crs.parse_crs` reads, or a pyproj CRS).
        kind: transform kind (helmert, affine, projective, poly2, poly3, tps).
        enabled: ``(N,)`` bool, the GCPs the fit may use (default all).
        outliers: magsac, ransac or none (every enabled GCP used).
        threshold_px: outlier threshold, pixels (default 3 % of a grid cell, at least 5).
        cell_px: size of a grid cell in pixels (default from the GCPs and ``spacing``).
        spacing: distance between grid lines, grid-CRS units (for ``cell_px``).

    Returns:
        GcpFit: the transform, the used GCPs, residuals and warnings.

    Raises:
        InputError: too few enabled GCPs for ``kind``, a degenerate configuration, points
            that cannot be reprojected.

    Examples:
        >>> import numpy as np
        >>> pixel = np.array([[0, 0], [700, 0], [0, 700], [700, 700], [350, 360.0]])
        >>> grid = np.array([[0, 1000], [1000, 1000], [0, 0], [1000, 0], [500, 500.0]])
        >>> fit = fit_gcps(pixel, grid, "EPSG:2154", "EPSG:2154", "affine",
        ...                outliers="none")
        >>> round(fit.rmse_px, 2), bool(fit.inliers.all())
        (4.0, True)
    """
    g_crs, out_crs = crsmod.parse_crs(grid_crs), crsmod.parse_crs(crs)
    kind = check_kind(kind)
    pixel = np.asarray(pixel_xy, dtype=np.float64).reshape(-1, 2)
    grid = np.asarray(grid_xy, dtype=np.float64).reshape(-1, 2)
    on = (np.ones(len(pixel), dtype=bool) if enabled is None
          else np.asarray(enabled, dtype=bool).reshape(-1))
    mapxy = crsmod.transform_points(grid, g_crs, out_crs)
    if cell_px is None:
        cell_px = _cell_size_px(pixel[on], grid[on], spacing, None)
    check_configuration(kind, pixel[on], grid[on])
    threshold = float(threshold_px) if threshold_px is not None else max(
        5.0, DEFAULT_THRESHOLD_CELLS * cell_px)
    fitted, kept = robust_fit(pixel[on], mapxy[on], kind, threshold_px=threshold,
                              method=outliers)
    check_configuration(kind, pixel[on][kept], grid[on][kept])
    inliers = np.zeros(len(pixel), dtype=bool)
    inliers[np.flatnonzero(on)[kept]] = True
    return GcpFit(transform=fitted, inliers=inliers, map_xy=mapxy,
                  residual_px=fitted.inverse(mapxy) - pixel,
                  residual_map=fitted.forward(pixel) - mapxy, threshold_px=threshold,
                  warnings=_fit_warnings(fitted, kept, threshold))


def georeference(input_path: str | os.PathLike, crs: str, *, grid_crs: str | None = None,
                 spacing: float | None = None, anchors: Sequence[str | Anchor] = (),
                 gcps: str | os.PathLike | bool | None = None, gcps_only: bool = False,
                 transform: str = "affine", outdir: str | os.PathLike | None = None,
                 mask: str | os.PathLike | bool | None = "auto",
                 resampling: str = "bilinear", threshold_px: float | None = None,
                 outliers: str = "magsac", overviews: bool = False, cog: bool = False,
                 iiif: str | None = None, iiif_version: int = 2,
                 graticule: GraticuleResult | None = None, detect: Detector | None = None,
                 debug: bool = False, progress: ProgressCallback | None = None
                 ) -> GeorefResult:
    """Georeference one sheet into ``crs``; see the module docstring for the outputs.

    Args:
        input_path: the scanned sheet (JPEG, PNG, TIFF).
        crs: output CRS (EPSG code, WKT, PROJ string or preset such as ``paris-atlas``).
        grid_crs: CRS the graticule is drawn in (default: ``crs``).
        spacing: distance between grid lines in grid-CRS units (None: the step of the
            labels read on the sheet, or :data:`DEFAULT_SPACING` with anchors or GCPs).
        anchors: ``"X,Y=E,N"`` strings or :class:`Anchor`: the node nearest pixel (X, Y) has
            grid coordinates (E, N).
        gcps: a QGIS ``.points`` file of known points (default: ``<stem>.points`` or
            ``<NNN>.points`` beside the input when present; False: none); each is snapped to
            the nearest detected node and acts as an anchor. Its ``#CRS`` may be either CRS
            (a file without ``#CRS`` is taken to be in the grid CRS).
        gcps_only: fit the ``gcps`` points as they are, without detection.
        transform: helmert, affine, projective, poly2, poly3 or tps.
        outdir: output directory (default ``<stem>_georef/`` beside the input).
        mask: map-area mask (0 = outside): a path, "auto" (``NNN-INPUT-MASK.png`` or
            ``<stem>-MASK.png`` beside the input if present; otherwise detection searches
            the map area computed by ``core.maparea``, and the GeoTIFF has no alpha) or
            None/False for none (the whole image is searched).
        resampling: near, bilinear, cubic or lanczos (warped kinds only).
        threshold_px: outlier threshold in pixels (default 3% of a grid cell).
        outliers: magsac, ransac or none.
        overviews: add internal overviews to the GeoTIFF (faster display, slower write).
        cog: write the GeoTIFF as a Cloud-Optimized GeoTIFF (GDAL's COG driver; overviews
            included).
        iiif: the IIIF image service URL of the sheet (http or https): also write
            ``<stem>.allmaps.json``, an Allmaps Georeference Annotation.
        iiif_version: IIIF Image API version of that service (2 or 3).
        graticule: a detection result to use instead of running the detector.
        detect: the detector, called as ``detect(image_path, mask, progress=...)`` where
            ``mask`` is a mask path, ``"compute"`` (find the map area) or None (whole image)
            (default ``core.graticule.detect_on_sheet``).
        debug: also write ``<stem>.labels.png``: the sheet with the grid labels read
            (green used, red left out) when the labels named the grid.
        progress: callback ``(fraction, message)``; raise Cancelled from it to stop.

    Raises:
        InputError: bad input of any kind, with a one-line message (nothing is written).
        core.progress.Cancelled: raised by ``progress`` (nothing is written).
    """
    inp = check_readable_file(input_path)
    size = image_size(inp)
    out_crs = crsmod.parse_crs(crs)
    g_crs = crsmod.parse_crs(grid_crs) if grid_crs else out_crs
    kind = check_kind(transform)
    if outliers not in METHODS:
        raise InputError(f"unknown outlier method {outliers!r}; choose one of "
                         f"{', '.join(METHODS)}")
    if resampling not in ro.RESAMPLING:
        raise InputError(f"unknown resampling {resampling!r}; choose one of "
                         f"{', '.join(ro.RESAMPLING)}")
    if spacing is not None and not (spacing > 0 and np.isfinite(spacing)):
        raise InputError(f"{option('spacing')} must be a positive distance, not {spacing}",
                         field="spacing", value=spacing)
    if iiif is not None:
        iiif = allmaps.check_iiif_url(iiif)
        if iiif_version not in allmaps.SERVICE_TYPES:
            raise InputError(f"{option('iiif-version')} must be 2 or 3, not {iiif_version}",
                             field="iiif-version", value=iiif_version)
    anchor_list = [a if isinstance(a, Anchor) else parse_anchor(a, f"{option('anchor')} {k + 1}")
                   for k, a in enumerate(anchors)]
    gcp_path, known = _points_file(gcps, inp, keep_disabled=gcps_only)
    if gcps_only and (known is None or not known.enabled.any()):
        raise InputError(f"{option('gcps-only')} needs a .points file with GCPs: give "
                         f"{option('gcps')} FILE.points", field="gcps")
    if gcps_only:
        check_jpeg_data(inp)   # no detection decodes it: corrupt data is refused here
    mask_path = _resolve_mask(mask, inp, size)
    out = Path(outdir) if outdir is not None else default_outdir(inp)
    check_outputs([*_output_paths(out, inp, True, iiif is not None).values(),
                   *([out / f"{inp.stem}.labels.png"] if debug else [])],
                  folders={"outdir": out}, inputs=[inp, mask_path, gcp_path])

    # ---- GCPs: pixel positions and grid / map coordinates
    labelling = None
    searched = None if gcps_only else (
        "given" if graticule is not None else _detection_area(mask, mask_path))
    # the searched map area, read or computed at most once, only if the anchor test or the
    # annotation asks for it
    area_mask = functools.cache(lambda: _searched_area(inp, searched))
    enabled = None
    if gcps_only:
        graticule = None
        pixel = known.pixel_xy.copy()
        grid = _gcps_in(known, g_crs, str(gcp_path or "the GCPs"))
        enabled = known.enabled.copy()
        cell_px = _cell_size_px(pixel[enabled], grid[enabled], spacing or DEFAULT_SPACING,
                                None)
    else:
        if known is not None and len(known):
            source = gcp_path.name if gcp_path is not None else "GCP"
            kgrid = _gcps_in(known, g_crs, str(gcp_path or "the GCPs"))
            anchor_list += [Anchor(tuple(p), tuple(g), f"{source} point {k + 1}")
                            for k, (p, g) in enumerate(zip(known.pixel_xy, kgrid,
                                                           strict=True))]
        pixel, grid, cell_px, labelling, graticule = _labelled_detections(
            inp, searched, area_mask, anchor_list, spacing, graticule, detect, progress,
            g_crs, (out / f"{inp.stem}.labels.png") if debug else None)
    report(progress, 0.5, "GCPs ready")

    # ---- robust fit (degeneracy is judged in grid coordinates, where lines are exact)
    fit = fit_gcps(pixel, grid, g_crs, out_crs, kind, enabled=enabled, outliers=outliers,
                   threshold_px=threshold_px, cell_px=cell_px)
    fitted, inliers, mapxy, threshold = fit.transform, fit.inliers, fit.map_xy, fit.threshold_px
    warnings = (labelling.warnings if labelling else []) + fit.warnings
    report(progress, 0.55, "transform fitted")

    # ---- outputs
    outputs = _output_paths(out, inp, fitted.is_affine, iiif is not None)
    if debug and labelling is not None and labelling.source == "labels":
        outputs["labels"] = out / f"{inp.stem}.labels.png"
    result = GeorefResult(outputs=outputs,
                          transform=fitted, inliers=inliers, pixel_xy=pixel, map_xy=mapxy,
                          grid_xy=grid, rmse_map=fitted.rmse_map, rmse_px=fitted.rmse_px,
                          threshold_px=threshold, labelling=labelling, warnings=warnings,
                          graticule=graticule,
                          grid_index=None if graticule is None else graticule.index.copy(),
                          residual_px=fit.residual_px, residual_map=fit.residual_map,
                          disabled=None if enabled is None else ~enabled)
    used_spacing = labelling.spacing if labelling is not None else spacing or DEFAULT_SPACING
    result.report = _report_dict(result, inp, size, mask_path, gcp_path, out_crs, g_crs,
                                 used_spacing, resampling, outliers, searched)
    annotation = None
    if iiif is not None:
        grid_drawn = None if crsmod.same_crs(g_crs, out_crs) else g_crs
        annotation = allmaps.annotation(
            iiif, size, pixel[inliers], mapxy[inliers], out_crs, kind,
            polygon=allmaps.mask_polygon(mask_path if mask_path is not None else area_mask(),
                                         size),
            grid_crs=grid_drawn, iiif_version=iiif_version)
    _write_outputs(result, inp, mask_path, resampling, overviews, progress, cog=cog,
                   annotation=annotation)
    return result


def _write_labels_picture(inp: Path, path: Path, labels: list[dict]) -> None:
    """The ``--debug`` labels picture of a refused reading (written alone, atomically)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_outputs([path]) as (tmp,):
        tmp.write_bytes(rep.labels_picture_png(inp, image_size(inp), labels))


def _output_paths(out: Path, inp: Path, affine: bool, iiif: bool = False) -> dict[str, Path]:
    stem = inp.stem
    names = {"tif": f"{stem}.tif", "points": f"{stem}.points", "vrt": f"{stem}.vrt",
             "json": f"{stem}.report.json", "html": f"{stem}.report.html"}
    if affine:
        names["world"] = stem + ro.world_file_suffix(inp.suffix)
    if iiif:
        names["allmaps"] = f"{stem}.allmaps.json"
    return {k: out / v for k, v in names.items()}


def _report_dict(r: GeorefResult, inp: Path, size: tuple[int, int], mask_path: Path | None,
                 gcp_path: Path | None, out_crs, g_crs, spacing: float, resampling: str,
                 outliers: str, searched: str | None) -> dict:
    """The JSON report (see docs/georef.md); ``searched`` is where detection looked (a mask
    path, "compute", "given" or None)."""
    t = r.transform
    return {
        "tool": f"graticule-georeferencer {__version__} core.georef",
        "input": str(inp), "image_size": list(size),
        "mask": None if mask_path is None else str(mask_path),
        "gcp_file": None if gcp_path is None else str(gcp_path),
        "detection_area": searched,
        "crs": {"output": crsmod.crs_label(out_crs), "grid": crsmod.crs_label(g_crs),
                "output_wkt": crsmod.crs_wkt(out_crs), "grid_wkt": crsmod.crs_wkt(g_crs),
                "unit": _unit(out_crs)},
        "spacing": spacing,
        "labelling": None if r.labelling is None else r.labelling.to_dict(),
        "transform": {"kind": t.kind, "params": t.params,
                      "geotransform": None if t.geotransform is None else list(t.geotransform),
                      "pixel_size": t.pixel_size(),
                      "resampling": None if t.is_affine else resampling},
        "sheet": _sheet_geometry(t, out_crs),
        "robust": {"method": outliers, "threshold_px": r.threshold_px,
                   "rejected": [i + 1 for i in r.rejected],
                   "disabled": [] if r.disabled is None else
                   [int(i) + 1 for i in np.flatnonzero(r.disabled)]},
        "summary": {"gcps": len(r.pixel_xy), "used": int(r.inliers.sum()),
                    "rejected": len(r.rejected),
                    "disabled": 0 if r.disabled is None else int(r.disabled.sum()),
                    "rmse_px": r.rmse_px, "rmse_map": r.rmse_map,
                    "redundancy": redundancy(t.kind, int(r.inliers.sum()))},
        "gcps": rep.gcp_table(r.pixel_xy, r.map_xy, r.grid_xy, r.inliers, r.residual_px,
                              r.residual_map, r.grid_index),
        "outputs": {k: str(v) for k, v in r.outputs.items()},
        "warnings": r.warnings,
    }


#: Metres per pixel of a scan at 300 dots per inch (the scale a pixel size implies).
PIXEL_300_DPI_M = 0.0254 / 300


def _sheet_geometry(t: FittedTransform, out_crs) -> dict:
    """What the fit implies of the sheet: a pixel's size on the ground (output-CRS units and
    metres), where north points (degrees clockwise from up) and the map's scale if the sheet
    was scanned at 300 dpi (an order of magnitude to check against the sheet's own)."""
    size = t.pixel_size()
    try:
        factor = float(out_crs.axis_info[0].unit_conversion_factor or 0.0)
    except (IndexError, AttributeError):
        factor = 0.0
    geographic = bool(getattr(out_crs, "is_geographic", False))
    metres = size * factor if factor and not geographic else None
    return {"pixel_size": size, "pixel_size_m": metres, "north_deg": round(t.north_deg(), 3),
            "scale_if_300_dpi": None if metres is None else round(metres / PIXEL_300_DPI_M)}


def _write_outputs(r: GeorefResult, inp: Path, mask_path: Path | None, resampling: str,
                   overviews: bool, progress: ProgressCallback | None, *, cog: bool = False,
                   annotation: dict | None = None) -> None:
    """Write every output under a temporary name; rename them all only at the end. With
    ``cog`` the GeoTIFF is written under a second temporary name, then copied as a COG. A
    write that fails (a full disk) is an InputError naming the GeoTIFF."""
    keys = list(r.outputs)
    with write_errors(r.outputs["tif"]), gdal_reads_checked(inp), \
            atomic_outputs([r.outputs[k] for k in keys]) as temps:
        tmp = dict(zip(keys, temps, strict=True))
        if not cog:
            _write_files(r, inp, tmp, tmp["tif"], mask_path, resampling, overviews,
                         sub_progress(progress, 0.55, 0.95))
        else:
            plain = tmp["tif"].with_name(f".{tmp['tif'].name}.plain.tif")
            try:
                _write_files(r, inp, tmp, plain, mask_path, resampling, False,
                             sub_progress(progress, 0.55, 0.8))
                ro.write_cog(plain, tmp["tif"], progress=sub_progress(progress, 0.8, 0.95))
            finally:
                plain.unlink(missing_ok=True)
        if annotation is not None:
            tmp["allmaps"].write_text(allmaps.to_json(annotation), encoding="utf-8")
        if "labels" in tmp:
            tmp["labels"].write_bytes(rep.labels_picture_png(inp, tuple(r.report["image_size"]),
                                                             r.labels))
        report(progress, 1.0, "done")


def _write_files(r: GeorefResult, inp: Path, tmp: dict[str, Path], tif: Path,
                 mask_path: Path | None, resampling: str, overviews: bool,
                 raster_progress: ProgressCallback | None) -> None:
    """The GeoTIFF (at ``tif``), GCP files and reports (at their ``tmp`` names)."""
    t, used = r.transform, r.inliers
    wkt = r.report["crs"]["output_wkt"]
    ro.write_gcp_vrt(inp, tmp["vrt"], r.pixel_xy[used], r.map_xy[used], wkt, mask_path,
                     final_dir=r.outputs["vrt"].parent)
    if t.is_affine:
        ro.write_geotiff_affine(inp, tif, t.geotransform, wkt, mask_path,
                                progress=raster_progress)
        tmp["world"].write_text(ro.format_world_file(t.geotransform), encoding="utf-8")
    elif t.kind == "projective":
        ro.warp_projective(inp, tif, t.matrix, wkt, mask_path,
                           resampling=resampling, progress=raster_progress)
    else:
        ro.warp_gcps(inp, tif, r.pixel_xy[used], r.map_xy[used], wkt,
                     order=GDAL_ORDER.get(t.kind), tps=t.kind == "tps",
                     mask_path=mask_path, resampling=resampling,
                     progress=raster_progress)
    if overviews:
        ro.build_overviews(tif)
    write_points_file(tmp["points"], GroundControlPoints(r.map_xy, r.pixel_xy, used, wkt),
                      r.residual_px)
    tmp["json"].write_text(rep.to_json(r.report), encoding="utf-8")
    png = rep.residual_plot_png(inp, tuple(r.report["image_size"]), r.pixel_xy,
                                r.residual_px, used,
                                f"{inp.name}: {t.kind}, RMSE {r.rmse_px:.2f} px")
    tmp["html"].write_text(rep.to_html(r.report, png), encoding="utf-8")


def _unit(crs) -> str:
    """The name of ``crs``'s linear unit as errors are reported in (``metre``; ``toise`` for
    Jacoubet's ``+to_meter=1.949``, :func:`core.units.linear_unit_name`)."""
    return linear_unit_name(crs, unknown="map units")
