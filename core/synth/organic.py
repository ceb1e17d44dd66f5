"""An organic street network: irregular blocks of a grown town instead of a planned grid.

The second layout of the generator (``street_layout="organic"``), drawn only by the
held-out style ``heldout-organic``: blocks are the cells of a Voronoi diagram of scattered
seeds (any angle, 4-8 sides, uneven sizes), each set back from its neighbours by its own
half street width, and cut by a few wide boulevards radiating, gently bent, from round
squares (places). Same outputs as :func:`core.synth.blocks.street_network`: convex-ish
cells (k, 2) and :class:`~core.synth.blocks.Street` segments, flat upright pixel
coordinates (x right, y down).
"""

from __future__ import annotations

import itertools

import numpy as np
import shapely
from scipy.spatial import Voronoi
from shapely.geometry import LineString, Point, Polygon

from .blocks import Street, _chamfer, clip_halfplane

#: Street widths of the organic layout, px at content scale 1: half widths of a lane
#: (each block's set-back), and whole boulevard widths.
HALF_LANE_PX = (5.0, 15.0)
BOULEVARD_PX = (45.0, 85.0)


def scattered_seeds(rng: np.random.Generator, bounds: tuple[float, float, float, float],
                    spacing: float) -> np.ndarray:
    """Seeds (n, 2) no closer than about ``spacing`` x 0.6-1.1 px (dart throwing)."""
    x0, y0, x1, y1 = bounds
    n_try = int(6 * (x1 - x0) * (y1 - y0) / spacing ** 2) + 8
    cand = np.column_stack([rng.uniform(x0, x1, n_try), rng.uniform(y0, y1, n_try)])
    radius = spacing * rng.uniform(0.6, 1.1, n_try)
    cell = spacing * 0.6
    grid: dict[tuple[int, int], list[int]] = {}
    kept: list[int] = []
    for i, (x, y) in enumerate(cand):
        gx, gy = int(x // cell), int(y // cell)
        reach = int(np.ceil(radius[i] / cell))
        near = (j for dx in range(-reach, reach + 1) for dy in range(-reach, reach + 1)
                for j in grid.get((gx + dx, gy + dy), ()))
        if all(np.hypot(*(cand[j] - cand[i])) >= radius[i] for j in near):
            grid.setdefault((gx, gy), []).append(i)
            kept.append(i)
    return cand[kept]


def _boulevards(rng: np.random.Generator, bounds: tuple[float, float, float, float],
                scale: float) -> tuple[list[Polygon], list[Street]]:
    """Round squares and the bent boulevards leaving them: (areas kept free, streets)."""
    x0, y0, x1, y1 = bounds
    size = min(x1 - x0, y1 - y0)
    free: list[Polygon] = []
    streets: list[Street] = []
    for _ in range(int(rng.integers(1, 3))):
        centre = np.array([rng.uniform(x0 + 0.25 * (x1 - x0), x1 - 0.25 * (x1 - x0)),
                           rng.uniform(y0 + 0.25 * (y1 - y0), y1 - 0.25 * (y1 - y0))])
        radius = float(rng.uniform(90.0, 200.0) * scale)
        free.append(Point(centre).buffer(radius, quad_segs=24))
        for heading in rng.uniform(0, 2 * np.pi) + np.sort(rng.uniform(0, 2 * np.pi, 3)):
            width = float(rng.uniform(*BOULEVARD_PX) * scale)
            pts, angle = [centre], heading
            while len(pts) < 12:
                step = float(rng.uniform(0.15, 0.3) * size)
                nxt = pts[-1] + step * np.array([np.cos(angle), np.sin(angle)])
                pts.append(nxt)
                angle += float(rng.normal(0.0, 0.12))
                if not (x0 <= nxt[0] <= x1 and y0 <= nxt[1] <= y1):
                    break
            line = LineString(pts)
            free.append(line.buffer(width / 2, cap_style="flat", join_style="mitre"))
            streets += [Street(np.asarray(a), np.asarray(b), width, 0)
                        for a, b in itertools.pairwise(pts)]
    return free, streets


def organic_street_network(rng: np.random.Generator, bounds: tuple[float, float, float, float],
                           scale: float) -> tuple[list[np.ndarray], list[Street]]:
    """Cells (k, 2) and streets covering ``bounds`` (x0, y0, x1, y1), organic layout.

    Examples
    --------
    >>> cells, streets = organic_street_network(np.random.default_rng(1), (0, 0, 2000, 2000), 1.0)
    >>> len(cells) > 20 and all(len(c) >= 3 for c in cells)
    True
    """
    x0, y0, x1, y1 = bounds
    seeds = scattered_seeds(rng, bounds, float(rng.uniform(230.0, 330.0) * scale))
    if len(seeds) < 4:
        return [np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float)], []
    # mirrored copies across the four sides make every seed's cell finite inside the bounds
    mirrors = [seeds, seeds * [-1, 1] + [2 * x0, 0], seeds * [-1, 1] + [2 * x1, 0],
               seeds * [1, -1] + [0, 2 * y0], seeds * [1, -1] + [0, 2 * y1]]
    vor = Voronoi(np.concatenate(mirrors))
    half = rng.uniform(*HALF_LANE_PX, len(seeds)) * scale
    free, streets = _boulevards(rng, bounds, scale)
    blocked = shapely.union_all(free) if free else None
    cells: list[np.ndarray] = []
    for i in range(len(seeds)):
        ring = vor.vertices[vor.regions[vor.point_region[i]]]
        centre = seeds[i]
        for a, b in zip(ring, np.roll(ring, -1, axis=0), strict=True):
            # set the cell back by its half street width from each edge
            edge = b - a
            normal = np.array([edge[1], -edge[0]]) / max(float(np.hypot(*edge)), 1e-9)
            if np.dot(centre - a, normal) > 0:
                normal = -normal
            offset = float(a @ normal) - half[i]
            ring = clip_halfplane(ring, normal, offset) if len(ring) else ring
        if len(ring) < 3:
            continue
        ring = _chamfer(ring, rng, 10.0 * scale)
        poly = Polygon(ring)
        if blocked is not None and poly.intersects(blocked):
            poly = poly.difference(blocked)
        for part in shapely.get_parts(poly):
            if part.geom_type == "Polygon" and part.area > (30.0 * scale) ** 2:
                cells.append(np.asarray(part.exterior.coords)[:-1])
    n = len(seeds)
    for (i, j), verts in zip(vor.ridge_points, vor.ridge_vertices, strict=True):
        if i < n and j < n and -1 not in verts:
            a, b = vor.vertices[verts[0]], vor.vertices[verts[1]]
            streets.append(Street(a, b, float(half[i] + half[j]), 3))
    return cells, streets
