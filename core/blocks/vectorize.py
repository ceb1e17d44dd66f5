"""Label images to polygons: GDAL polygonize, coverage simplification, validity checks.

Polygons are built on the pixel-corner lattice: the pixel of column i, row j is the square
[i, i+1] x [j, j+1] in pixel coordinates (x right, y down). Before polygonizing, each
one-pixel line between two regions is given to one of them, so neighbouring polygons share
their edges (a coverage: no gaps, no overlaps); the coverage is then simplified with the
Visvalingam-Whyatt algorithm while keeping it a coverage (GEOS, ``shapely.coverage_simplify``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import shapely

from ..errors import InputError
from .thinning import nonzero_yx

Transform = Callable[[np.ndarray], np.ndarray]


def close_gaps(labels: np.ndarray, lines: np.ndarray) -> np.ndarray:
    """Labels with every line pixel next to a region given the largest neighbouring label."""
    out = labels.copy()
    height, width = labels.shape
    ys, xs = nonzero_yx((labels == 0) & (lines > 0))
    best = np.zeros(len(ys), np.int32)
    for dy, dx in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        v = labels[np.clip(ys + dy, 0, height - 1), np.clip(xs + dx, 0, width - 1)]
        np.maximum(best, v, out=best)
    out[ys, xs] = best
    return out


def polygonize(labels: np.ndarray, n: int) -> list[shapely.Geometry | None]:
    """One (Multi)Polygon per label 1..n in pixel coordinates (x right, y down, pixel
    corners); index 0 of the returned list is None, as are labels with no pixel."""
    from osgeo import gdal, ogr

    gdal.UseExceptions()
    height, width = labels.shape
    raster = gdal.GetDriverByName("MEM").Create("", width, height, 1, gdal.GDT_Int32)
    raster.SetGeoTransform((0.0, 1.0, 0.0, 0.0, 0.0, 1.0))
    band = raster.GetRasterBand(1)
    band.WriteArray(labels)
    band.SetNoDataValue(0)
    vector = ogr.GetDriverByName("Memory").CreateDataSource("")
    layer = vector.CreateLayer("regions", geom_type=ogr.wkbPolygon)
    layer.CreateField(ogr.FieldDefn("id", ogr.OFTInteger))
    gdal.Polygonize(band, band.GetMaskBand(), layer, 0, [], callback=None)
    parts: list[list[shapely.Geometry]] = [[] for _ in range(n + 1)]
    for feature in layer:
        i = feature.GetField(0)
        if 0 < i <= n:
            parts[i].append(shapely.from_wkb(bytes(feature.GetGeometryRef().ExportToWkb())))
    del layer, vector, band, raster
    out: list[shapely.Geometry | None] = [None] * (n + 1)
    for i in range(1, n + 1):
        if len(parts[i]) == 1:
            out[i] = parts[i][0]
        elif parts[i]:
            out[i] = shapely.union_all(parts[i])
    return out


def simplify_coverage(geoms: list[shapely.Geometry | None],
                      tolerance: float) -> list[shapely.Geometry | None]:
    """Coverage-preserving simplification (``tolerance`` ~ sqrt of removed triangle areas)."""
    idx = [i for i, g in enumerate(geoms) if g is not None]
    if not idx or tolerance <= 0:
        return list(geoms)
    arr = np.array([geoms[i] for i in idx], dtype=object)
    simplified = shapely.coverage_simplify(arr, tolerance)
    out = list(geoms)
    for i, g in zip(idx, simplified, strict=True):
        out[i] = g
    return out


def check_valid(geoms: list[shapely.Geometry | None]) -> list[shapely.Geometry | None]:
    """Repair any invalid polygon (rare after simplification) keeping only its polygonal
    part; raise if one cannot be repaired."""
    out = list(geoms)
    for i, g in enumerate(out):
        if g is None or shapely.is_valid(g):
            continue
        fixed = shapely.make_valid(g)
        polys = [p for p in shapely.get_parts(fixed)
                 if shapely.get_type_id(p) in (3, 6) and not p.is_empty]
        if not polys:
            raise InputError(f"polygon {i} could not be made valid; report this sheet")
        out[i] = shapely.union_all(polys)
    return out


def as_multipolygon(g: shapely.Geometry) -> shapely.Geometry:
    """A MultiPolygon (GeoPackage layers hold one geometry type)."""
    if shapely.get_type_id(g) == 6:
        return g
    return shapely.MultiPolygon([g])


def transform_geoms(geoms: list[shapely.Geometry | None],
                    fn: Transform) -> list[shapely.Geometry | None]:
    """Apply a pixel -> target coordinate function ``(N, 2) -> (N, 2)`` to every vertex."""
    return [None if g is None else shapely.transform(g, fn) for g in geoms]


def vectorize(labels: np.ndarray, n: int, lines: np.ndarray,
              tolerance: float = 1.0) -> list[shapely.Geometry | None]:
    """Simplified, valid (Multi)Polygons of labels 1..n in pixel coordinates (y down)."""
    geoms = polygonize(close_gaps(labels, lines), n)
    geoms = simplify_coverage(geoms, tolerance)
    return check_valid(geoms)
