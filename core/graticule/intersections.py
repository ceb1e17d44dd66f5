"""Sub-pixel crossing point of two grid lines, measured where they cross.

Paper warp bends grid lines by up to ~15 px over a sheet, so a crossing is not taken from
the lines' global fits: around the predicted crossing, each line is located again block by
block over a few hundred pixels on both sides and fitted with a straight line (robustly, so a
street or a letter next to it does not pull it), and the two local lines are intersected.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .linetrack import (
    ValidArea,
    block_peaks,
    robust_polyfit,
    straightened_strip,
)

LOCAL_HALF_LENGTH_PX = 256.0   # each line is fitted over this distance on both sides
LOCAL_BLOCK_PX = 32
LOCAL_RIDGE_HALF_WIDTH = 2     # narrower than for following: sees a line beside a thick one
LOCAL_SEARCH_PX = 6.0          # how far from the predicted line it may be found
LOCAL_MAX_SLOPE = 0.04         # how much it may turn from an uncertain prediction (2.3 deg)
LOCAL_MAX_SLOPE_TRUSTED = 0.01  # ... and from a trusted one (0.6 deg): a street outline
                                # crossing the grid line at a small angle is not taken
LOCAL_TOL_PX = 1.0             # a block's ridge within this of the local fit supports it
LOCAL_SIGMA_PX = 64.0          # weight of a block falls as exp(-t^2 / 2 sigma^2)


@dataclass
class LocalLine:
    """A line fitted near a crossing: ``point + t * direction``; support counts per side."""

    point: np.ndarray
    direction: np.ndarray
    before: int
    after: int
    blocks: int

    @property
    def support(self) -> float:
        """Share of the blocks around the crossing where the line is seen."""
        return (self.before + self.after) / max(1, self.blocks)


def fit_local_line(gray: np.ndarray, centre: np.ndarray, direction: np.ndarray, *,
                   min_strength: float, valid_area: ValidArea | None = None,
                   half_length: float = LOCAL_HALF_LENGTH_PX,
                   search_px: float = LOCAL_SEARCH_PX,
                   nearest: bool = False) -> LocalLine | None:
    """The straight line best supported near ``centre`` along ``direction`` (None if unseen).

    It must pass within ``search_px`` of ``centre`` and turn by at most LOCAL_MAX_SLOPE
    (LOCAL_MAX_SLOPE_TRUSTED with ``nearest``): a line that only runs near the crossing
    further away or at a small angle (a street) is not taken for it.
    With ``nearest`` (the prediction is good), each block offers only its ridge nearest the
    prediction: of two parallel lines a few pixels apart (a distractor beside a grid line),
    the one the whole grid line leads to is kept, not the one with more ink here.
    """
    d = direction / np.hypot(*direction)
    pk = block_peaks(gray, centre, d, -half_length, half_length, search_px=search_px,
                     valid_area=valid_area, min_strength=min_strength, peaks=3,
                     block_px=LOCAL_BLOCK_PX, ridge_half_width=LOCAL_RIDGE_HALF_WIDTH)
    ts, us = pk.samples(nearest)
    if len(ts) < 4:
        return None
    coef, inl = robust_polyfit(ts, us, 1, tol=1.5 * LOCAL_TOL_PX, iterations=150,
                               max_slope=LOCAL_MAX_SLOPE_TRUSTED if nearest else LOCAL_MAX_SLOPE,
                               max_offset=search_px)
    if inl.sum() < 4:
        return None
    # local linear regression at the crossing: near blocks weigh most, so a bend or a kink
    # (a fold) away from the crossing does not shift it
    w = np.exp(-0.5 * (ts[inl] / LOCAL_SIGMA_PX) ** 2)
    near = np.count_nonzero(w > 0.1)
    if near >= 5:   # enough near samples for a local parabola (a bend, a fold's kink)
        c2 = np.polyfit(ts[inl], us[inl], 2, w=np.sqrt(w))
        coef = np.array([c2[1], c2[2]])   # slope and value at the crossing (t = 0)
    elif near >= 3:
        coef = np.polyfit(ts[inl], us[inl], 1, w=np.sqrt(w))
    blocks_seen = np.unique(ts[inl])
    n = np.array([-d[1], d[0]])
    point = centre + coef[1] * n
    new_d = d + coef[0] * n
    return LocalLine(point, new_d / np.hypot(*new_d), int((blocks_seen < 0).sum()),
                     int((blocks_seen >= 0).sum()), int(pk.valid.sum()))


def intersect(a: LocalLine, b: LocalLine) -> np.ndarray | None:
    """Crossing point of two local lines (None when nearly parallel)."""
    m = np.column_stack([a.direction, -b.direction])
    if abs(np.linalg.det(m)) < 1e-6:
        return None
    s, _ = np.linalg.solve(m, b.point - a.point)
    return a.point + s * a.direction


def refine_crossing(gray: np.ndarray, guess: np.ndarray, dir_a: np.ndarray,
                    dir_b: np.ndarray, *, min_strength: float,
                    valid_area: ValidArea | None = None,
                    search_px: tuple[float, float] = (LOCAL_SEARCH_PX, LOCAL_SEARCH_PX)
                    ) -> tuple[np.ndarray, LocalLine, LocalLine] | None:
    """Measure where the lines along ``dir_a`` and ``dir_b`` cross near ``guess``.

    ``search_px`` says how far from the guess each line may be (wider when the guess is
    uncertain). Returns (point, line a, line b) or None when either line is not seen there.
    """
    p = np.asarray(guess, dtype=np.float64)
    for _ in range(2):
        a = fit_local_line(gray, p, dir_a, min_strength=min_strength, valid_area=valid_area,
                           search_px=search_px[0], nearest=search_px[0] <= LOCAL_SEARCH_PX)
        b = fit_local_line(gray, p, dir_b, min_strength=min_strength, valid_area=valid_area,
                           search_px=search_px[1], nearest=search_px[1] <= LOCAL_SEARCH_PX)
        if a is None or b is None:
            return None
        q = intersect(a, b)
        if q is None:
            return None
        moved = np.hypot(*(q - p))
        p = q
        if moved < 0.5:
            break
        dir_a, dir_b = a.direction, b.direction
        search_px = (3.0, 3.0)   # the guess is now good
    return p, a, b


VISIBLE_CLEARANCE_PX = 5.0    # a line must be drawn from this far from the crossing ...
VISIBLE_SEGMENT_PX = 16.0     # ... over segments of this length, on both sides,
VISIBLE_SEGMENTS = 2          # ... this many of them,
VISIBLE_MIN_DEPTH = 7.0       # ... darker than the paper beside it by this (grey levels)


def drawn_through(gray: np.ndarray, line: LocalLine, centre: np.ndarray) -> bool:
    """Whether ``line`` is inked on both sides of ``centre``, right next to it.

    A gap in a grid line (left for a label, or worn off) at a crossing hides the crossing.
    On each side, over VISIBLE_SEGMENTS segments of VISIBLE_SEGMENT_PX from
    VISIBLE_CLEARANCE_PX on, the line's position must be darker than the paper beside it by
    VISIBLE_MIN_DEPTH grey levels. Ink of something else lying on the line counts as the
    line, so a gap under an outline is missed unless it shows further out. (Chosen on 274
    crossings of 20 generated sheets: 3 gaps missed, 8 drawn crossings taken for gaps; a
    crossing wrongly reported costs the MapSeg score about 3.5 times a crossing missed.)
    """
    half = 8
    seg = round(VISIBLE_SEGMENT_PX)
    length = VISIBLE_SEGMENTS * VISIBLE_SEGMENT_PX
    for t0 in (-VISIBLE_CLEARANCE_PX - length, VISIBLE_CLEARANCE_PX):   # one strip a side
        strip = straightened_strip(gray, centre + t0 * line.direction, line.direction, 0.0,
                                   length, half).astype(np.float32)
        for k in range(VISIBLE_SEGMENTS):
            profile = strip[k * seg:(k + 1) * seg].mean(axis=0)
            # the 90th percentile (np.percentile's linear rule), without its overhead
            ranked = np.sort(profile)
            at = 0.9 * (len(ranked) - 1)
            i = int(at)
            paper = float(ranked[i]) + (float(ranked[min(i + 1, len(ranked) - 1)])
                                        - float(ranked[i])) * (at - i)
            ink = float(profile[half - 1: half + 2].min())
            if paper - ink < VISIBLE_MIN_DEPTH:
                return False
    return True
