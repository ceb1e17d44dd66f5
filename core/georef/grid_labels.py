"""Naming the detected intersections: grid indices + anchors (or known GCPs) -> grid coordinates.

Detection numbers the intersections in image terms: ``(column, row)``, the column growing
towards +x and the row towards +y (down). An anchor ``X,Y=E,N`` says that the grid node
nearest pixel (X, Y) has grid coordinates (E, N). The grid coordinates of the node with
index ``i = (column, row)`` are then ``origin + spacing * P @ i`` where P is a signed
permutation matrix:

- one anchor: the sheet is taken as north-up within 45 degrees, P = [[1, 0], [0, -1]]
  (easting grows with the column, northing falls with the row);
- two or more: every rotation by a multiple of 90 degrees is tried and the one most anchors
  agree with wins; a mirrored grid is only chosen when the anchors demand it (and a warning
  says so). Anchors that disagree with the winner are reported and left out.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError, option
from ..graticule.result import (  # noqa: F401 (index_shift re-exported)
    GraticuleResult,
    LineFamily,
    fractional_index,
    index_shift,
    snap_to_grid,
)
from ..limits import MAX_MAP_COORD, MAX_PIXEL_COORD, coordinate_problem

#: Detection results use core's default pixel convention (integer coordinates are pixel
#: centres, as in OpenCV and MapSeg); GCPs, anchors and outputs use GDAL's and QGIS's (the
#: top-left pixel's centre is (0.5, 0.5)). GCP position = detected position + this.
CENTRE_TO_CORNER = 0.5
NORTH_UP = np.array([[1, 0], [0, -1]])
_ROTATIONS = [np.array([[1, 0], [0, 1]]), np.array([[0, -1], [1, 0]]),
              np.array([[-1, 0], [0, -1]]), np.array([[0, 1], [-1, 0]])]
#: The 4 proper orientations (rotations of NORTH_UP) then the 4 mirrored ones.
ORIENTATIONS = [r @ NORTH_UP for r in _ROTATIONS] + list(_ROTATIONS)
_NORTH_NAMES = {(0, -1): "up", (1, 0): "right", (0, 1): "down", (-1, 0): "left"}
#: Farthest an anchor may be from its grid node, in grid cells (the detected spacing).
MAX_ANCHOR_OFFSET = 0.25
#: The error when nothing says which intersection is which.
NO_ANCHOR = (f"which intersection is which? give {option('anchor')} X,Y=E,N (the grid node "
             "nearest pixel X,Y has grid coordinates E,N; two anchors fix any rotation) or "
             f"{option('gcps')} FILE.points (QGIS GCPs of known nodes)")
_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_PAIR = rf"\s*({_NUMBER})\s*,\s*({_NUMBER})\s*"
_ANCHOR_RE = re.compile(rf"^{_PAIR}={_PAIR}$")


@dataclass(frozen=True)
class Anchor:
    """A known grid node: the node nearest ``pixel_xy`` (x right, y down) has ``grid_xy``.

    ``source`` says where it came from, for messages ("--anchor 1", "map.points line 3").
    """

    pixel_xy: tuple[float, float]
    grid_xy: tuple[float, float]
    source: str = "anchor"


def parse_anchor(text: str, source: str = option("anchor")) -> Anchor:
    """Parse ``X,Y=E,N`` (pixel position = grid coordinates); InputError if malformed."""
    m = _ANCHOR_RE.match(str(text))
    if not m:
        raise InputError(f"{source} {text!r} is not X,Y=E,N (pixel x,y = grid easting,"
                         "northing), e.g. 2276,1667=-1000,2000", field="anchor", value=text)
    x, y, e, n = (float(g) for g in m.groups())
    problem = (coordinate_problem((x, y), MAX_PIXEL_COORD, "px")
               or coordinate_problem((e, n), MAX_MAP_COORD))
    if problem:
        raise InputError(f"{source} {text.strip()!r}: {problem}; give the pixel position "
                         "and the grid coordinates of a node", field="anchor", value=text)
    return Anchor((x, y), (e, n), f"{source} {text.strip()}")


@dataclass
class Labelling:
    """How grid indices map to grid coordinates: ``grid = origin + spacing * P @ index``.

    Attributes:
        orientation: P, a 2x2 signed permutation (int).
        origin: grid coordinates of index (0, 0).
        spacing: grid spacing in grid-CRS units.
        north_in_image: where grid north points on the sheet: up, right, down or left.
        mirrored: True when the anchors demanded a mirrored grid.
        anchors: every anchor given; ``anchor_index`` their snapped (column, row).
        rejected_anchors: positions in ``anchors`` of those that disagree (left out).
        warnings: sentences for the report.
        source: "anchors" or "labels" (the grid values printed on the sheet were read).
        labels: with "labels", one record per word read (see
            :attr:`core.gridlabels.GridLabelling.labels`).
        certainty: with "labels", the margins of the values read over the runner-up
            (:attr:`core.gridlabels.GridLabelling.certainty`).
        seconds: with "labels", how long reading them took (wall clock).
    """

    orientation: np.ndarray
    origin: np.ndarray
    spacing: float
    north_in_image: str
    mirrored: bool
    anchors: list[Anchor] = field(default_factory=list)
    anchor_index: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), int))
    rejected_anchors: list[int] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    source: str = "anchors"
    labels: list[dict] = field(default_factory=list)
    certainty: dict | None = None
    seconds: float | None = None

    def grid_coordinates(self, index: np.ndarray) -> np.ndarray:
        """Grid coordinates ``(N, 2)`` of ``(N, 2)`` (column, row) indices."""
        idx = np.asarray(index, dtype=np.float64).reshape(-1, 2)
        return self.origin + self.spacing * idx @ self.orientation.T

    def to_dict(self) -> dict:
        """JSON-ready summary for the report."""
        return {"orientation": self.orientation.tolist(), "origin": self.origin.tolist(),
                "spacing": self.spacing, "north_in_image": self.north_in_image,
                "mirrored": self.mirrored,
                "anchors": [{"source": a.source, "pixel": list(a.pixel_xy),
                             "grid": list(a.grid_xy), "index": idx.tolist(),
                             "used": k not in self.rejected_anchors}
                            for k, (a, idx) in enumerate(zip(self.anchors, self.anchor_index,
                                                             strict=True))],
                "warnings": list(self.warnings), "source": self.source,
                "labels": list(self.labels), "certainty": self.certainty,
                "candidates": _candidates(self.certainty), "seconds": self.seconds}


def _candidates(certainty: dict | None) -> list[dict]:
    """Each family's best reading and runner-up (:func:`core.gridlabels.reader.candidates_of`)."""
    from ..gridlabels.reader import candidates_of

    return candidates_of(certainty) if certainty else []


def check_anchor_distances(result: GraticuleResult, pixel_xy: np.ndarray,
                           anchors: list[Anchor],
                           in_map: Callable[[np.ndarray], np.ndarray] | None = None) -> None:
    """InputError when an anchor names no grid crossing of the sheet, so that snapping it
    would label the sheet from a guess: farther than :data:`MAX_ANCHOR_OFFSET` of a grid
    cell from its node, or on a node beyond the grid lines found. A node one line beyond
    them is accepted (an outer line the detection missed) when ``in_map`` (``(K, 2)``
    positions -> ``(K,)`` bool, or None: no map area known) says the anchor lies in the
    map area. ``pixel_xy`` in the detection convention."""
    frac = fractional_index(result, pixel_xy)
    cell = np.array([result.columns.spacing_px, result.rows.spacing_px])
    off = (frac - np.round(frac)) * cell                       # pixels, across each family
    dist_px = np.hypot(off[:, 0], off[:, 1])
    dist_cells = np.hypot(*(frac - np.round(frac)).T)
    node = np.round(frac).astype(np.int64)
    lines = [result.columns.indices or tuple(result.index[:, 0]),
             result.rows.indices or tuple(result.index[:, 1])]
    problem, k = None, 0
    if all(len(v) for v in lines):
        # one line beyond those found is allowed: an outer line the detection missed
        lo = np.array([min(v) for v in lines]) - 1
        hi = np.array([max(v) for v in lines]) + 1
        beyond = np.any((node < lo) | (node > hi), axis=1)
        outer = np.any((node == lo) | (node == hi), axis=1) & ~beyond
        if in_map is not None and outer.any():
            beyond[outer] = ~np.asarray(in_map(pixel_xy[outer]), dtype=bool)
        outside = np.flatnonzero(beyond)
        if len(outside):
            k = int(outside[0])
            where = " outside the map area" if outer[k] else ""
            problem = (f"is at grid node (column {node[k, 0]}, row {node[k, 1]}), beyond the "
                       f"grid lines found on the sheet (columns {lo[0] + 1} to {hi[0] - 1}, "
                       f"rows {lo[1] + 1} to {hi[1] - 1}){where}: no grid crossing was seen "
                       "there")
    far = np.flatnonzero(dist_cells > MAX_ANCHOR_OFFSET)
    if problem is None and len(far):
        k = int(far[0])
        more = f" (and {len(far) - 1} more)" if len(far) > 1 else ""
        problem = (f"is {dist_px[k]:.0f} px ({dist_cells[k]:.0%} of a grid cell) from the "
                   f"nearest grid node{more}; an anchor must be within "
                   f"{MAX_ANCHOR_OFFSET:.0%} of a cell ({MAX_ANCHOR_OFFSET * cell.mean():.0f} "
                   "px) of a crossing of two grid lines")
    if problem is not None:
        raise InputError(f"{anchors[k].source} {problem}; click on a crossing of two grid "
                         "lines", field="anchor", value=anchors[k].pixel_xy)


def _north_name(p: np.ndarray) -> str:
    # index step that increases northing: P^-1 (0, 1), as an image direction (x, y down)
    d = np.round(np.linalg.inv(p) @ np.array([0.0, 1.0])).astype(int)
    return _NORTH_NAMES[(int(d[0]), int(d[1]))]


def solve_labelling(anchor_index: np.ndarray, anchor_grid: np.ndarray, spacing: float,
                    anchors: list[Anchor] | None = None) -> Labelling:
    """Find the orientation P and origin that make ``grid = origin + spacing * P @ index``
    agree with the most anchors (``(K, 2)`` snapped indices and grid coordinates).

    A node agrees when its predicted grid coordinates are within a quarter of the spacing of
    the anchor's. Raises InputError when no anchor is given or when two or more anchors
    agree with no common grid.
    """
    idx = np.asarray(anchor_index, dtype=np.int64).reshape(-1, 2)
    grid = np.asarray(anchor_grid, dtype=np.float64).reshape(-1, 2)
    k = len(idx)
    anchors = list(anchors) if anchors is not None else [
        Anchor((np.nan, np.nan), tuple(g), f"anchor {i + 1}") for i, g in enumerate(grid)]
    if k == 0:
        raise InputError(NO_ANCHOR, field="anchor")
    if not spacing > 0:
        raise InputError(f"{option('spacing')} must be a positive distance, not {spacing}",
                         field="spacing", value=spacing)
    tol = 0.25 * spacing
    distinct_nodes = len(np.unique(idx, axis=0))
    candidates = ORIENTATIONS[:1] if distinct_nodes == 1 else ORIENTATIONS
    best = None
    for rank, p in enumerate(candidates):
        origins = grid - spacing * idx @ p.T
        for ref in range(k):
            agree = np.all(np.abs(origins - origins[ref]) <= tol, axis=1)
            key = (int(agree.sum()), rank < 4, -rank)  # most anchors, then proper, then order
            if best is None or key > best[0]:
                best = (key, p, origins[agree].mean(axis=0), agree)
    (count, proper, _), p, origin, agree = best
    if k >= 2 and count < 2:
        names = ", ".join(a.source for a in anchors)
        raise InputError(f"the anchors disagree ({names}): no grid of spacing {spacing:g} "
                         f"fits two of them; check their grid coordinates and {option('spacing')}",
                         field="anchor")
    warnings = []
    rejected = [i for i in range(k) if not agree[i]]
    for i in rejected:
        warnings.append(f"{anchors[i].source} disagrees with the other anchors and was "
                        "left out")
    if not proper:
        warnings.append("the anchors describe a mirrored grid (easting or northing runs the "
                        "wrong way); check them if the sheet is not a mirror image")
    if k == 1 or distinct_nodes == 1:
        warnings.append("one anchor: the sheet is assumed north-up (within 45 degrees); "
                        "give a second anchor for rotated sheets")
    origin = np.round(origin, 9)
    return Labelling(orientation=p.copy(), origin=origin, spacing=float(spacing),
                     north_in_image=_north_name(p), mirrored=not proper, anchors=anchors,
                     anchor_index=idx, rejected_anchors=rejected, warnings=warnings)


def graticule_from_points(points: np.ndarray, index: np.ndarray, image_size: tuple[int, int],
                          confidence: np.ndarray | None = None) -> GraticuleResult:
    """A :class:`GraticuleResult` from intersections with known (column, row) indices.

    ``points`` are in the detection convention (integer coordinates are pixel centres):
    subtract :data:`CENTRE_TO_CORNER` from GCP-convention positions (QGIS, core.synth).

    The two line families are those of the least-squares affine map index -> pixel (for
    intersections from another source: ground truth, a MapSeg CSV, a simulation). Needs
    three intersections not on one line; indices must follow the image-oriented convention.
    """
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    idx = np.asarray(index, dtype=np.int64).reshape(-1, 2)
    design = np.column_stack([idx, np.ones(len(idx))])
    if len(idx) < 3 or np.linalg.matrix_rank(design) < 3:
        raise InputError("three intersections not on one grid line are needed to build "
                         "the line families")
    coef, *_ = np.linalg.lstsq(design, pts, rcond=None)
    step_col, step_row, origin = coef[0], coef[1], coef[2]

    def family(step_along: np.ndarray, step_across: np.ndarray, k: np.ndarray) -> LineFamily:
        normal = np.array([step_along[1], -step_along[0]])
        normal /= np.hypot(*normal)
        if normal @ step_across < 0:
            normal = -normal
        return LineFamily(normal_angle_deg=float(np.degrees(np.arctan2(normal[1], normal[0]))),
                          spacing_px=float(normal @ step_across),
                          offset_px=float(normal @ origin),
                          indices=tuple(int(i) for i in np.unique(k)))

    columns = family(step_row, step_col, idx[:, 0])
    rows = family(step_col, step_row, idx[:, 1])
    conf = np.ones(len(pts)) if confidence is None else confidence
    return GraticuleResult(pts, idx, conf, columns, rows, tuple(image_size))


def label_intersections(result: GraticuleResult, anchors: list[Anchor], spacing: float,
                        in_map: Callable[[np.ndarray], np.ndarray] | None = None
                        ) -> tuple[np.ndarray, Labelling]:
    """Grid coordinates ``(N, 2)`` of every detected intersection, and the labelling used.

    Each anchor (pixel position in the GCP convention, see :data:`CENTRE_TO_CORNER`) is
    snapped to the grid node nearest it; one that names no crossing of the sheet is an
    InputError (see :func:`check_anchor_distances`, which ``in_map`` is passed to).
    """
    if not anchors:
        raise InputError(NO_ANCHOR, field="anchor")
    pix = np.array([a.pixel_xy for a in anchors], dtype=np.float64) - CENTRE_TO_CORNER
    idx = snap_to_grid(result, pix)
    check_anchor_distances(result, pix, anchors, in_map)
    labelling = solve_labelling(idx, np.array([a.grid_xy for a in anchors]), spacing, anchors)
    return labelling.grid_coordinates(result.index), labelling
