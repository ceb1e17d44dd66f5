"""Which family is the easting, which way north points, the sign and unit of the values.

Each family's printed sequence (:mod:`.decode`) becomes grid coordinates
``sign * unit * (a + b k)``: ``unit`` 1, or 1000 for values printed in thousands (``652``
for 652 000); ``sign`` -1 for values printed without their minus sign (Jacoubet's atlas
west of its meridian). Every combination of easting family, signs and units is a
candidate; a candidate must

1. keep the map unmirrored (north a quarter turn counter-clockwise of east on the sheet);
2. put every detected node inside the grid CRS's area of use, when the CRS has one
   (EPSG:2154's eastings are 100 000 to 1 250 000 m and its northings 6 000 000 to
   7 200 000 m: a seven-figure value can only be a northing, whatever the text says);
3. print a minus sign only on values that are negative (a sign is never dropped from them).

When more than one remains, the direction the text's top points decides, as labels are
printed (easting labels stand upright on a north-up sheet; northing labels upright too, or
turned a quarter counter-clockwise, reading upwards; or turned to be read from outside the
frame on each side, Jacoubet's rows). When the text says nothing that separates them, or
they still differ, nothing is chosen: the caller refuses and names them.

Pixel coordinates: x right, y down.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..graticule.result import GraticuleResult, index_shift
from .decode import Sequence

#: Units the printed values may be in, as multiples of the grid-CRS unit.
UNITS = (1.0, 1000.0)
#: Without an area of use, a step printed below this is taken as thousands (652, 653).
KM_BELOW = 50.0
#: Nodes may lie this share of the area of use's extent outside it.
AREA_SLACK = 0.05


@dataclass
class Naming:
    """How grid indices map to grid coordinates: ``grid = origin + spacing * P @ index``
    (``P``: ``orientation``, a 2x2 signed permutation; index (column, row) as detected)."""

    orientation: np.ndarray
    origin: np.ndarray
    spacing: float
    north: np.ndarray                 # unit vector in the image
    east_family: int
    units: tuple[float, float]
    signs: tuple[int, int]
    text_agrees: bool | None          # None: the text said nothing

    def grid(self, index: np.ndarray) -> np.ndarray:
        return self.origin + self.spacing * np.asarray(index, float) @ self.orientation.T

    def same_as(self, other: Naming) -> bool:
        return (np.array_equal(self.orientation, other.orientation)
                and np.allclose(self.origin, other.origin) and self.spacing == other.spacing)

    def describe(self) -> str:
        return (f"{'columns' if self.east_family == 0 else 'rows'} as eastings, north "
                f"{north_word(self.north)}, spacing {self.spacing:g}")


def north_word(north: np.ndarray) -> str:
    """up, right, down or left: where ``north`` (an image vector) points on the sheet."""
    x, y = north
    if abs(x) > abs(y):
        return "right" if x > 0 else "left"
    return "down" if y > 0 else "up"


def _unit(v: np.ndarray) -> np.ndarray:
    n = float(np.hypot(*v))
    return v / n if n > 0 else v


def _normal(result: GraticuleResult, f: int) -> np.ndarray:
    fam = (result.columns, result.rows)[f]
    t = np.radians(fam.normal_angle_deg)
    return np.array([np.cos(t), np.sin(t)])


def text_north(result: GraticuleResult, sides: dict[tuple[int, int], np.ndarray],
               inside: bool) -> tuple[int, np.ndarray] | None:
    """(easting family, north as an image unit vector) from where the text's top points on
    each side of the frame (``sides``: (family, end) -> unit vector, the sides whose way up
    is sure), or None when the text says nothing of it (see the module docstring).

    A family's labels run across its lines when every side's top points along them
    (``para``); a family reads from outside the frame when two of its sides point opposite
    ways (Jacoubet's rows), else it stands one way (``steady``)."""
    per = [[u for (f, _), u in sides.items() if f == fam] for fam in (0, 1)]
    if not per[0] or not per[1]:
        return None
    along = [np.array([-_normal(result, f)[1], _normal(result, f)[0]]) for f in (0, 1)]
    para_each = [[abs(float(u @ along[f])) > 0.7 for u in per[f]] for f in (0, 1)]
    if any(0 < sum(p) < len(p) for p in para_each):
        return None                       # one family's sides disagree on the text's run
    para = [all(p) for p in para_each]
    steady = [all(float(u @ v) > 0.5 for u in us for v in us) for us in per]
    ups = [_unit(np.mean(us, axis=0)) for us in per]
    if para[0] != para[1]:
        e = 0 if para[0] else 1
        return (e, ups[e]) if steady[e] else None
    if para[0] and para[1]:
        if steady[0] != steady[1]:
            e = 0 if steady[0] else 1
            return e, ups[e]
        if not (steady[0] and steady[1]):
            return None
        for e in (0, 1):
            ccw = np.array([ups[e][1], -ups[e][0]])
            if float(ccw @ ups[1 - e]) > 0.7:
                return e, ups[e]
        return None
    if inside and steady[0] and steady[1]:
        for e in (0, 1):
            ccw = np.array([ups[1 - e][1], -ups[1 - e][0]])
            if float(ccw @ ups[e]) > 0.7:
                return e, ups[1 - e]
    return None


def candidates(result: GraticuleResult, seqs: list[Sequence], spacing: float | None
               ) -> list[Naming]:
    """Every unmirrored naming of the grid the two families' sequences allow (units,
    signs, easting family), before the area of use and the text are consulted."""
    shift = index_shift(result)
    out = []
    steps = [abs(s.b) for s in seqs]
    negative = [any(s.a + s.b * k < 0 for k, _ in s.support) for s in seqs]
    for units in itertools.product(UNITS, UNITS):
        grid_steps = [steps[f] * units[f] for f in (0, 1)]
        if abs(grid_steps[0] - grid_steps[1]) > 1e-6 * grid_steps[0]:
            continue
        if spacing is not None and abs(grid_steps[0] - spacing) > 1e-6 * spacing:
            continue
        for east, s0, s1 in itertools.product((0, 1), (1, -1), (1, -1)):
            signs = (s0, s1)
            if any(signs[f] < 0 and negative[f] for f in (0, 1)):
                continue                  # printed with a minus: never negated again
            p = np.zeros((2, 2), int)
            origin = np.zeros(2)
            dirs = {}
            for f in (0, 1):
                axis = 0 if f == east else 1
                slope = signs[f] * seqs[f].b
                p[axis, f] = int(np.sign(slope))
                origin[axis] = signs[f] * units[f] * (seqs[f].a + seqs[f].b * shift[f])
                dirs[axis] = np.sign(slope) * _normal(result, f)
            cross = dirs[0][0] * dirs[1][1] - dirs[0][1] * dirs[1][0]
            if cross > -0.5:
                continue                  # mirrored (or degenerate)
            out.append(Naming(p, np.round(origin, 9), float(grid_steps[0]), _unit(dirs[1]),
                              east, units, signs, None))
    return out


def node_extent(result: GraticuleResult) -> np.ndarray:
    """``(4, 2)`` (column, row) indices of the corners of the detected grid, one line
    beyond each side (the labels read there)."""
    lo = result.index.min(axis=0) - 1
    hi = result.index.max(axis=0) + 1
    return np.array([[lo[0], lo[1]], [hi[0], lo[1]], [lo[0], hi[1]], [hi[0], hi[1]]])


def within_area(naming: Naming, corners: np.ndarray, area: np.ndarray | None) -> bool:
    """Whether the grid corners fall inside ``area`` ((min E, min N, max E, max N) of
    the CRS's area of use in its own units, widened by :data:`AREA_SLACK`); True when
    the CRS has none."""
    return all(axes_within_area(naming, corners, area))


def axes_within_area(naming: Naming, corners: np.ndarray, area: np.ndarray | None
                     ) -> tuple[bool, bool]:
    """Whether the grid corners' eastings, and their northings, fall inside ``area`` (as
    :func:`within_area`, each axis on its own); (True, True) when the CRS has none."""
    if area is None:
        return True, True
    g = naming.grid(corners)
    pad = AREA_SLACK * np.array([area[2] - area[0], area[3] - area[1]])
    ok = (g >= area[:2] - pad) & (g <= area[2:] + pad)
    return bool(ok[:, 0].all()), bool(ok[:, 1].all())


def plausible_values(area: np.ndarray | None, axes: tuple[int, ...] = (0, 1),
                     units: tuple[float, ...] = UNITS) -> Callable[[np.ndarray], bool] | None:
    """A test of one family's printed values (``(K,)``): can they, in one of ``units``
    (as printed or in thousands), with or without a dropped minus sign, all be eastings
    (axis 0) or all be northings (axis 1), of ``axes``, inside ``area``
    (:func:`area_of_use`, widened by :data:`AREA_SLACK`)? None when there is no area to
    test against."""
    if area is None:
        return None
    pad = AREA_SLACK * np.array([area[2] - area[0], area[3] - area[1]])
    lo, hi = area[:2] - pad, area[2:] + pad

    def test(values: np.ndarray) -> bool:
        for unit, sign in itertools.product(units, (1.0, -1.0)):
            v = sign * unit * np.asarray(values, float)
            if any(np.all((v >= lo[a]) & (v <= hi[a])) for a in axes):
                return True
        return False

    return test


def area_of_use(crs) -> np.ndarray | None:
    """(min E, min N, max E, max N) of a pyproj CRS's area of use in its own coordinates
    (the area's boundary, sampled, projected), or None when it has none or is not
    projected into a plane (a local grid, a PROJ string)."""
    if crs is None or getattr(crs, "area_of_use", None) is None:
        return None
    from pyproj import Transformer

    w, s, e, n = crs.area_of_use.bounds
    if crs.is_geographic:
        return np.array([w, s, e, n], float)
    lon, lat = np.meshgrid(np.linspace(w, e, 25), np.linspace(s, n, 25))
    try:
        tr = Transformer.from_crs("EPSG:4326", crs, always_xy=True)
        x, y = tr.transform(lon.ravel(), lat.ravel())
    except Exception:
        return None
    x, y = np.asarray(x), np.asarray(y)
    ok = np.isfinite(x) & np.isfinite(y)
    if not ok.any():
        return None
    return np.array([x[ok].min(), y[ok].min(), x[ok].max(), y[ok].max()])
