"""Quadrilateral geometry shared by the text-detection metrics (shapely, float64 pixels).

Polygons are built from the integer corner coordinates, as every reference does. A quad that
shapely finds invalid (self-intersecting or degenerate) is repaired with ``make_valid``; the
references' behaviour on such quads is not specified (DetEval in official mode drops them).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import shapely

from .rrc_format import Word


def quads_array(words: Sequence[Word]) -> np.ndarray:
    """Corners as a float64 array of shape (n, 4, 2): x right, y down."""
    if not words:
        return np.zeros((0, 4, 2))
    return np.asarray([w.points for w in words], dtype=np.float64).reshape(-1, 4, 2)


def polygons(quads: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Shapely polygons of (n, 4, 2) quads, repaired where invalid, and a mask of the quads
    that were valid and simple as given."""
    if len(quads) == 0:
        return np.empty(0, dtype=object), np.zeros(0, dtype=bool)
    polys = shapely.polygons(quads)
    ok = shapely.is_valid(polys) & shapely.is_simple(polys)
    if not ok.all():
        polys[~ok] = shapely.make_valid(polys[~ok])
    return polys, ok


def intersection_areas(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|A_i ∩ B_j| for every pair, shape (len(a), len(b)); pairs whose bounding boxes do not
    overlap with positive area are 0 without clipping."""
    out = np.zeros((len(a), len(b)))
    if len(a) == 0 or len(b) == 0:
        return out
    ba, bb = shapely.bounds(a), shapely.bounds(b)
    overlap = ((ba[:, None, 0] < bb[None, :, 2]) & (bb[None, :, 0] < ba[:, None, 2])
               & (ba[:, None, 1] < bb[None, :, 3]) & (bb[None, :, 1] < ba[:, None, 3]))
    i, j = np.nonzero(overlap)
    if len(i):
        out[i, j] = shapely.area(shapely.intersection(a[i], b[j]))
    return out


def points_in_quads(quads: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Crossing-number point-in-polygon test, shape (len(quads), len(points)).

    The same arithmetic as Polygon3's ``isInside``: an edge (i, j) counts when
    ``y_i <= y < y_j`` (or the reverse) and ``x < (x_j - x_i)(y - y_i)/(y_j - y_i) + x_i``.
    On an axis-aligned box the min-x and min-y edges are inside, the max edges outside.
    """
    inside = np.zeros((len(quads), len(points)), dtype=bool)
    if inside.size == 0:
        return inside
    x, y = points[None, :, 0], points[None, :, 1]
    for i in range(4):
        j = (i - 1) % 4
        xi, yi = quads[:, i, 0, None], quads[:, i, 1, None]
        xj, yj = quads[:, j, 0, None], quads[:, j, 1, None]
        spans = ((yi <= y) & (y < yj)) | ((yj <= y) & (y < yi))
        with np.errstate(divide="ignore", invalid="ignore"):
            crossing = (xj - xi) * (y - yi) / (yj - yi) + xi
        inside ^= spans & (x < crossing)
    return inside


class ImageGeometry:
    """Polygons, areas and pairwise intersection areas of one image's GT and detections.

    ``inter[g, d]`` is |G_g ∩ D_d| in square pixels.
    """

    def __init__(self, gt: Sequence[Word], det: Sequence[Word]):
        self.gt_quads = quads_array(gt)
        self.det_quads = quads_array(det)
        self.gt_polys, self.gt_simple = polygons(self.gt_quads)
        self.det_polys, self.det_simple = polygons(self.det_quads)
        self.gt_area = shapely.area(self.gt_polys) if len(gt) else np.zeros(0)
        self.det_area = shapely.area(self.det_polys) if len(det) else np.zeros(0)
        self.inter = intersection_areas(self.gt_polys, self.det_polys)
