"""Street network and building blocks: a binary space partition with streets in the cuts.

The map's bounding box is cut recursively by straight streets (wide boulevards first,
lanes last; some cuts continue across neighbouring cells as through streets). The cells
left are the blocks: convex polygons with cut corners, then clipped by the map frame and by
corridors (river banks, railways), cleaned of slivers. Each block gets a kind: plain,
hatched (a public building), subdivided (parcel lines, some parcels hatched), courtyard
(a hatched ring around an inner yard) or garden (stippled). Flat upright pixel coordinates.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import cv2
import numpy as np
import shapely
from shapely.geometry import LineString, Polygon

BLOCK_KINDS = ("plain", "hatched", "subdivided", "courtyard", "garden")


@dataclass
class Street:
    """A street: centre segment from ``p0`` to ``p1`` (pixels), ``width`` px, cut ``level``."""

    p0: np.ndarray
    p1: np.ndarray
    width: float
    level: int

    @property
    def length(self) -> float:
        """Length of the centre segment, pixels."""
        return float(np.hypot(*(self.p1 - self.p0)))


@dataclass
class Block:
    """A building block: its polygon and how it is drawn.

    ``inner_lines``: subdivision (parcel) lines drawn inside; ``hatched``: polygons hatched;
    ``broken``: (edge index, start fraction, end fraction) gaps in the outline.
    """

    polygon: Polygon
    kind: str = "plain"
    inner_lines: list[np.ndarray] = field(default_factory=list)
    inner_rings: list[np.ndarray] = field(default_factory=list)
    hatched: list[Polygon] = field(default_factory=list)
    hatch_angle: float = 45.0
    hatch_spacing: float = 5.0
    gaps: list[tuple[int, float, float]] = field(default_factory=list)


@dataclass
class City:
    """Everything the block generator produced."""

    blocks: list[Block]
    streets: list[Street]
    open_spaces: list[Polygon]


# --- convex polygon helpers ---------------------------------------------------------------
def clip_halfplane(poly: np.ndarray, normal: np.ndarray, offset: float) -> np.ndarray:
    """Part of convex polygon ``poly`` (k, 2) where ``normal . p <= offset`` (may be empty)."""
    if len(poly) == 0:
        return poly
    s = poly @ normal - offset
    out = []
    n = len(poly)
    for i in range(n):
        a, b = poly[i], poly[(i + 1) % n]
        sa, sb = s[i], s[(i + 1) % n]
        if sa <= 0:
            out.append(a)
        if (sa < 0 < sb) or (sb < 0 < sa):
            out.append(a + (b - a) * (sa / (sa - sb)))
    return np.array(out).reshape(-1, 2)


def polygon_area(poly: np.ndarray) -> float:
    """Area of a simple polygon (k, 2), shoelace formula."""
    if len(poly) < 3:
        return 0.0
    x, y = poly[:, 0], poly[:, 1]
    cross = float(np.dot(x[:-1], y[1:]) - np.dot(y[:-1], x[1:]))
    return 0.5 * abs(cross + float(x[-1] * y[0] - y[-1] * x[0]))


def line_segment_in(poly: np.ndarray, normal: np.ndarray, offset: float) -> np.ndarray | None:
    """The segment of the line ``normal . p = offset`` inside convex ``poly``, or None."""
    s = poly @ normal - offset
    pts = []
    n = len(poly)
    for i in range(n):
        a, b = poly[i], poly[(i + 1) % n]
        sa, sb = s[i], s[(i + 1) % n]
        if (sa <= 0 < sb) or (sb <= 0 < sa):
            pts.append(a + (b - a) * (sa / (sa - sb)))
    if len(pts) < 2:
        return None
    return np.array(pts[:2])


def _long_axis(poly: np.ndarray) -> tuple[np.ndarray, float, float]:
    """Unit direction of the long side of the min-area rectangle, its length and width."""
    (_, _), (w, h), ang = cv2.minAreaRect(poly.astype(np.float32))
    t = np.radians(ang)
    u = np.array([np.cos(t), np.sin(t)])
    if h > w:
        u = np.array([-u[1], u[0]])
        w, h = h, w
    return u, float(w), float(h)


def _chamfer(poly: np.ndarray, rng: np.random.Generator, size: float) -> np.ndarray:
    """Cut some corners of a convex polygon (the 'pans coupés' of street corners)."""
    out = []
    n = len(poly)
    for i in range(n):
        v, prev, nxt = poly[i], poly[i - 1], poly[(i + 1) % n]
        a, b = prev - v, nxt - v
        la, lb = np.hypot(*a), np.hypot(*b)
        cosang = float(np.dot(a, b) / max(la * lb, 1e-9))
        c = size * rng.uniform(0.4, 1.0)
        if cosang > -0.5 and rng.random() < 0.35 and la > 4 * c and lb > 4 * c:
            out.extend([v + a / la * c, v + b / lb * c])
        else:
            out.append(v)
    return np.array(out)


def _step(poly: np.ndarray, rng: np.random.Generator, scale: float) -> np.ndarray:
    """Set back part of one long edge by a few pixels: a step in the block's front, as where
    a building line changes. The result lies inside ``poly``."""
    n = len(poly)
    lengths = np.hypot(*(np.roll(poly, -1, axis=0) - poly).T)
    i = int(np.argmax(lengths * rng.uniform(0.5, 1.0, n)))
    if lengths[i] < 120 * scale:
        return poly
    a, b = poly[i], poly[(i + 1) % n]
    d = (b - a) / lengths[i]
    inward = np.array([-d[1], d[0]])
    if np.dot(poly.mean(axis=0) - a, inward) < 0:
        inward = -inward
    t = rng.uniform(0.3, 0.7) * lengths[i]
    depth = rng.uniform(5.0, 18.0) * scale
    p = a + d * t
    new = np.vstack([poly[:i + 1], [p, p + inward * depth, b + inward * depth],
                     poly[i + 2:] if i + 2 <= n else poly[:0]])
    if i == n - 1:  # the edge closes the ring: b is poly[0], move it
        new = np.vstack([[b + inward * depth], poly[1:], [p, p + inward * depth]])
    contour = poly.astype(np.float32).reshape(-1, 1, 2)
    for q in (p + inward * depth, b + inward * depth):
        if cv2.pointPolygonTest(contour, (float(q[0]), float(q[1])), True) < 1.0:
            return poly  # the setback would leave the cell (acute corner)
    if not Polygon(new).is_valid:
        return poly
    return new


# --- the street network -------------------------------------------------------------------
def street_network(rng: np.random.Generator, bounds: tuple[float, float, float, float],
                   scale: float) -> tuple[list[np.ndarray], list[Street]]:
    """Cells (convex polygons) and streets covering ``bounds`` (x0, y0, x1, y1)."""
    x0, y0, x1, y1 = bounds
    root = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float64)
    min_side = 90.0 * scale
    cells: list[np.ndarray] = []
    streets: list[Street] = []
    stack: list[tuple[np.ndarray, int, tuple | None]] = [(root, 0, None)]
    while stack:
        poly, level, hint = stack.pop()
        area = polygon_area(poly)
        u, length, breadth = _long_axis(poly)
        target = (rng.uniform(170.0, 430.0) * scale) ** 2
        if (level > 0 and (area < target or length < 2.2 * min_side)) or level > 24:
            cell = _chamfer(poly, rng, 10.0 * scale)
            if rng.random() < 0.3:
                cell = _step(cell, rng, scale)
            cells.append(cell)
            continue
        cut = None
        if hint is not None:
            n, c, w = hint
            proj = poly @ n
            lo, hi = proj.min(), proj.max()
            if lo + 0.25 * (hi - lo) < c < hi - 0.25 * (hi - lo) and hi - lo > 2.5 * min_side:
                cut = (n, c, w)
        if cut is None:
            jitter = rng.normal(0.0, 8.0) if rng.random() < 0.75 else rng.uniform(-45.0, 45.0)
            t = np.radians(jitter)
            n = np.array([u[0] * np.cos(t) - u[1] * np.sin(t), u[0] * np.sin(t) + u[1] * np.cos(t)])
            proj = poly @ n
            lo, hi = proj.min(), proj.max()
            c = lo + (hi - lo) * rng.uniform(0.33, 0.67)
            w = max(10.0, 95.0 * 0.72 ** level * rng.uniform(0.6, 1.4)) * scale
            if rng.random() < 0.08:
                w = rng.uniform(8.0, 12.0) * scale  # a narrow passage
            cut = (n, c, w)
        n, c, w = cut
        seg = line_segment_in(poly, n, c)
        a = clip_halfplane(poly, n, c - w / 2)
        b = clip_halfplane(poly, -n, -(c + w / 2))
        if seg is not None:
            streets.append(Street(seg[0], seg[1], float(w), level))
        # A through street for both children, crossing this cut, half of the time.
        child_hint = None
        if rng.random() < 0.5:
            m = np.array([-n[1], n[0]])
            proj = poly @ m
            lo, hi = proj.min(), proj.max()
            wc = max(10.0, 95.0 * 0.72 ** (level + 1) * rng.uniform(0.6, 1.4)) * scale
            child_hint = (m, lo + (hi - lo) * rng.uniform(0.3, 0.7), wc)
        for child in (a, b):
            if len(child) >= 3 and polygon_area(child) > (30.0 * scale) ** 2:
                stack.append((child, level + 1, child_hint))
    return cells, streets


def _explode(geoms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Polygon parts of an array of geometries and the index of the geometry of each part."""
    parts, index = shapely.get_parts(geoms, return_index=True)
    keep = shapely.get_type_id(parts) == 3
    return parts[keep], index[keep]


def clean_cells(cells: list[np.ndarray], frame: Polygon, corridors: shapely.Geometry | None,
                scale: float) -> tuple[np.ndarray, np.ndarray]:
    """Clip cells by the frame and corridors, remove slivers; (polygons, source cell index)."""
    geoms = np.array([Polygon(c) for c in cells], dtype=object)
    if not frame.equals(shapely.box(*frame.bounds)):
        geoms = shapely.intersection(geoms, frame)
    if corridors is not None:
        shapely.prepare(corridors)
        hit = shapely.intersects(corridors, geoms)
        geoms[hit] = shapely.difference(geoms[hit], corridors)
    parts, idx = _explode(geoms)
    r = 7.0 * scale
    opened = shapely.buffer(shapely.buffer(parts, -r, join_style="mitre"), r, join_style="mitre")
    opened = shapely.intersection(opened, parts)  # no growth past the original outline
    parts2, idx2 = _explode(opened)
    idx = idx[idx2]
    area_ok = shapely.area(parts2) > (45.0 * scale) ** 2
    parts2 = shapely.simplify(parts2[area_ok], 0.3)
    idx = idx[area_ok]
    # drop holes: a block is the region inside its outer outline
    parts2 = shapely.polygons(shapely.get_exterior_ring(parts2))
    ok = shapely.is_valid(parts2) & ~shapely.is_empty(parts2)
    return parts2[ok], idx[ok]


# --- block interiors ----------------------------------------------------------------------
def _halfplane_box(normal: np.ndarray, offset: float, center: np.ndarray,
                   big: float) -> Polygon:
    """A large polygon standing for the half-plane ``normal . p <= offset`` near ``center``."""
    t = np.array([-normal[1], normal[0]])
    base = center + normal * (offset - float(center @ normal))
    pts = [base + t * big, base - t * big, base - t * big - normal * big,
           base + t * big - normal * big]
    return Polygon(pts)


def _is_convex(poly: Polygon) -> bool:
    return poly.geom_type == "Polygon" and poly.convex_hull.area <= poly.area * 1.0005


def _split(piece: Polygon, n: np.ndarray, c: float, big: float
           ) -> tuple[list[Polygon], list[Polygon], list[np.ndarray]]:
    """Both sides of the line ``n . p = c`` in ``piece`` and the cut segment(s)."""
    if _is_convex(piece):
        ring = np.asarray(piece.exterior.coords)[:-1]
        a = clip_halfplane(ring, n, c)
        b = clip_halfplane(ring, -n, -c)
        seg = line_segment_in(ring, n, c)
        a_parts = [Polygon(a)] if len(a) >= 3 and polygon_area(a) > 1 else []
        b_parts = [Polygon(b)] if len(b) >= 3 and polygon_area(b) > 1 else []
        return a_parts, b_parts, [] if seg is None else [seg]
    center = np.array(piece.centroid.coords[0])
    a = piece.intersection(_halfplane_box(n, c, center, big))
    b = piece.intersection(_halfplane_box(-n, -c, center, big))
    a_parts = [g for g in shapely.get_parts(a) if g.geom_type == "Polygon" and g.area > 1]
    b_parts = [g for g in shapely.get_parts(b) if g.geom_type == "Polygon" and g.area > 1]
    tdir = np.array([-n[1], n[0]])
    base = center + n * (c - float(center @ n))
    cutline = LineString([base - tdir * big, base + tdir * big]).intersection(piece)
    segs = [np.asarray(g.coords) for g in shapely.get_parts(cutline)
            if g.geom_type == "LineString" and g.length > 2]
    return a_parts, b_parts, segs


def subdivide(poly: Polygon, rng: np.random.Generator, scale: float,
              n_cuts: int) -> tuple[list[Polygon], list[np.ndarray]]:
    """Split a block into parcels by ``n_cuts`` random straight cuts (no street).

    Returns the parcels and the cut segments (each (k, 2)) to draw as parcel lines.
    """
    pieces = [poly]
    lines: list[np.ndarray] = []
    for _ in range(n_cuts):
        areas = [p.area for p in pieces]
        i = int(np.argmax(areas))
        piece = pieces[i]
        if piece.area < (60.0 * scale) ** 2:
            break
        ring = np.asarray(piece.exterior.coords)[:-1]
        u, length, _ = _long_axis(ring)
        t = np.radians(rng.normal(0.0, 5.0))
        n = np.array([u[0] * np.cos(t) - u[1] * np.sin(t), u[0] * np.sin(t) + u[1] * np.cos(t)])
        proj = ring @ n
        lo, hi = proj.min(), proj.max()
        c = lo + (hi - lo) * rng.uniform(0.3, 0.7)
        a_parts, b_parts, segs = _split(piece, n, c, 4.0 * length + 10.0)
        if not a_parts or not b_parts:
            continue
        lines.extend(segs)
        pieces = pieces[:i] + pieces[i + 1:] + a_parts + b_parts
    return pieces, lines


def frontage(poly: Polygon, rng: np.random.Generator, scale: float, hatch_p: float
             ) -> tuple[list[np.ndarray], list[Polygon], np.ndarray] | None:
    """Buildings along the street front: a band ``depth`` px deep cut into parcels, around
    an inner courtyard. Returns (parcel lines, hatched parcels, courtyard ring) or None."""
    depth = float(rng.uniform(22.0, 55.0) * scale)
    inner = poly.buffer(-depth, join_style="mitre")
    if inner.is_empty or inner.geom_type != "Polygon" or inner.area < (25 * scale) ** 2:
        return None
    ring = np.asarray(poly.exterior.coords)[:-1]
    centre = np.array(poly.centroid.coords[0])
    lines: list[np.ndarray] = []
    hatched: list[Polygon] = []
    for i in range(len(ring)):
        a, b = ring[i], ring[(i + 1) % len(ring)]
        length = float(np.hypot(*(b - a)))
        if length < 2 * depth + 20 * scale:
            continue
        d = (b - a) / length
        n = np.array([-d[1], d[0]])
        if np.dot(centre - a, n) < 0:
            n = -n
        ts = [depth]
        while ts[-1] < length - depth:
            ts.append(ts[-1] + float(rng.uniform(18.0, 60.0) * scale))
        ts[-1] = min(ts[-1], length - depth)
        pts = [a + d * t for t in ts]
        mids = np.array(pts) + n * depth / 2
        inside = shapely.contains_xy(poly, mids[:, 0], mids[:, 1])
        lines.extend(np.stack([q, q + n * depth]) for q, ok in zip(pts, inside, strict=True)
                     if ok)
        for q0, q1 in itertools.pairwise(pts):
            if rng.random() < hatch_p:
                hatched.append(Polygon([q0, q1, q1 + n * depth, q0 + n * depth]))
    return lines, hatched, np.asarray(inner.exterior.coords)


def dress_blocks(polys: np.ndarray, rng: np.random.Generator, scale: float,
                 hatch_fraction: float, subdivision_fraction: float, garden_fraction: float,
                 broken_fraction: float) -> list[Block]:
    """Give each block polygon a kind, parcel lines, hatching and outline gaps."""
    blocks = []
    for poly in polys:
        u = rng.random()
        angle = float(rng.choice([45.0, 135.0, 45.0, 135.0, 90.0, 0.0, 60.0, 120.0]))
        spacing = float(rng.uniform(3.0, 4.8) * max(scale, 0.7))
        b = Block(poly, hatch_angle=angle, hatch_spacing=spacing)
        if u < garden_fraction:
            b.kind = "garden"
        elif u < garden_fraction + hatch_fraction * 0.3:
            b.kind = "hatched"
            b.hatched = [poly]
        elif u < garden_fraction + hatch_fraction * 0.45 and poly.area > (200 * scale) ** 2:
            ring = float(rng.uniform(25.0, 45.0) * scale)
            inner = poly.buffer(-ring, join_style="mitre")
            if (not inner.is_empty and inner.geom_type == "Polygon"
                    and inner.area > (40 * scale) ** 2):
                b.kind = "courtyard"
                b.hatched = [poly.difference(inner)]
                b.inner_rings = [np.asarray(inner.exterior.coords)]
        elif rng.random() < subdivision_fraction:
            front = frontage(poly, rng, scale, hatch_fraction) if rng.random() < 0.6 else None
            if front is not None:
                b.kind = "subdivided"
                b.inner_lines, b.hatched, courtyard = front
                b.inner_rings = [courtyard]
                if rng.random() < 0.4:  # a building in the courtyard too
                    parcels, more = subdivide(Polygon(courtyard), rng, scale,
                                              int(rng.integers(1, 4)))
                    b.inner_lines += more
                    b.hatched += [q for q in parcels if rng.random() < hatch_fraction]
            else:
                parcels, lines = subdivide(poly, rng, scale, int(rng.integers(2, 9)))
                b.kind = "subdivided"
                b.inner_lines = lines
                b.hatched = [q for q in parcels if rng.random() < hatch_fraction]
        if rng.random() < broken_fraction:
            n_edges = len(poly.exterior.coords) - 1
            for _ in range(int(rng.integers(1, 3))):
                s = float(rng.uniform(0.1, 0.7))
                b.gaps.append((int(rng.integers(0, n_edges)), s, s + float(rng.uniform(0.1, 0.3))))
        blocks.append(b)
    return blocks
