"""Polygons as plain NumPy rings: the geometry type of the block polygons.

A feature is a list of polygons (one per part); a polygon is a list of rings, exterior first
then holes; a ring is a closed ``(N, 2) float64`` array of vertices (first row repeated
last, N >= 4). Coordinates are pixel corners (x right, y down) until moved to a map CRS
with :func:`transform_geoms`. OGR geometries (GDAL's own GEOS, the one QGIS uses) are made
from them only to check validity and to write: no second geometry library is loaded.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

import numpy as np

Ring = np.ndarray
Polygon = list[Ring]
Feature = list[Polygon]
Transform = Callable[[np.ndarray], np.ndarray]

_WKB_POLYGON, _WKB_MULTIPOLYGON = 3, 6


def ring_area(ring: Ring) -> float:
    """Signed shoelace area of a closed ring (positive when counter-clockwise in a y-up
    frame, i.e. clockwise on the pixel grid, y down)."""
    x, y = ring[:, 0], ring[:, 1]
    return 0.5 * float(np.dot(x[:-1], y[1:]) - np.dot(x[1:], y[:-1]))


def ring_length(ring: Ring) -> float:
    """Length of a closed ring, in its coordinate units."""
    return float(np.hypot(*np.diff(ring, axis=0).T).sum())


def planar_area_perimeter(feature: Feature) -> tuple[float, float]:
    """Area (exterior minus holes) and perimeter (every ring) in the coordinates' units."""
    area = sum(abs(ring_area(p[0])) - sum(abs(ring_area(h)) for h in p[1:]) for p in feature)
    return area, sum(ring_length(r) for p in feature for r in p)


def geodesic_area_perimeter(feature: Feature, geod) -> tuple[float, float]:
    """Geodesic area (m2) and perimeter (m) on ``geod`` (a ``pyproj.Geod``) of a feature in
    longitude/latitude degrees."""
    area = perimeter = 0.0
    for polygon in feature:
        for k, ring in enumerate(polygon):
            a, p = geod.polygon_area_perimeter(ring[:, 0], ring[:, 1])
            area += abs(a) if k == 0 else -abs(a)
            perimeter += p
    return area, perimeter


def vertex_count(feature: Feature) -> int:
    """Number of distinct vertices (the closing repeat of each ring not counted)."""
    return sum(len(r) - 1 for p in feature for r in p)


def bounds(feature: Feature) -> tuple[float, float, float, float]:
    """``(xmin, ymin, xmax, ymax)`` of the exteriors."""
    pts = np.concatenate([p[0] for p in feature])
    (x0, y0), (x1, y1) = pts.min(axis=0), pts.max(axis=0)
    return float(x0), float(y0), float(x1), float(y1)


def to_wkb(feature: Feature) -> bytes:
    """ISO WKB (little endian) MultiPolygon of a feature."""
    out = [struct.pack("<BII", 1, _WKB_MULTIPOLYGON, len(feature))]
    for polygon in feature:
        out.append(struct.pack("<BII", 1, _WKB_POLYGON, len(polygon)))
        for ring in polygon:
            out.append(struct.pack("<I", len(ring)))
            out.append(np.ascontiguousarray(ring, dtype="<f8").tobytes())
    return b"".join(out)


def to_ogr(feature: Feature):
    """The feature as an ``ogr.Geometry`` MultiPolygon."""
    from osgeo import ogr

    return ogr.CreateGeometryFromWkb(to_wkb(feature))


def polygon_from_wkb(wkb: bytes) -> Polygon:
    """The rings of a 2D WKB Polygon (as written by ``ogr.Geometry.ExportToWkb``)."""
    order = "<" if wkb[0] == 1 else ">"
    kind, count = struct.unpack_from(order + "II", wkb, 1)
    if kind != _WKB_POLYGON:
        raise ValueError(f"WKB type {kind} is not a 2D polygon")
    rings, offset = [], 9
    for _ in range(count):
        (n,) = struct.unpack_from(order + "I", wkb, offset)
        ring = np.frombuffer(wkb, order + "f8", 2 * n, offset + 4).reshape(n, 2)
        rings.append(ring.astype(np.float64))
        offset += 4 + 16 * n
    return rings


def transform_geoms(geoms: list[Feature | None], fn: Transform) -> list[Feature | None]:
    """Apply a coordinate function ``(N, 2) -> (N, 2)`` to every vertex, in one call."""
    rings = [r for g in geoms if g is not None for p in g for r in p]
    if not rings:
        return list(geoms)
    moved = np.asarray(fn(np.concatenate(rings)), dtype=np.float64)
    ends = np.cumsum([len(r) for r in rings])
    pieces = iter(np.split(moved, ends[:-1]))
    return [None if g is None else [[next(pieces) for _ in p] for p in g] for g in geoms]
