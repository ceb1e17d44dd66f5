"""QGIS georeferencer ground control point files (``.points``).

Layout (QGIS 3.x)::

    #CRS: <WKT or PROJ string of the map coordinates>
    mapX,mapY,sourceX,sourceY,enable,dX,dY,residual
    -1000,2000,2276.1,-1667.5,1,0.12,-0.3,0.32

``sourceX`` is the pixel column and ``sourceY`` is MINUS the pixel row (QGIS puts the
image in the plane with y up). In this module's arrays pixel y points down: the sign is
flipped on reading and writing. The positions are raster coordinates as QGIS and GDAL use
them: the image's top-left CORNER is (0, 0), so the centre of pixel (i, j) is
(i + 0.5, j + 0.5) — half a pixel off ``core``'s own convention (pixel centres at integers,
as in MapSeg and OpenCV): add :data:`PIXEL_CENTRE` to core positions before writing them.
Older files have no ``#CRS`` line and may call the source columns ``pixelX,pixelY``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..atomic import write_text_atomic
from ..errors import InputError
from ..limits import MAX_MAP_COORD, MAX_PIXEL_COORD, coordinate_problem

HEADER = "mapX,mapY,sourceX,sourceY,enable,dX,dY,residual"
#: Raster (QGIS/GDAL) coordinate of a pixel's centre minus core's: core positions + this.
PIXEL_CENTRE = 0.5


@dataclass
class GroundControlPoints:
    """Pairs of map coordinates and pixel positions.

    Attributes:
        map_xy: ``(N, 2)`` map coordinates in the units of ``crs`` (easting, northing).
        pixel_xy: ``(N, 2)`` raster positions, x right, y DOWN, top-left corner at (0, 0).
        enabled: ``(N,)`` bool; disabled points are kept but not used for fitting.
        crs: the CRS text from the ``#CRS:`` line (WKT or PROJ), or None.
    """

    map_xy: np.ndarray
    pixel_xy: np.ndarray
    enabled: np.ndarray = field(default=None)  # type: ignore[assignment]
    crs: str | None = None

    def __post_init__(self) -> None:
        self.map_xy = np.asarray(self.map_xy, dtype=np.float64).reshape(-1, 2)
        self.pixel_xy = np.asarray(self.pixel_xy, dtype=np.float64).reshape(-1, 2)
        if self.enabled is None:
            self.enabled = np.ones(len(self.map_xy), dtype=bool)
        self.enabled = np.asarray(self.enabled, dtype=bool).reshape(-1)
        if not (len(self.map_xy) == len(self.pixel_xy) == len(self.enabled)):
            raise ValueError("map_xy, pixel_xy and enabled must have the same length")

    def __len__(self) -> int:
        return len(self.map_xy)

    def only_enabled(self) -> GroundControlPoints:
        """The enabled points only."""
        e = self.enabled
        return GroundControlPoints(self.map_xy[e], self.pixel_xy[e], None, self.crs)


def read_points_file(path: str | os.PathLike) -> GroundControlPoints:
    """Read a QGIS ``.points`` file; InputError with the line number on malformed content."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{p}: no such file; check the path")
    try:
        lines = p.read_text(encoding="utf-8-sig").splitlines()
    except UnicodeDecodeError as exc:
        raise InputError(f"{p} is not a text file; give a QGIS .points file") from exc
    crs = None
    columns: list[str] | None = None
    rows: list[tuple[float, float, float, float, bool]] = []
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            if stripped[1:].lstrip().upper().startswith("CRS:"):
                crs = stripped.split(":", 1)[1].strip() or None
            continue
        if columns is None:
            columns = [c.strip().lower() for c in stripped.split(",")]
            columns = ["sourcex" if c == "pixelx" else "sourcey" if c == "pixely" else c
                       for c in columns]
            if not {"mapx", "mapy", "sourcex", "sourcey"} <= set(columns):
                raise InputError(f"{p}, line {number}: expected a header "
                                 f"'mapX,mapY,sourceX,sourceY[,enable,...]'")
            continue
        values = [v.strip() for v in stripped.split(",")]
        if len(values) < 4:
            raise InputError(f"{p}, line {number}: expected mapX,mapY,sourceX,sourceY")
        try:
            rec = dict(zip(columns, values, strict=False))
            mx, my = float(rec["mapx"]), float(rec["mapy"])
            sx, sy = float(rec["sourcex"]), float(rec["sourcey"])
            enabled = rec.get("enable", "1") not in ("0", "false", "False")
        except (ValueError, KeyError):
            raise InputError(f"{p}, line {number}: not numbers: {stripped!r}") from None
        problem = (coordinate_problem((mx, my), MAX_MAP_COORD)
                   or coordinate_problem((sx, sy), MAX_PIXEL_COORD, "px"))
        if problem:
            raise InputError(f"{p}, line {number}: {problem}; fix the point in the QGIS "
                             "Georeferencer or remove the line")
        rows.append((mx, my, sx, -sy, enabled))
    if columns is None:
        raise InputError(f"{p} holds no GCP table; give a QGIS georeferencer .points file")
    arr = np.array([r[:4] for r in rows], dtype=np.float64).reshape(-1, 4)
    return GroundControlPoints(arr[:, :2], arr[:, 2:], np.array([r[4] for r in rows], bool), crs)


def format_points_file(gcps: GroundControlPoints, residuals_px: np.ndarray | None = None) -> str:
    """The ``.points`` text; ``residuals_px`` ``(N, 2)`` fills dX, dY (pixels) and residual."""
    res = (np.zeros((len(gcps), 2)) if residuals_px is None
           else np.asarray(residuals_px, dtype=np.float64).reshape(-1, 2))
    out = []
    if gcps.crs:
        out.append(f"#CRS: {' '.join(gcps.crs.split())}")
    out.append(HEADER)
    for (mx, my), (px, py), en, (dx, dy) in zip(gcps.map_xy, gcps.pixel_xy, gcps.enabled, res,
                                                strict=True):
        residual = float(np.hypot(dx, dy))
        out.append(f"{mx!r},{my!r},{px!r},{0.0 - py!r},{int(en)},{dx!r},{dy!r},{residual!r}")
    return "\n".join(out) + "\n"


def write_points_file(path: str | os.PathLike, gcps: GroundControlPoints,
                      residuals_px: np.ndarray | None = None) -> None:
    """Write a QGIS ``.points`` file atomically (pixel y is negated, as QGIS expects)."""
    write_text_atomic(path, format_points_file(gcps, residuals_px))
