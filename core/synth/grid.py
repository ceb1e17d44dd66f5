"""The graticule: grid lines of constant easting or northing, their gaps, distractors, and
which intersections count as ground truth.

An intersection is listed when it lies inside the map frame (at least the frame's width plus
``visible_clearance_px`` inside its boundary) and NEITHER of its two lines is interrupted
within ``visible_clearance_px`` of it: a crossing hidden by a gap is not visible on the map,
so, as in MapSeg, it is not ground truth (such points are reported as "hidden" in NNN.json).
Geometry in flat upright pixels (x right, y down, pixel centres at integers).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import shapely
from shapely.geometry import Polygon

from . import draw
from .geometry import GridAffine
from .params import SheetParams


@dataclass
class GridLine:
    """Line ``axis`` = value: axis 0 is constant easting, 1 constant northing (metres).

    ``extent``: (start, end) of the other coordinate covered by the drawing (metres);
    ``gaps``: interrupted intervals of the other coordinate (metres).
    """

    axis: int
    value: float
    extent: tuple[float, float]
    gaps: list[tuple[float, float]] = field(default_factory=list)
    alpha: float = 1.0

    def points(self, along: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Grid coordinates (e, n) of positions ``along`` the line."""
        fixed = np.full_like(np.asarray(along, np.float64), self.value)
        return (fixed, along) if self.axis == 0 else (along, fixed)

    def drawn_pieces(self) -> list[tuple[float, float]]:
        """The intervals of the other coordinate that are drawn (extent minus gaps)."""
        pieces = []
        start = self.extent[0]
        for a, b in sorted(self.gaps):
            if a > start:
                pieces.append((start, min(a, self.extent[1])))
            start = max(start, b)
        if start < self.extent[1]:
            pieces.append((start, self.extent[1]))
        return [(a, b) for a, b in pieces if b > a]

    def is_drawn_at(self, along: float, clearance: float) -> bool:
        """True when no gap comes within ``clearance`` (metres) of position ``along``."""
        return all(not (a - clearance <= along <= b + clearance) for a, b in self.gaps)


def sheet_grid_range(affine: GridAffine, width: int,
                     height: int) -> tuple[float, float, float, float]:
    """(e_min, e_max, n_min, n_max) of the grid coordinates over the whole sheet."""
    xs = np.array([0.0, width - 1.0, width - 1.0, 0.0])
    ys = np.array([0.0, 0.0, height - 1.0, height - 1.0])
    e, n = affine.from_flat(xs, ys)
    return float(e.min()), float(e.max()), float(n.min()), float(n.max())


def make_lines(p: SheetParams, affine: GridAffine, width: int, height: int,
               rng: np.random.Generator) -> list[GridLine]:
    """All grid lines crossing the sheet, with random gaps (``p.grid_gap_fraction``)."""
    step = p.grid_spacing_m
    e0, e1, n0, n1 = sheet_grid_range(affine, width, height)
    m_per_px = 1.0 / affine.px_per_m
    pad = 50.0 * m_per_px
    lines = []
    for axis, (lo, hi), (olo, ohi) in ((0, (e0, e1), (n0, n1)), (1, (n0, n1), (e0, e1))):
        for k in range(int(np.ceil(lo / step)), int(np.floor(hi / step)) + 1):
            line = GridLine(axis, k * step, (olo - pad, ohi + pad),
                            alpha=float(np.clip(rng.normal(1.0, 0.08), 0.8, 1.2)))
            length_px = (ohi - olo) / m_per_px
            if p.grid_gap_fraction > 0:
                mean_gap = 0.5 * sum(p.grid_gap_length_px) * p.content_scale
                n_gaps = rng.poisson(p.grid_gap_fraction * length_px / max(mean_gap, 1.0))
                for _ in range(int(n_gaps)):
                    g = rng.uniform(*p.grid_gap_length_px) * p.content_scale * m_per_px
                    a = rng.uniform(olo, ohi)
                    line.gaps.append((a, a + g))
            lines.append(line)
    return lines


def draw_lines(layer: np.ndarray, lines: list[GridLine], affine: GridAffine, value: int,
               thickness: int) -> None:
    """Draw every drawn piece of every line (anti-aliased, sub-pixel)."""
    for line in lines:
        v = int(np.clip(round(value * line.alpha), 1, 255))
        for a, b in line.drawn_pieces():
            e, n = line.points(np.array([a, b]))
            x, y = affine.to_flat(e, n)
            draw.segment(layer, (x[0], y[0]), (x[1], y[1]), v, thickness)


def draw_distractors(layer: np.ndarray, lines: list[GridLine], affine: GridAffine,
                     p: SheetParams, value: int, rng: np.random.Generator) -> int:
    """Near-parallel lines close to grid lines (e.g. a street edge 4-40 px away, within
    2 degrees); returns how many were drawn."""
    count = 0
    for line in lines:
        for _ in range(int(rng.poisson(p.distractors_per_line))):
            c = rng.uniform(*line.extent)
            e, n = line.points(np.array([c, c + 1.0]))
            x, y = affine.to_flat(e, n)
            d = np.array([x[1] - x[0], y[1] - y[0]])
            d /= np.hypot(*d)
            t = np.radians(rng.normal(0.0, 0.8))
            d = np.array([d[0] * np.cos(t) - d[1] * np.sin(t), d[0] * np.sin(t) + d[1] * np.cos(t)])
            nrm = np.array([-d[1], d[0]])
            off = rng.uniform(4.0, 40.0) * rng.choice([-1.0, 1.0]) * p.content_scale
            half = rng.uniform(150.0, 1200.0) * p.content_scale
            centre = np.array([x[0], y[0]]) + nrm * off
            v = int(np.clip(value * rng.uniform(0.6, 1.1), 1, 255))
            draw.segment(layer, centre - d * half, centre + d * half, v,
                         int(rng.choice([1, 1, 2])))
            count += 1
    return count


def intersections(lines: list[GridLine], affine: GridAffine, frame: Polygon,
                  clearance_px: float, frame_width_px: float
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Listed and hidden intersections as grid coordinates ``(N, 2)`` each.

    Listed: inside the frame by more than ``frame_width_px + clearance_px`` and drawn on both
    lines within ``clearance_px``. Hidden: inside the frame but interrupted on a line.
    """
    clear_m = clearance_px / affine.px_per_m
    inner = frame.buffer(-(frame_width_px + clearance_px), join_style="mitre")
    eastings = [ln for ln in lines if ln.axis == 0]
    northings = [ln for ln in lines if ln.axis == 1]
    if not eastings or not northings or inner.is_empty:
        return np.zeros((0, 2)), np.zeros((0, 2))
    ev = np.array([ln.value for ln in eastings])
    nv = np.array([ln.value for ln in northings])
    e, n = np.meshgrid(ev, nv, indexing="ij")
    x, y = affine.to_flat(e, n)
    inside = shapely.contains_xy(inner, x, y)
    visible = np.ones_like(inside)
    for i, le in enumerate(eastings):  # line e = const, interrupted along n
        for a, b in le.gaps:
            visible[i, :] &= ~((nv >= a - clear_m) & (nv <= b + clear_m))
    for j, ln in enumerate(northings):  # line n = const, interrupted along e
        for a, b in ln.gaps:
            visible[:, j] &= ~((ev >= a - clear_m) & (ev <= b + clear_m))
    pts = np.stack([e, n], axis=-1)
    return pts[inside & visible].reshape(-1, 2), pts[inside & ~visible].reshape(-1, 2)
