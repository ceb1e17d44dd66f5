"""The map area of a sheet: a frame inside the margins, a rectangle or an L-shaped notch.

Coordinates are flat upright pixels (x right, y down, pixel centres at integers).
"""

from __future__ import annotations

import numpy as np
import shapely
from shapely.geometry import Polygon

from .params import SheetParams


def map_frame(p: SheetParams, width: int, height: int) -> Polygon:
    """The map-area polygon of an upright ``width`` x ``height`` sheet.

    ``p.margins`` are (left, top, right, bottom) fractions of the sheet size; a "notched"
    frame has one corner cut away by ``p.frame_notch`` (fractions of the map's width and
    height), as on atlas sheets whose map runs short at one edge.
    """
    left, top, right, bottom = p.margins
    x0, x1 = left * width, (1.0 - right) * width - 1.0
    y0, y1 = top * height, (1.0 - bottom) * height - 1.0
    if p.frame_shape != "notched":
        return shapely.box(x0, y0, x1, y1)
    nw = p.frame_notch[0] * (x1 - x0)
    nh = p.frame_notch[1] * (y1 - y0)
    corner = p.frame_notch_corner % 4  # 0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left
    cx = x0 if corner in (0, 3) else x1 - nw
    cy = y0 if corner in (0, 1) else y1 - nh
    cut = shapely.box(cx - 1.0 if corner in (0, 3) else cx, cy - 1.0 if corner in (0, 1) else cy,
                      cx + nw + (0.0 if corner in (0, 3) else 1.0),
                      cy + nh + (0.0 if corner in (0, 1) else 1.0))
    poly = shapely.box(x0, y0, x1, y1).difference(cut)
    return shapely.normalize(Polygon(np.asarray(poly.exterior.coords)))
