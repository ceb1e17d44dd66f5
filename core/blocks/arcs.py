"""Topology-preserving simplification of a label image's polygons, arc by arc.

The polygons of a label image (pixel-corner lattice: pixel (i, j) is the square
[i, i+1] x [j, j+1], x right, y down) share their boundaries. A lattice corner is a *node*
when three or more boundary edges meet there: three or four different labels around it
(the background and the outside of the image count as label 0), or two labels on the
diagonals (checkerboard); the four corners of the image are nodes too, so boundaries
along the image edge stay on it. Every ring is cut at its nodes into *arcs*; each edge of the
lattice belongs to exactly one arc, so both polygons along an arc hold the same one. A ring
with no node (an island inside one region) is cut at its lexicographically smallest vertex,
and any arc that closes on itself at the vertex farthest from its end (ties: the
lexicographically smallest): both choices depend only on the arc's points, so both sides
choose alike. Each distinct arc is simplified once with Douglas-Peucker (OpenCV,
``cv2.approxPolyDP``) keeping its end points; rings are rebuilt from the arcs, so
neighbours keep exactly the same boundary: no gap, no overlap along it.

The tolerance is the largest distance, in pixels, of the simplified boundary from the
pixel boundary. Tolerance 0 keeps the pixel boundary exactly (only vertices in the middle
of straight runs are dropped).
"""

from __future__ import annotations

import cv2
import numpy as np

from .rings import Feature, Polygon

# an arc used by a ring: (arc index, traversed backwards)
ArcUse = tuple[int, bool]


def lattice_points(rings: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Every lattice corner along closed rings of axis-aligned edges with integer vertices
    (as GDAL polygonizes pixels).

    Returns ``(M, 2) int64`` points of all the rings one after the other (closing points
    not repeated) and ``(R + 1,)`` offsets: ring r is ``points[off[r]:off[r + 1]]``.
    """
    v = np.rint(np.concatenate(rings)).astype(np.int64)
    d = np.diff(v, axis=0)
    d[np.cumsum([len(r) for r in rings])[:-1] - 1] = 0  # no edge from a ring to the next
    if np.any((d != 0).sum(axis=1) > 1):
        raise ValueError("ring edges must be horizontal or vertical")
    steps = np.abs(d).sum(axis=1)
    keep = steps > 0
    start, d, steps_kept = v[:-1][keep], d[keep], steps[keep]
    unit = d // steps_kept[:, None]
    t = np.arange(steps_kept.sum()) - np.repeat(np.cumsum(steps_kept) - steps_kept,
                                                steps_kept)
    pts = (np.repeat(start, steps_kept, axis=0)
           + t[:, None] * np.repeat(unit, steps_kept, axis=0))
    first = np.concatenate([[0], np.cumsum([len(r) for r in rings])[:-1]])
    return pts, np.append(np.concatenate([[0], np.cumsum(steps)])[first], len(pts))


def is_node(labels: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Whether each lattice corner ``pts`` (x, y) is a node: three or more boundary edges
    meet there (pixels outside the image count as label 0), or it is a corner of the image
    (so polygons along the image edge keep it)."""
    h, w = labels.shape
    x, y = pts[:, 0], pts[:, 1]

    def pixel(dy: int, dx: int) -> np.ndarray:
        yy, xx = y + dy, x + dx
        inside = (yy >= 0) & (yy < h) & (xx >= 0) & (xx < w)
        return np.where(inside, labels[np.clip(yy, 0, h - 1), np.clip(xx, 0, w - 1)], 0)

    a, b, c, d = pixel(-1, -1), pixel(-1, 0), pixel(0, -1), pixel(0, 0)
    degree = (a != b).astype(np.int8) + (c != d) + (a != c) + (b != d)
    return (degree >= 3) | (((x == 0) | (x == w)) & ((y == 0) | (y == h)))


def turns(pts: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Whether each point of the rings (as from :func:`lattice_points`) is a corner: the
    ring changes direction there."""
    index = np.arange(len(pts))
    nxt, prv = index + 1, index - 1
    last, first = offsets[1:] - 1, offsets[:-1]
    nxt[last] = first
    prv[first] = last
    return np.any(pts[nxt] - pts != pts - pts[prv], axis=1)


def _lexmin(pts: np.ndarray, candidates: np.ndarray) -> int:
    """Index (in ``pts``) of the lexicographically smallest (x, y) among ``candidates``."""
    return int(candidates[np.lexsort((pts[candidates, 1], pts[candidates, 0]))[0]])


def ring_arcs(pts: np.ndarray, node: np.ndarray) -> list[np.ndarray]:
    """Cut a closed ring of lattice points (``(M, 2)``, not repeated) at its nodes into
    open arcs, returned as arrays of indices into ``pts`` (end points included), in the
    ring's order."""
    m = len(pts)
    cuts = np.flatnonzero(node)
    if len(cuts) == 0:
        cuts = np.array([_lexmin(pts, np.arange(m))])
    closed = np.concatenate([np.arange(cuts[0], m), np.arange(cuts[0] + 1)])
    bounds = np.append(cuts - cuts[0], m)
    arcs = []
    for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
        arc = closed[a:b + 1]
        if arc[0] == arc[-1] or np.array_equal(pts[arc[0]], pts[arc[-1]]):
            d2 = ((pts[arc] - pts[arc[0]]) ** 2).sum(axis=1)
            k = _lexmin(pts[arc], np.flatnonzero(d2 == d2.max()))
            arcs += [arc[:k + 1], arc[k:]]
        else:
            arcs.append(arc)
    return arcs


def _edge_id(p: np.ndarray, q: np.ndarray, columns: int) -> int:
    """A number for the unit lattice edge p-q (either direction)."""
    return 2 * (int(min(p[1], q[1])) * columns + int(min(p[0], q[0]))) + int(p[0] == q[0])


class Coverage:
    """The polygons of a label image as rings of shared arcs.

    Parameters
    ----------
    labels : (H, W) int array
        The label image the polygons were made from (0: background).
    parts : list of list of Polygon
        ``parts[i]``: the polygons of label i on the pixel-corner lattice (integer
        vertices, axis-aligned edges), e.g. from GDAL's polygonize; empty when none.
    tolerance : float
        Douglas-Peucker tolerance in pixels; 0 keeps the pixel boundaries.
    """

    def __init__(self, labels: np.ndarray, parts: list[list[Polygon]], tolerance: float):
        self.exact: list[np.ndarray] = []   # arc corners in canonical direction, int
        self.simple: list[np.ndarray] = []  # the same arc simplified
        self.users: list[set[int]] = []     # labels whose rings use each arc
        self.tolerance = float(tolerance)
        self._keys: dict[int, int] = {}
        self._columns = labels.shape[1] + 1
        owners = [(i, k) for i, polygons in enumerate(parts)
                  for k, polygon in enumerate(polygons) for _ in polygon]
        rings = [ring for polygons in parts for polygon in polygons for ring in polygon]
        self.specs: list[list[list[list[ArcUse]]]] = [[[] for _ in p] for p in parts]
        if rings:
            pts, offsets = lattice_points(rings)
            node, corner = is_node(labels, pts), turns(pts, offsets)
            for r, (i, k) in enumerate(owners):
                a, b = offsets[r], offsets[r + 1]
                self.specs[i][k].append(self._ring_spec(pts[a:b], node[a:b], corner[a:b], i))
        self.exact_only = np.zeros(len(self.exact), bool)

    def _ring_spec(self, pts: np.ndarray, node: np.ndarray, corner: np.ndarray,
                   label: int) -> list[ArcUse]:
        spec = []
        for arc in ring_arcs(pts, node):
            p0, p1, q1, q0 = pts[arc[0]], pts[arc[1]], pts[arc[-2]], pts[arc[-1]]
            first, last = _edge_id(p0, p1, self._columns), _edge_id(q0, q1, self._columns)
            backwards = first > last or (first == last and tuple(p0) > tuple(q0))
            k = self._keys.get(min(first, last))
            if k is None:
                k = self._keys[min(first, last)] = len(self.exact)
                keep = corner[arc]
                keep[0] = keep[-1] = True
                self._add(pts[arc[keep][::-1] if backwards else arc[keep]])
            self.users[k].add(label)
            spec.append((k, backwards))
        return spec

    def _add(self, exact: np.ndarray) -> None:
        simple = exact
        if self.tolerance > 0 and len(exact) > 2:
            simple = cv2.approxPolyDP(exact.astype(np.int32).reshape(-1, 1, 2),
                                      self.tolerance, False).reshape(-1, 2)
        self.exact.append(exact)
        self.simple.append(simple)
        self.users.append(set())

    def arcs_of(self, label: int) -> set[int]:
        """Indices of the arcs bounding ``label``."""
        return {k for polygon in self.specs[label] for ring in polygon for k, _ in ring}

    def feature(self, label: int) -> Feature | None:
        """The polygons of ``label`` from the current arcs (None when it has none)."""
        if not self.specs[label]:
            return None
        return [[self._ring(spec) for spec in polygon] for polygon in self.specs[label]]

    def _ring(self, spec: list[ArcUse]) -> np.ndarray:
        pieces = []
        for k, backwards in spec:
            arc = self.exact[k] if self.exact_only[k] else self.simple[k]
            pieces.append((arc[::-1] if backwards else arc)[:-1])
        pieces.append(pieces[0][:1])
        return np.concatenate(pieces).astype(np.float64)

    def keep_exact(self, arcs: set[int]) -> set[int]:
        """Put ``arcs`` back to their pixel boundary; the labels whose rings changed."""
        changed: set[int] = set()
        for k in arcs:
            if not self.exact_only[k] and len(self.simple[k]) != len(self.exact[k]):
                changed |= self.users[k]
            self.exact_only[k] = True
        return changed
