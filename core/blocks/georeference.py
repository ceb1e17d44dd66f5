"""Pixel -> map coordinates from the output of ``core.georef`` (or any QGIS .points file).

``--georef`` names a ``<stem>_georef/`` directory (it holds ``<stem>.points`` and
``<stem>.report.json``) or a ``.points`` file directly. The enabled ground control points
are fitted with the transform the report names (affine when there is no report), using
``core.georef.transforms.fit_transform`` when it is available and a least-squares affine
otherwise. The CRS is the ``#CRS:`` line of the .points file.

Pixel coordinates: x right, y down, origin at the top-left corner of the top-left pixel
(QGIS and GDAL; ``.points`` files store -y, which core.formats.qgis_points flips back).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..formats.qgis_points import read_points_file
from ..mapseg_names import sheet_id
from ..units import linear_unit_name


@dataclass
class Georeference:
    """A fitted pixel -> map transform and the map CRS.

    Attributes:
        forward: ``(N, 2)`` pixel positions -> ``(N, 2)`` map coordinates.
        crs_wkt: WKT of the map CRS.
        kind: transform kind (affine, helmert, projective, poly2, poly3, tps).
        geographic: True when the CRS is in degrees (areas are then geodesic).
        unit: linear unit name of the CRS ("metre", "degree", "toise" ...:
            :func:`core.units.linear_unit_name`).
        points_file: the .points file used.
    """

    forward: Callable[[np.ndarray], np.ndarray]
    crs_wkt: str
    kind: str
    geographic: bool
    unit: str
    points_file: Path


def find_points_file(target: str | os.PathLike, stem: str | None = None) -> Path:
    """The .points file named by ``target`` (a file, or a directory holding one)."""
    p = Path(target)
    if p.is_file():
        if p.suffix.lower() != ".points":
            raise InputError(f"{p} is not a .points file; give the output directory of "
                             "core.georef or its .points file")
        return p
    if not p.is_dir():
        raise InputError(f"{p}: no such file or directory; give the output of core.georef")
    candidates = []
    if stem:
        candidates += [p / f"{stem}.points", p / f"{stem}_georef" / f"{stem}.points"]
        sheet = sheet_id(stem)       # a MapSeg sheet NNN-INPUT: also NNN.points (core.synth)
        if sheet != stem:
            candidates.append(p / f"{sheet}.points")
    for c in candidates:
        if c.is_file():
            return c
    found = sorted(p.glob("*.points"))
    if len(found) == 1:
        return found[0]
    if not found:
        raise InputError(f"{p} holds no .points file; run core.georef first or give the file")
    raise InputError(f"{p} holds {len(found)} .points files; give the one for this sheet")


def _transform_kind(points_file: Path) -> str:
    """The transform kind written by core.georef beside the .points file, else affine."""
    reports = [points_file.with_suffix(".report.json"),
               *sorted(points_file.parent.glob("*.report.json"))]
    for r in reports:
        if r.is_file():
            try:
                data = json.loads(r.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise InputError(f"{r} is not valid JSON; run core.georef again") from exc
            kind = (data.get("transform") or {}).get("kind") if isinstance(data, dict) else None
            if isinstance(kind, str):
                return kind.lower()
            break
    return "affine"


def _affine_fit(pixel: np.ndarray, mapxy: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    if len(pixel) < 3:
        raise InputError(f"an affine transform needs at least 3 enabled points, not "
                         f"{len(pixel)}")
    design = np.column_stack([pixel, np.ones(len(pixel))])
    if np.linalg.matrix_rank(design) < 3:
        raise InputError("the ground control points are collinear; an affine transform "
                         "needs points spread over the sheet")
    coef, *_ = np.linalg.lstsq(design, mapxy, rcond=None)

    def forward(xy: np.ndarray) -> np.ndarray:
        xy = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
        return np.column_stack([xy, np.ones(len(xy))]) @ coef

    return forward


def _parse_crs(text: str, source: Path):
    """A pyproj CRS, parsed by core.georef's parser (which also finds PROJ's data)."""
    from ..georef.crs import parse_crs

    try:
        return parse_crs(text)
    except InputError as exc:
        raise InputError(f"{source}: {exc}") from None


def load_georeference(target: str | os.PathLike, stem: str | None = None) -> Georeference:
    """Read and fit the georeference of a sheet (see the module docstring)."""
    points_file = find_points_file(target, stem)
    gcps = read_points_file(points_file).only_enabled()
    if not gcps.crs:
        raise InputError(f"{points_file} has no '#CRS:' line; save the GCPs with their CRS")
    crs = _parse_crs(gcps.crs, points_file)
    kind = _transform_kind(points_file)
    try:
        from ..georef.transforms import fit_transform
    except ImportError:
        fit_transform = None
    if fit_transform is not None:
        fitted = fit_transform(gcps.pixel_xy, gcps.map_xy, kind)
        forward = fitted.forward
    else:
        if kind not in ("affine", "helmert"):
            raise InputError(f"transform {kind!r} needs core.georef; install it or refit "
                             "with an affine transform")
        kind = "affine"
        forward = _affine_fit(gcps.pixel_xy, gcps.map_xy)
    unit = linear_unit_name(crs)
    return Georeference(forward, crs.to_wkt(), kind, bool(crs.is_geographic), unit, points_file)


def raster_georeference(sheet: str | os.PathLike) -> Georeference | None:
    """The sheet's own georeference (a GeoTIFF with a geotransform and a CRS, such as the
    raster ``core.georef`` writes), or None when the file has none."""
    from osgeo import gdal

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
    crs = _parse_crs(wkt, Path(sheet))
    a = np.array(gt, dtype=np.float64)

    def forward(xy: np.ndarray) -> np.ndarray:
        xy = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
        return np.column_stack([a[0] + a[1] * xy[:, 0] + a[2] * xy[:, 1],
                                a[3] + a[4] * xy[:, 0] + a[5] * xy[:, 1]])

    unit = linear_unit_name(crs)
    return Georeference(forward, crs.to_wkt(), "affine", bool(crs.is_geographic), unit,
                        Path(sheet))


def find_georeference(sheet: str | os.PathLike,
                      given: str | os.PathLike | None = None
                      ) -> tuple[Georeference | None, str]:
    """Where a sheet's polygons go, and a short note saying so.

    The first that applies: ``given`` (a ``.points`` file or a ``core.georef`` output
    folder); the sheet's own geotransform and CRS; ``<stem>_georef/<stem>.points`` beside
    the sheet (``core.georef``'s default output); ``<sheet file name>.points`` beside it
    (where QGIS's georeferencer saves GCPs); else None: pixel coordinates.

    Returns
    -------
    (Georeference or None, note)
        ``note`` is one phrase, e.g. ``"georeferenced with 001.points"``.
    """
    sheet = Path(sheet)
    if given is not None:
        georef = load_georeference(given, sheet.stem)
        return georef, f"georeferenced with {georef.points_file.name}"
    own = raster_georeference(sheet)
    if own is not None:
        return own, "georeferenced like the sheet"
    for candidate in (sheet.with_name(f"{sheet.stem}_georef") / f"{sheet.stem}.points",
                      sheet.with_name(sheet.name + ".points")):
        if candidate.is_file():
            georef = load_georeference(candidate, sheet.stem)
            return georef, f"georeferenced with {candidate.name}"
    return None, "in pixel coordinates (no georeference found)"
