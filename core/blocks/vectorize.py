"""Label images to polygons: GDAL polygonize, arc-wise coverage simplification, checks.

Polygons are built on the pixel-corner lattice: the pixel of column i, row j is the square
[i, i+1] x [j, j+1] in pixel coordinates (x right, y down). Before polygonizing, each
one-pixel line between two regions is given to one of them, so neighbouring polygons share
their edges (a coverage: no gaps, no overlaps). The shared boundaries are then simplified
once each (:mod:`.arcs`, Douglas-Peucker): ``tolerance`` is the largest distance, in
pixels, of a simplified boundary from the pixel boundary it replaces; 0 keeps the pixel
boundaries exactly. A ring the simplification left with no area gets its pixel boundary
back; a polygon whose simplified form is invalid (OGR ``IsValid``) or overlaps another
polygon gets all its pixel boundaries back (its neighbours too, along the arcs they share),
until every polygon passes.

Only NumPy, OpenCV and GDAL/OGR are used (no shapely): inside QGIS, OGR's GEOS is the one
already loaded, and a second GEOS in the same process crashes it.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from .arcs import Coverage
from .rings import Feature, Polygon, bounds, polygon_from_wkb, ring_area, to_ogr
from .thinning import nonzero_yx

OVERLAP_PX2 = 1e-9  #: intersection area (px2) above which two polygons overlap


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


def polygonize(labels: np.ndarray, n: int) -> list[list[Polygon]]:
    """The polygons (4-connected parts) of each label 1..n in pixel coordinates (x right,
    y down, integer pixel corners); index 0 and labels with no pixel hold an empty list."""
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
    parts: list[list[Polygon]] = [[] for _ in range(n + 1)]
    for feature in layer:
        i = feature.GetField(0)
        if 0 < i <= n:
            parts[i].append(polygon_from_wkb(bytes(feature.GetGeometryRef().ExportToWkb())))
    del layer, vector, band, raster
    return parts


def _collapsed_arcs(cov: Coverage, label: int, feature: Feature) -> set[int]:
    """The arcs of the rings of ``feature`` (label ``label``) left with no area."""
    return {k for specs, polygon in zip(cov.specs[label], feature, strict=True)
            for spec, ring in zip(specs, polygon, strict=True)
            if len(ring) < 4 or ring_area(ring) == 0 for k, _ in spec}


def overlap_area(a, b) -> float:
    """Area of the intersection of two valid OGR (multi)polygons (0 when they only touch)."""
    from osgeo import ogr

    common = a.Intersection(b)
    if common is None or common.IsEmpty():
        return 0.0
    surfaces = (ogr.wkbPolygon, ogr.wkbMultiPolygon)
    parts = ([common.GetGeometryRef(k) for k in range(common.GetGeometryCount())]
             if ogr.GT_Flatten(common.GetGeometryType()) == ogr.wkbGeometryCollection
             else [common])
    return sum(g.GetArea() for g in parts if ogr.GT_Flatten(g.GetGeometryType()) in surfaces)


def _overlapping(changed: list[int], geoms: dict, boxes: np.ndarray,
                 invalid: set[int]) -> set[int]:
    """Labels among (and next to) ``changed`` whose polygons overlap another's (the
    ``invalid`` ones are left out: GEOS cannot intersect them)."""
    ids = np.array(sorted(set(geoms) - invalid), dtype=np.int64)
    box = boxes[ids]
    bad: set[int] = set()
    done: set[tuple[int, int]] = set()
    for i in changed:
        if i in invalid:
            continue
        b = boxes[i]
        near = ids[(box[:, 0] < b[2]) & (box[:, 2] > b[0]) & (box[:, 1] < b[3])
                   & (box[:, 3] > b[1]) & (ids != i)]
        for j in near.tolist():
            pair = (min(i, j), max(i, j))
            if pair in done:
                continue
            done.add(pair)
            if overlap_area(geoms[i], geoms[j]) > OVERLAP_PX2:
                bad |= {i, j}
    return bad


def simplify_coverage(labels: np.ndarray, parts: list[list[Polygon]],
                      tolerance: float) -> list[Feature | None]:
    """Each label's polygons with its shared boundaries simplified alike (``tolerance`` in
    px, see the module docstring); every polygon valid, none overlapping another."""
    cov = Coverage(labels, parts, tolerance)
    features = [cov.feature(i) for i in range(len(parts))]
    geoms, boxes = {}, np.zeros((len(parts), 4))
    changed = [i for i, f in enumerate(features) if f is not None]
    while changed:
        revert: set[int] = set()
        bad: set[int] = set()      # labels to check again
        whole: set[int] = set()    # labels whose every arc comes back
        for i in changed:
            features[i] = cov.feature(i)
            collapsed = _collapsed_arcs(cov, i, features[i])
            if collapsed:          # first only the rings left with no area come back
                revert |= collapsed
                bad.add(i)
                continue
            geoms[i] = to_ogr(features[i])
            boxes[i] = bounds(features[i])
            if not geoms[i].IsValid():
                whole.add(i)
        if tolerance > 0:
            whole |= _overlapping(changed, geoms, boxes, bad | whole)
        for i in whole:
            revert |= cov.arcs_of(i)
        bad |= whole
        reverted = cov.keep_exact(revert)
        if bad and not reverted:
            raise InputError(f"polygon {min(bad)} is invalid even on its pixel boundary; "
                             "report this sheet")
        changed = sorted(reverted | bad)
    return features


def vectorize(labels: np.ndarray, n: int, lines: np.ndarray,
              tolerance: float = 1.0) -> list[Feature | None]:
    """Simplified, valid polygons of labels 1..n in pixel coordinates (x right, y down):
    ``result[i]`` is label i's list of polygons (rings as ``(N, 2)`` arrays, see
    :mod:`.rings`), None for index 0 and for labels with no pixel."""
    closed = close_gaps(labels, lines)
    return simplify_coverage(closed, polygonize(closed, n), tolerance)
