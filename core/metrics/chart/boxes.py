"""Intersection over union of text boxes and quadrilaterals (pixels, x right, y down).

A text region is a quadrilateral ``(4, 2)`` of corners; a ``bb`` ``{x0, y0, width, height}``
is the rectangle ``(x0, y0), (x0 + w, y0), (x0 + w, y0 + h), (x0, y0 + h)``.
"""

from __future__ import annotations

import numpy as np
import shapely


def rect_quad(x0: float, y0: float, w: float, h: float) -> tuple:
    """The four corners of a ``bb``, clockwise on screen from the top-left."""
    return ((x0, y0), (x0 + w, y0), (x0 + w, y0 + h), (x0, y0 + h))


def _as_rects(quads: np.ndarray) -> np.ndarray | None:
    """(n, 4) ``x1, y1, x2, y2`` when every quad is an upright rectangle as from ``bb``."""
    if quads.size == 0:
        return np.zeros((0, 4))
    q = quads
    upright = ((q[:, 0, 1] == q[:, 1, 1]) & (q[:, 1, 0] == q[:, 2, 0])
               & (q[:, 2, 1] == q[:, 3, 1]) & (q[:, 3, 0] == q[:, 0, 0])
               & (q[:, 1, 0] >= q[:, 0, 0]) & (q[:, 2, 1] >= q[:, 0, 1]))
    if not upright.all():
        return None
    return np.stack([q[:, 0, 0], q[:, 0, 1], q[:, 2, 0], q[:, 2, 1]], axis=1)


def rect_iou_matrix(a: np.ndarray, b: np.ndarray, *, plus_one: bool = False) -> np.ndarray:
    """IoU of every rectangle of ``a`` (n, 4) with every one of ``b`` (m, 4), ``x1 y1 x2 y2``.

    ``plus_one`` uses the inclusive-pixel convention of the 2019 task 2 script: widths are
    ``x2 - x1 + 1``. A zero union gives nan, as numpy does; coordinates so large that an
    area overflows give inf areas (IoU 0 or nan), as the scripts' Python floats do, silently.
    """
    e = 1.0 if plus_one else 0.0
    ax1, ay1, ax2, ay2 = (a[:, i:i + 1] for i in range(4))
    bx1, by1, bx2, by2 = (b[:, i][None, :] for i in range(4))
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        iw = np.maximum(np.minimum(ax2, bx2) - np.maximum(ax1, bx1) + e, 0)
        ih = np.maximum(np.minimum(ay2, by2) - np.maximum(ay1, by1) + e, 0)
        inter = iw * ih
        union = (ax2 - ax1 + e) * (ay2 - ay1 + e) + (bx2 - bx1 + e) * (by2 - by1 + e) - inter
        return inter / union


def quad_iou_matrix(a: np.ndarray, b: np.ndarray, *, repair: bool = False) -> np.ndarray:
    """IoU of every quadrilateral of ``a`` (n, 4, 2) with every one of ``b`` (m, 4, 2).

    Upright rectangles take an exact closed form; other quads use polygon areas (shapely).
    ``repair`` turns self-intersecting quads into valid polygons first; without it such a
    quad raises shapely's GEOSException, as in the 2020 script.
    """
    a = np.asarray(a, dtype=float).reshape(-1, 4, 2)
    b = np.asarray(b, dtype=float).reshape(-1, 4, 2)
    if len(a) == 0 or len(b) == 0:
        return np.zeros((len(a), len(b)))
    ra, rb = _as_rects(a), _as_rects(b)
    if ra is not None and rb is not None:
        return rect_iou_matrix(ra, rb)
    pa, pb = shapely.polygons(a), shapely.polygons(b)
    if repair:
        pa, pb = shapely.make_valid(pa), shapely.make_valid(pb)
    inter = shapely.area(shapely.intersection(pa[:, None], pb[None, :]))
    union = shapely.area(shapely.union(pa[:, None], pb[None, :]))
    with np.errstate(invalid="ignore", divide="ignore"):
        return inter / union


def legend_box_overlap(gt: dict, pred: dict, *, min_size: float = 0.0
                       ) -> tuple[float, float, float]:
    """(intersection, GT area, union) of two ``{x0, y0, width, height}`` boxes.

    ``min_size`` > 0 widens a thinner side to that size around its centre line (a 0 px high
    line legend mark becomes 1 px high), so that degenerate boxes can overlap.
    """
    def corners(bb: dict) -> tuple[float, float, float, float]:
        x1, y1 = bb["x0"], bb["y0"]
        x2, y2 = x1 + bb["width"], y1 + bb["height"]
        if min_size:
            x1, x2 = _widen(x1, x2, min_size)
            y1, y2 = _widen(y1, y2, min_size)
        return x1, y1, x2, y2

    ax1, ay1, ax2, ay2 = corners(gt)
    bx1, by1, bx2, by2 = corners(pred)
    inter = max(0, min(ax2, bx2) - max(ax1, bx1)) * max(0, min(ay2, by2) - max(ay1, by1))
    area_gt = (ax2 - ax1) * (ay2 - ay1)
    union = area_gt + (bx2 - bx1) * (by2 - by1) - inter
    return inter, area_gt, union


def _widen(lo: float, hi: float, size: float) -> tuple[float, float]:
    if hi - lo >= size:
        return lo, hi
    mid = (lo + hi) / 2
    return mid - size / 2, mid + size / 2
