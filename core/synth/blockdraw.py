"""Drawing building blocks into the black ink layer: outlines (with gaps), parcel lines,
courtyards, hatching and garden stipple. Flat upright pixels (OpenCV convention)."""

from __future__ import annotations

import cv2
import numpy as np
import shapely
from shapely.geometry import Polygon

from . import draw
from .blocks import Block
from .params import SheetParams


def _ring(poly: Polygon) -> np.ndarray:
    return np.asarray(poly.exterior.coords)[:-1]


def _outline_pieces(block: Block) -> list[np.ndarray]:
    """The outline as polylines, leaving out the block's gaps."""
    ring = _ring(block.polygon)
    if not block.gaps:
        return [np.vstack([ring, ring[:1]])]
    n = len(ring)
    runs: list[list[np.ndarray]] = []
    for i in range(n):
        a, b = ring[i], ring[(i + 1) % n]
        t = 0.0
        intervals = []
        for s, e in sorted((s, min(e, 1.0)) for j, s, e in block.gaps if j % n == i):
            if s > t:
                intervals.append((t, s))
            t = max(t, e)
        if t < 1.0:
            intervals.append((t, 1.0))
        for s, e in intervals:
            pa, pb = a + (b - a) * s, a + (b - a) * e
            if runs and s == 0.0 and np.array_equal(runs[-1][-1], pa):
                runs[-1].append(pb)
            else:
                runs.append([pa, pb])
    if len(runs) > 1 and np.array_equal(runs[-1][-1], runs[0][0]):
        runs[0] = runs[-1][:-1] + runs[0]
        runs.pop()
    return [np.array(r) for r in runs]


def _hatch_patch(poly: Polygon, angle_deg: float, spacing: float, value: int,
                 shape: tuple[int, int], width: float = 1.0
                 ) -> tuple[np.ndarray, int, int] | None:
    """Hatching lines ``width`` px wide clipped to ``poly``: (patch, x0, y0) or None if off
    the sheet."""
    x0, y0, x1, y1 = poly.bounds
    x0, y0 = max(0, int(np.floor(x0)) - 1), max(0, int(np.floor(y0)) - 1)
    x1, y1 = min(shape[1], int(np.ceil(x1)) + 2), min(shape[0], int(np.ceil(y1)) + 2)
    if x1 <= x0 or y1 <= y0:
        return None
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    polys = [poly] if poly.geom_type == "Polygon" else [
        g for g in shapely.get_parts(poly) if g.geom_type == "Polygon"]
    contours = []
    for g in polys:
        contours.append(draw.fixed(np.asarray(g.exterior.coords) - [x0, y0]))
        contours.extend(draw.fixed(np.asarray(r.coords) - [x0, y0]) for r in g.interiors)
    if not contours:
        return None
    cv2.fillPoly(mask, contours, 255, cv2.LINE_8, draw.SHIFT)
    t = np.radians(angle_deg)
    xs = np.arange(x0, x1, dtype=np.float32) * np.float32(np.cos(t))
    ys = np.arange(y0, y1, dtype=np.float32) * np.float32(np.sin(t))
    phase = (ys[:, None] + xs[None, :]) / np.float32(spacing)
    dist = np.abs(phase - np.floor(phase) - 0.5) * np.float32(spacing)
    ink = np.clip(np.float32(0.5 * width + 0.6) - dist, 0, 1) * np.float32(value)
    patch = (ink * (mask > 0)).astype(np.uint8)
    return patch, x0, y0


def _stipple_patch(poly: Polygon, rng: np.random.Generator, scale: float,
                   shape: tuple[int, int]) -> tuple[np.ndarray, int, int] | None:
    """Garden stipple (small dots) clipped to ``poly``."""
    x0, y0, x1, y1 = poly.bounds
    x0, y0 = max(0, int(x0) + 4), max(0, int(y0) + 4)
    x1, y1 = min(shape[1], int(x1) - 3), min(shape[0], int(y1) - 3)
    if x1 <= x0 + 4 or y1 <= y0 + 4:
        return None
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    inner = poly.buffer(-6 * scale)
    if inner.is_empty or inner.geom_type != "Polygon":
        return None
    cv2.fillPoly(mask, [draw.fixed(np.asarray(inner.exterior.coords) - [x0, y0])], 255,
                 cv2.LINE_8, draw.SHIFT)
    dots = np.zeros_like(mask, dtype=np.float32)
    n = int(mask.size / (55.0 * scale * scale))
    ys = rng.integers(0, mask.shape[0], n)
    xs = rng.integers(0, mask.shape[1], n)
    dots[ys, xs] = rng.uniform(700, 1300, n)
    dots = cv2.GaussianBlur(dots, (0, 0), 0.8 * max(scale, 0.7))
    patch = np.clip(dots, 0, 230).astype(np.uint8)
    patch[mask == 0] = 0
    # a path loop in larger gardens
    if min(mask.shape) > 150 * scale and rng.random() < 0.7:
        c = inner.centroid
        ax = (int(0.3 * (x1 - x0)), int(0.3 * (y1 - y0)))
        cv2.ellipse(patch, (int(c.x - x0), int(c.y - y0)), ax, float(rng.uniform(0, 180)), 0,
                    360, 0, max(3, int(10 * scale)))
        cv2.ellipse(patch, (int(c.x - x0), int(c.y - y0)), ax, 0.0, 0, 360, 0, 0)
    return patch, x0, y0


def draw_blocks(ink: np.ndarray, blocks: list[Block], p: SheetParams,
                rng: np.random.Generator) -> None:
    """Outlines, parcel lines, hatching, courtyards and gardens."""
    scale = p.content_scale
    hatch_value = int(rng.uniform(215, 255))
    for b in blocks:
        for poly in b.hatched:
            if poly.is_empty:
                continue
            hp = _hatch_patch(poly, b.hatch_angle + p.hatch_angle_offset,
                              b.hatch_spacing * p.hatch_spacing_factor, hatch_value, ink.shape,
                              p.hatch_width_px)
            if hp is not None:
                draw.paste_max(ink, *hp)
        if b.kind == "garden":
            sp = _stipple_patch(b.polygon, rng, scale, ink.shape)
            if sp is not None:
                draw.paste_max(ink, *sp)
    inner_lines = [ln for b in blocks for ln in b.inner_lines]
    draw.polylines(ink, inner_lines, 235, max(1, p.outline_width_px - 1))
    rings = [r for b in blocks for r in b.inner_rings]
    draw.polylines(ink, rings, 245, max(1, p.outline_width_px - 1), closed=True)
    outlines = [pc for b in blocks for pc in _outline_pieces(b)]
    dash, gap = (float(v) for v in p.outline_dash_px)
    if gap > 0:  # small regular gaps in every outline
        for k, pc in enumerate(outlines):
            draw.dashed(ink, pc, 255, p.outline_width_px, dash, gap, phase=(37.0 * k) % dash)
    else:
        draw.polylines(ink, outlines, 255, p.outline_width_px)
