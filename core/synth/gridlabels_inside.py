"""Grid values printed inside the map, along the grid lines (the ``inside`` label style).

Many maps (modern topographic sheets, some atlases) print a grid line's value on the map
itself, beside the line, at one or a few places, in a small white halo that clears the map
ink below it; the margins then carry nothing. Each line's value is printed in one or two
randomly chosen cells (between two crossings well inside the frame, at 0.3 to 0.7 of the
cell), in thousands (``652``, ``6862``) or in full (``652000``) as the sheet's stream
picks: eastings turned with their line, reading upwards, just beside the vertical line
(on one side of it for the whole sheet); northings upright just above the horizontal
line. Some are left out (``label_missing``); ``label_distractors`` stray numbers (house
numbers) are printed the same way beside random lines, in cells carrying no value.
Geometry in flat upright pixels (x right, y down).
"""

from __future__ import annotations

from itertools import pairwise

import cv2
import numpy as np
from shapely.geometry import Point, Polygon

from .geometry import GridAffine
from .grid import GridLine
from .params import SheetParams
from .text import Lettering

#: Size of inside labels as a fraction of the label size, their gap to the line and the
#: halo's radius as fractions of their size.
INSIDE_SIZE = 0.8
INSIDE_GAP = 0.3
INSIDE_HALO = 0.45
#: Share of sheets printing the values in thousands (``652``) rather than in full.
THOUSANDS = 0.6


def _unit(v: np.ndarray) -> np.ndarray:
    return v / float(np.hypot(*v))


def inside_text(value: float, thousands: bool) -> str:
    """How a line's ``value`` (metres) is printed: in thousands (``652``) or in full."""
    v = round(value)
    return str(round(v / 1000)) if thousands else str(v)


def draw_inside_labels(ink: np.ndarray, frame: Polygon, lines: list[GridLine],
                       affine: GridAffine, p: SheetParams, rng: np.random.Generator,
                       letters: Lettering, red: np.ndarray | None = None) -> list[dict]:
    """Print the values of the grid lines along them inside the map into ``ink`` (their
    halo clears ``ink`` and ``red``, the red ink, below them); returns
    the records of :func:`.gridlabels.draw_grid_labels` (``axis``, ``value``, ``text``,
    ``centre``, ``size``, ``angle``, ``distractor``) with ``inside`` True."""
    size = p.label_size_px * p.content_scale * INSIDE_SIZE
    halo = max(1.0, INSIDE_HALO * size)
    gap = max(INSIDE_GAP * size, halo + p.grid_width_px + 2.0)
    thousands = bool(rng.random() < THOUSANDS)
    side = float(rng.choice([-1.0, 1.0]))          # eastings left or right of their line
    fx, fy = affine.to_flat(np.array([0.0, 1.0, 0.0]), np.array([0.0, 0.0, 1.0]))
    east = _unit(np.array([fx[1] - fx[0], fy[1] - fy[0]]))
    north = _unit(np.array([fx[2] - fx[0], fy[2] - fy[0]]))
    east_deg = float(np.degrees(np.arctan2(east[1], east[0])))
    inner = frame.buffer(-(p.frame_width_px + 2.5 * size))
    values = [sorted(ln.value for ln in lines if ln.axis == a) for a in (0, 1)]

    def at(line: GridLine, along: float) -> np.ndarray:
        e, n = line.points(np.array([along]))
        x, y = affine.to_flat(e, n)
        return np.array([float(x[0]), float(y[0])])

    cells: list[tuple[GridLine, float, float]] = []
    places: list[tuple[GridLine, np.ndarray]] = []
    for line in lines:
        others = values[1 - line.axis]
        mine = [(a, b) for a, b in pairwise(others)
                if inner.contains(Point(*at(line, a))) and inner.contains(Point(*at(line, b)))]
        cells += [(line, a, b) for a, b in mine]
        if not mine:
            continue
        n = min(len(mine), int(rng.integers(1, 3)))
        for c in sorted(rng.choice(len(mine), size=n, replace=False).tolist()):
            if rng.random() < p.label_missing:
                continue
            a, b = mine[c]
            places.append((line, at(line, a + rng.uniform(0.3, 0.7) * (b - a))))
            cells.remove((line, a, b))          # no stray number over a value
    records = []
    for line, point in places:
        text = inside_text(line.value, thousands)
        records.append(_print((ink, red), letters, text, line.axis, point, p.label_font,
                              size, gap, halo, east_deg, east * side, north,
                              {"axis": line.axis, "value": float(line.value),
                               "distractor": False}))
    for _ in range(p.label_distractors if cells else 0):
        line, a, b = cells[int(rng.integers(len(cells)))]
        text = str(int(rng.integers(1, 400)))
        point = at(line, a + rng.uniform(0.15, 0.85) * (b - a))
        records.append(_print((ink, red), letters, text, line.axis, point, p.label_font,
                              0.8 * size, gap, halo, east_deg, east * side, north,
                              {"axis": line.axis, "value": None, "distractor": True}))
    return records


def _print(layers: tuple[np.ndarray, np.ndarray | None], letters: Lettering, text: str,
           axis: int, point: np.ndarray, font: str, size: float, gap: float, halo: float,
           east_deg: float, beside: np.ndarray, north: np.ndarray, record: dict) -> dict:
    """Print ``text`` by the line through ``point``: reading upwards beside it (``axis``
    0, on the ``beside`` side) or upright above it (``axis`` 1), in a halo of ``halo``
    pixels cleared in both ``layers`` (ink, red ink or None); returns its record."""
    patch = letters.render([(text, 1.0, 0.0)], font, size)
    thick = patch.shape[0] / 2.0 + gap
    if axis == 0:
        angle, centre = east_deg - 90.0, point + beside * thick
    else:
        angle, centre = east_deg, point + north * thick
    r = int(np.ceil(halo))
    span = int(np.ceil(np.hypot(*patch.shape))) + 2 * r + 6
    x0, y0 = round(centre[0]) - span // 2, round(centre[1]) - span // 2
    local = np.zeros((span, span), np.uint8)
    letters.place(local, patch, (centre[0] - x0, centre[1] - y0), angle, 245)
    clear = cv2.dilate((local > 0).astype(np.uint8),
                       cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1)))
    ink, red = layers
    h, w = ink.shape
    xa, ya, xb, yb = max(0, x0), max(0, y0), min(w, x0 + span), min(h, y0 + span)
    if xa < xb and ya < yb:
        part = (slice(ya - y0, yb - y0), slice(xa - x0, xb - x0))
        for layer in (red, ink):
            if layer is not None:
                layer[ya:yb, xa:xb][clear[part] > 0] = 0
        sub = ink[ya:yb, xa:xb]
        np.maximum(sub, local[part], out=sub)
    t = np.radians(angle)
    c, s = abs(np.cos(t)), abs(np.sin(t))
    bw = patch.shape[1] * c + patch.shape[0] * s
    bh = patch.shape[1] * s + patch.shape[0] * c
    return {**record, "text": text, "centre": [float(centre[0]), float(centre[1])],
            "size": [float(bw), float(bh)], "angle": angle, "inside": True}
