"""Map features other than blocks: river, railways, red dashed boundaries, tree rows.

Geometry in flat upright pixels (x right, y down). Corridors (river with its quays, railway
strips) are cut out of the blocks, so blocks never overlap them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np
import shapely
from scipy.interpolate import CubicSpline
from shapely.geometry import LineString, Polygon

from . import draw
from .blocks import Street


@dataclass
class River:
    """A river: centre line, the two bank lines and the water polygon, with bridges."""

    centre: np.ndarray
    half_width: np.ndarray
    left_bank: np.ndarray
    right_bank: np.ndarray
    water: Polygon
    quay_width: float
    bridges: list[tuple[np.ndarray, np.ndarray, float]] = field(default_factory=list)

    @property
    def corridor(self) -> shapely.Geometry:
        """Water plus quays: no block may lie there."""
        return self.water.buffer(self.quay_width)


@dataclass
class Railway:
    """A railway: centre line and the width of its strip (px)."""

    centre: np.ndarray
    strip_width: float

    @property
    def corridor(self) -> shapely.Geometry:
        """The railway strip."""
        return LineString(self.centre).buffer(self.strip_width / 2, cap_style="flat")


def smooth_crossing(rng: np.random.Generator, bounds: tuple[float, float, float, float],
                    wiggle: float, n_ctrl: int = 6) -> np.ndarray:
    """A smooth curve crossing the box ``bounds`` side to side, densified every 4 px."""
    x0, y0, x1, y1 = bounds
    w, h = x1 - x0, y1 - y0
    centre = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
    ang = rng.uniform(-0.7, 0.7) + (0.0 if rng.random() < 0.6 else np.pi / 2)
    d = np.array([np.cos(ang), np.sin(ang)])
    nrm = np.array([-d[1], d[0]])
    half = 0.5 * np.hypot(w, h) + 300.0
    shift = rng.uniform(-0.25, 0.25) * min(w, h)
    ts = np.linspace(-half, half, n_ctrl)
    offsets = rng.normal(0.0, wiggle, n_ctrl)
    ctrl = centre + shift * nrm + ts[:, None] * d + offsets[:, None] * nrm
    spline = CubicSpline(ts, ctrl, axis=0)
    t = np.arange(-half, half, 4.0)
    return spline(t)


def make_river(rng: np.random.Generator, bounds: tuple[float, float, float, float],
               scale: float) -> River:
    """A river crossing the map: width 250-550 px (x scale), slowly varying, with bridges."""
    wiggle = 0.08 * min(bounds[2] - bounds[0], bounds[3] - bounds[1])
    centre = smooth_crossing(rng, bounds, wiggle)
    n = len(centre)
    base = rng.uniform(125.0, 275.0) * scale
    s = np.linspace(0, 1, n)
    half = base * (1.0 + 0.25 * np.sin(2 * np.pi * (rng.uniform(0.5, 1.5) * s
                                                   + rng.uniform(0, 1))))
    left = draw.offset_polyline(centre, half)
    right = draw.offset_polyline(centre, -half)
    water = Polygon(np.concatenate([left, right[::-1]]))
    if not water.is_valid:
        water = water.buffer(0)
        if water.geom_type != "Polygon":
            water = max(shapely.get_parts(water), key=lambda g: g.area)
    river = River(centre, half, left, right, water, float(rng.uniform(30.0, 70.0) * scale))
    for _ in range(int(rng.integers(1, 4))):
        i = int(rng.integers(n // 6, 5 * n // 6))
        river.bridges.append((centre[i], centre[min(n - 1, i + 1)] - centre[max(0, i - 1)],
                              float(rng.uniform(35.0, 70.0) * scale)))
    return river


def make_railway(rng: np.random.Generator, bounds: tuple[float, float, float, float],
                 scale: float) -> Railway:
    """A gently curving railway crossing the map in a 30-60 px strip."""
    wiggle = 0.03 * min(bounds[2] - bounds[0], bounds[3] - bounds[1])
    return Railway(smooth_crossing(rng, bounds, wiggle, n_ctrl=4),
                   float(rng.uniform(30.0, 60.0) * scale))


# --- drawing ----------------------------------------------------------------------------
def _water_pattern(xs: np.ndarray, ys: np.ndarray, style: str, spacing: float,
                   phase: float, angle: float) -> np.ndarray:
    """Ink (0..1 float32) of a water pattern at pixel columns ``xs`` and rows ``ys``:
    ``horizontal`` straight lines (turned by ``angle`` radians), ``wavy`` horizontal sine
    waves, ``cross`` two crossing families, ``stipple`` a jittered lattice of dots."""
    x, y = np.meshgrid(xs.astype(np.float32), ys.astype(np.float32))
    c, s = np.float32(np.cos(angle)), np.float32(np.sin(angle))
    u, v = x * c + y * s, -x * s + y * c

    def lines(coord: np.ndarray, period: float) -> np.ndarray:
        t = coord / np.float32(period) + np.float32(phase)
        return np.clip(np.float32(1.1) - np.abs(t - np.floor(t) - 0.5) * np.float32(period),
                       0, 1)

    if style == "wavy":
        amp, wave = 0.3 * spacing, 6.0 * spacing
        return lines(v + np.float32(amp) * np.sin(u * np.float32(2 * np.pi / wave)), spacing)
    if style == "cross":
        return np.maximum(lines(v, 1.6 * spacing), lines(u, 1.6 * spacing))
    if style == "stipple":
        cell = np.float32(0.9 * spacing)
        gu, gv = u / cell + np.float32(phase), v / cell + np.float32(phase)
        # a pseudo-random offset per lattice cell, so the dots do not form rows
        h = np.sin(np.floor(gu) * np.float32(12.9898) + np.floor(gv) * np.float32(78.233))
        ju = (h * np.float32(43758.55)) % 1
        jv = (h * np.float32(24634.63)) % 1
        du = (gu - np.floor(gu) - 0.25 - 0.5 * ju) * cell
        dv = (gv - np.floor(gv) - 0.25 - 0.5 * jv) * cell
        return np.clip(np.float32(1.6) - np.hypot(du, dv), 0, 1)
    return lines(v, spacing)


def _draw_water(layer: np.ndarray, water: shapely.Geometry, style: str,
                rng: np.random.Generator, scale: float) -> None:
    """Fill ``water`` with a drawn pattern other than the bank-following lines, band by
    band (a river may cross a whole sheet)."""
    if water.is_empty:
        return
    spacing = float(rng.uniform(7.0, 12.0) * max(scale, 0.5))
    phase = float(rng.uniform(0, 1))
    angle = 0.0 if style in ("wavy", "stipple") else float(rng.uniform(-0.5, 0.5))
    value = int(rng.uniform(190, 245))
    h, w = layer.shape
    x0, y0, x1, y1 = water.bounds
    x0, x1 = max(0, int(x0) - 1), min(w, int(np.ceil(x1)) + 2)
    y0, y1 = max(0, int(y0) - 1), min(h, int(np.ceil(y1)) + 2)
    if x1 <= x0 or y1 <= y0:
        return
    band_rows = 512
    polys = [g for g in shapely.get_parts(water) if g.geom_type == "Polygon"]
    for r0 in range(y0, y1, band_rows):
        r1 = min(y1, r0 + band_rows)
        mask = np.zeros((r1 - r0, x1 - x0), np.uint8)
        for g in polys:
            rings = [np.asarray(g.exterior.coords)] + [np.asarray(r.coords)
                                                       for r in g.interiors]
            cv2.fillPoly(mask, [draw.fixed(r - [x0, r0]) for r in rings], 255, cv2.LINE_8,
                         draw.SHIFT)
        if not mask.any():
            continue
        ink = _water_pattern(np.arange(x0, x1), np.arange(r0, r1), style, spacing, phase,
                             angle)
        patch = (ink * np.float32(value)).astype(np.uint8)
        patch[mask == 0] = 0
        draw.paste_max(layer, patch, x0, r0)


def draw_river(layer: np.ndarray, river: River, rng: np.random.Generator, scale: float,
               outline: int, style: str = "banks") -> None:
    """Banks (double lines) and the water: by default (``banks``) hatching of lines
    following the banks; else a pattern (``horizontal``, ``wavy``, ``cross``,
    ``stipple``) or nothing (``none``) inside the water, 8 px (x scale) from the banks."""
    draw.polylines(layer, [river.left_bank, river.right_bank], 255, outline)
    if style != "banks":
        if style != "none":
            reach = float(rng.uniform(0.0, 0.5))  # an untouched middle strip, or none
            inner = river.water.buffer(-8.0 * scale)
            middle = LineString(river.centre).buffer(reach * float(np.min(river.half_width)))
            _draw_water(layer, inner.difference(middle) if reach > 0.05 else inner, style,
                        rng, scale)
        draw.polylines(layer, [draw.offset_polyline(river.centre, river.half_width - 6 * scale),
                               draw.offset_polyline(river.centre,
                                                    -river.half_width + 6 * scale)], 220, 1)
        return
    lines = []
    reach = rng.uniform(0.55, 0.95)  # how far towards the middle the hatching goes
    for sign in (1.0, -1.0):
        dist = 8.0 * scale
        phase = rng.uniform(0, 2 * np.pi)
        along = np.arange(len(river.centre)) * 4.0 / (40.0 * scale)
        for k in range(120):
            inside = dist < reach * river.half_width
            if not inside.any():
                break
            ripple = (0.5 + 0.05 * k) * scale * np.sin(along + phase + 0.7 * k)
            pts = draw.offset_polyline(river.centre, sign * (river.half_width - dist + ripple))
            for run in np.split(np.arange(len(pts)), np.flatnonzero(~inside)):
                run = run[inside[run]]
                if len(run) > 3:
                    lines.append(pts[run])
            dist += (3.0 + 0.25 * k ** 1.3) * scale
    draw.polylines(layer, lines, int(rng.uniform(200, 250)), 1)
    # quay walls: a thin line just inside the water
    draw.polylines(layer, [draw.offset_polyline(river.centre, river.half_width - 6 * scale),
                           draw.offset_polyline(river.centre, -river.half_width + 6 * scale)],
                   220, 1)


def draw_bridges(layer: np.ndarray, river: River, outline: int) -> list[Polygon]:
    """Bridges: clear the water hatching in a strip across the river, draw its parapets."""
    decks = []
    for c, tangent, width in river.bridges:
        t = tangent / max(np.hypot(*tangent), 1e-9)
        nrm = np.array([-t[1], t[0]])
        span = float(np.max(river.half_width)) * 1.3
        a0, a1 = c - nrm * span - t * width / 2, c + nrm * span - t * width / 2
        b0, b1 = c - nrm * span + t * width / 2, c + nrm * span + t * width / 2
        deck = Polygon([a0, a1, b1, b0]).intersection(river.water.buffer(3))
        if deck.is_empty:
            continue
        for g in shapely.get_parts(deck):
            if g.geom_type == "Polygon":
                cv2.fillPoly(layer, [draw.fixed(np.asarray(g.exterior.coords))], 0, cv2.LINE_8,
                             draw.SHIFT)
                decks.append(g)
        for p0, p1 in ((a0, a1), (b0, b1)):
            seg = LineString([p0, p1]).intersection(river.water.buffer(outline + 6))
            for s in shapely.get_parts(seg):
                if s.geom_type == "LineString":
                    draw.polyline(layer, np.asarray(s.coords), 255, outline)
    return decks


def draw_railway(layer: np.ndarray, rail: Railway, rng: np.random.Generator,
                 scale: float) -> None:
    """Two rails with cross ticks every 12-20 px."""
    gauge = rng.uniform(4.0, 6.0) * scale
    rails = [draw.offset_polyline(rail.centre, gauge), draw.offset_polyline(rail.centre, -gauge)]
    draw.polylines(layer, rails, 255, max(1, round(1.5 * scale)))
    step = rng.uniform(12.0, 20.0) * scale
    pts, _ = draw.resample(rail.centre, step)
    d = np.gradient(pts, axis=0)
    d /= np.maximum(np.hypot(d[:, 0], d[:, 1])[:, None], 1e-9)
    nrm = np.stack([d[:, 1], -d[:, 0]], axis=1) * gauge * 1.7
    ticks = [np.stack([p - q, p + q]) for p, q in zip(pts, nrm, strict=True)]
    draw.polylines(layer, ticks, 255, 1)


def draw_tree_rows(layer: np.ndarray, streets: list[Street], rng: np.random.Generator,
                   scale: float) -> None:
    """Dotted rows of trees along both sides of wide streets."""
    for st in streets:
        if st.width < 55.0 * scale or rng.random() < 0.4:
            continue
        d = (st.p1 - st.p0) / max(st.length, 1e-9)
        nrm = np.array([-d[1], d[0]])
        step = rng.uniform(14.0, 22.0) * scale
        r = max(1, round(2.0 * scale))
        for side in (-1.0, 1.0):
            off = side * (st.width / 2 - 12.0 * scale)
            n = int(st.length // step)
            for i in range(2, n - 1):
                p = st.p0 + d * (i * step) + nrm * off
                cv2.circle(layer, (int(p[0] * 16), int(p[1] * 16)), r * 16, 200, -1,
                           cv2.LINE_AA, draw.SHIFT)


def draw_red_boundary(layer: np.ndarray, line: np.ndarray, rng: np.random.Generator,
                      scale: float) -> None:
    """A red dashed administrative boundary (dashes 35-60 px, 5-7 px thick)."""
    dash = rng.uniform(35.0, 60.0) * scale
    gap = rng.uniform(14.0, 24.0) * scale
    thick = max(2, round(rng.uniform(4.0, 7.0) * scale))
    draw.dashed(layer, line, 255, thick, dash, gap, rng.uniform(0, dash + gap))


def boundary_paths(streets: list[Street], rng: np.random.Generator, count: int,
                   scale: float, river: River | None) -> list[np.ndarray]:
    """Lines for red boundaries: along major streets, and the middle of the river."""
    paths = []
    majors = sorted((s for s in streets if s.level <= 4), key=lambda s: -s.length)
    majors = majors[:max(count * 3, 1)]
    if river is not None and rng.random() < 0.6:
        paths.append(river.centre)
        count -= 1
    for i in rng.permutation(len(majors))[:max(count, 0)]:
        s = majors[int(i)]
        paths.append(np.stack([s.p0, s.p1]))
    return paths
