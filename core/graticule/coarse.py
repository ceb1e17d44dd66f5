"""Coarse search for long straight thin lines: candidates for graticule lines.

Works on a reduced "ridge" image (thin dark lines bright, everything else dark). For each
angle the image is rotated so that lines with that normal become columns, cut into strips
along the lines, and each strip's column sums are high-passed across the lines. A line that
runs straight through the whole map stands out in most strips at the same column, so the
score of a column is a low quantile of its strips' values: short strong features (text,
block outlines, a short street) do not survive, long faint ones do.

Angles are normal angles in degrees, measured from +x towards +y (pixel y down); a line with
normal angle t is ``x cos t + y sin t = rho``.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import cv2
import numpy as np

from .angles import angle_difference

SIDE_PX = 2                     # coarse columns between a line and its comparison columns
EDGE_WINDOW_PX = 400            # a frame line has (almost) no map on one side over this
EDGE_RATIO = 0.25
_QUARTER_TURNS = {1: cv2.ROTATE_90_COUNTERCLOCKWISE, 2: cv2.ROTATE_180,
                  3: cv2.ROTATE_90_CLOCKWISE}   # np.rot90(image, k) for k = 1, 2, 3
ROTATION_THREADS = 2           # rotations of one scan scored at once
MAX_SHEAR_DEG = 2.0            # angles this near a rotated one are scored by shearing its strips


@dataclass(frozen=True)
class LineCandidate:
    """A straight line found at coarse scale, in full-resolution pixels.

    ``angle_tol_deg``: how far the line's true angle may be from ``normal_angle_deg``
    (:meth:`CoarseScan.angle_tolerance_deg` of the length it was seen over; 0: not known).
    A short line scores fully over a range of angles, so the angle it is reported at is only
    known to within that range.
    """

    normal_angle_deg: float
    rho_px: float
    score: float
    angle_tol_deg: float = 0.0


def ridge_image(gray: np.ndarray, half_width: int) -> np.ndarray:
    """Depth of thin dark lines in any direction: ``max over axes of min(neighbours) - pixel``.

    ``gray`` is uint8 with dark lines; the result is uint8, 0 on paper, edges and wide areas
    and within ``half_width`` of the border.
    """
    h = half_width
    out = np.zeros_like(gray)
    # OpenCV's min, max and saturating subtract: the same values as numpy's, on both cores
    side = cv2.min(gray[:, :-2 * h], gray[:, 2 * h:])
    out[:, h:-h] = cv2.subtract(side, gray[:, h:-h])
    side = cv2.min(gray[:-2 * h, :], gray[2 * h:, :])
    cv2.max(out[h:-h, :], cv2.subtract(side, gray[h:-h, :]), dst=out[h:-h, :])
    return out


@dataclass
class CoarseScan:
    """Scores of every (angle, rho) at coarse scale.

    Attributes:
        angles_deg: (A,) normal angles scanned.
        scores: (A, D) line score per angle and rotated column.
        scale: full-resolution pixels per coarse pixel.
        centre_rho: (A,) full-resolution rho of the rotated image's centre column.
        canvas: D, the rotated image's width in coarse pixels.
        strips: (A, D) number of strips of each column that lie in the valid area (how much
            map a line there would cross).
        strip_px, drift_px, quantile: the scan's strip length (coarse pixels), drift
            tolerance (coarse pixels) and quantile (see :func:`scan_lines`).
    """

    angles_deg: np.ndarray
    scores: np.ndarray
    scale: float
    centre_rho: np.ndarray
    canvas: int
    strips: np.ndarray
    strip_px: int = 1
    drift_px: int = 1
    quantile: float = 0.4

    def rho_of(self, angle_index: int, column: float) -> float:
        """Full-resolution rho of a rotated column at a scanned angle."""
        return float(self.centre_rho[angle_index] + (column - self.canvas / 2) * self.scale)

    def column_of(self, angle_index: int, rho: float) -> int:
        """The rotated column of a full-resolution rho at a scanned angle."""
        return round((rho - self.centre_rho[angle_index]) / self.scale + self.canvas / 2)

    def subset(self, rows: slice) -> CoarseScan:
        """The scan of the angles ``rows`` only."""
        return CoarseScan(self.angles_deg[rows], self.scores[rows], self.scale,
                          self.centre_rho[rows], self.canvas, self.strips[rows],
                          self.strip_px, self.drift_px, self.quantile)

    def angle_tolerance_deg(self, strips: int) -> float:
        """How far from a line's true angle the scan still gives it its full score, for a
        line seen over ``strips`` strips (degrees).

        A line turned by ``d`` from a scanned angle stays within the drift tolerance
        (``2 drift_px + 1`` columns) over ``(2 drift_px + 1) / tan(d)`` rows, and its score
        (the ``quantile`` of its strips) only needs ``1 - quantile`` of them: over
        ``strips`` strips of ``strip_px`` rows, angles within
        ``atan((2 drift_px + 1) / ((1 - quantile) strips strip_px))`` of the true one score
        alike. That is 0.26 degrees for a line crossing 17 strips (8700 px of a 10000 px
        sheet at 1/8), 1.1 degrees for one crossing 4 (2000 px): the angle such a line is
        reported at is that uncertain.
        """
        rows = (1.0 - self.quantile) * max(int(strips), 1) * self.strip_px
        return float(np.degrees(np.arctan((2 * self.drift_px + 1) / rows)))


def pack_ridge(ridge: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """``(h, w, 2) uint8``: the ridge image where valid x 16 (fixed point; the ridge is clipped
    to <= 15 grey levels, see RIDGE_CLIP) and valid x 255. Rotating bytes is several times
    faster than floats."""
    out = np.empty((*ridge.shape, 2), np.uint8)
    ink = ridge * valid
    ink *= 16.0
    np.clip(ink, 0, 255, out=ink)
    out[..., 0] = ink
    out[..., 1] = valid * 255.0
    return out


def scan_lines(ridge: np.ndarray, valid: np.ndarray, scale: float, angles_deg: np.ndarray, *,
               strip_px: int, drift_px: int = 1, quantile: float = 0.4,
               drop_edges: bool = False, max_shear_deg: float = MAX_SHEAR_DEG,
               exact_deg: float = 0.0, packed: np.ndarray | None = None) -> CoarseScan:
    """Score straight lines at every angle in ``angles_deg`` on a reduced ridge image.

    Args:
        ridge: (h, w) float32 ridge image at 1/scale of the full resolution.
        valid: (h, w) float32 0/1, where lines may be counted (map area, inside the image).
        scale: full-resolution pixels per pixel of ``ridge``.
        strip_px: strip length along the lines, coarse pixels.
        drift_px: tolerance across the line between strips (angle step, bending), pixels.
        quantile: a column scores the ``quantile`` of its valid strips' values; 0.4 means
            the line must be there in 60 % of the map it crosses.
        drop_edges: score 0 for lines with map content on one side only (a map frame seen
            without a map-area mask), judged over EDGE_WINDOW_PX on each side.
        max_shear_deg: angles within this of a rotated angle (or of it turned by a multiple
            of 90 degrees) are scored from that rotation's strip sums, each strip shifted
            across the lines (see :func:`_sheared`); 0 rotates the image for every angle.
        exact_deg: the angles within ``max_shear_deg`` of this one (or of it turned by a
            multiple of 90 degrees) are scored from the rotation at exactly this angle: the
            default 0 scores the axis-aligned lines of a straight scan without the blur of
            a sheared rotation (one that rotates them by up to 2 degrees and shifts back).
        packed: ``pack_ridge(ridge, valid)`` when already made (several scans of one image).
    """
    h, w = ridge.shape
    canvas = int(np.ceil(np.hypot(h, w))) + 2
    canvas = -(-canvas // strip_px) * strip_px
    n_strips = canvas // strip_px
    shift = np.float64([(canvas - w) / 2, (canvas - h) / 2])
    if packed is None:
        packed = pack_ridge(ridge, valid)
    if strip_px * 255 >= 1 << 16:
        raise ValueError(f"strip_px {strip_px} is too long for 16-bit strip sums")
    angles = np.asarray(angles_deg, float)
    scores = np.zeros((len(angles), canvas), np.float32)
    strips = np.zeros((len(angles), canvas), np.int32)
    drift_kernel = np.ones((1, 2 * drift_px + 1), np.uint8)
    edge_window = max(3, round(EDGE_WINDOW_PX / scale)) if drop_edges else 0
    # strip centres, rows from the canvas centre (the centre of every rotation)
    centres = np.arange(n_strips) * strip_px + (strip_px - 1) / 2 - canvas / 2

    def score_rotation(base: float, members: dict[int, list[int]]) -> None:
        """Score the angles of one rotation (rows of ``scores`` and ``strips`` no other
        rotation writes)."""
        m = cv2.getRotationMatrix2D((w / 2, h / 2), float(base), 1.0)
        m[:, 2] += shift
        # one spare row and column: turning the (canvas + 1)^2 grid by 90 degrees about the
        # canvas centre maps it onto itself, so a quarter turn of this rotation is the
        # rotation at base + 90 (its last row and column are margin, all zero)
        rot = cv2.warpAffine(packed, m, (canvas + 1, canvas + 1), flags=cv2.INTER_LINEAR)
        for quarter, group in members.items():
            turned = rot if quarter == 0 else cv2.rotate(rot, _QUARTER_TURNS[quarter])
            # 16-bit sums are exact: strip_px * 255 < 65536 (checked above)
            sums = turned[:canvas, :canvas].reshape(n_strips, strip_px, canvas, 2) \
                .sum(axis=1, dtype=np.uint16).astype(np.float32)
            deltas = [angles[i] - base - 90.0 * quarter for i in group]
            sheared = _sheared(sums, centres, np.array(deltas))
            scores[group], strips[group] = _column_scores(
                sheared, strip_px, drift_kernel, quantile, edge_window,
                _tilted_cover_change(sheared[..., 1] / 255.0, np.radians(deltas)))

    groups = _rotation_groups(angles, max_shear_deg, exact_deg)
    if len(groups) <= 1 or ROTATION_THREADS <= 1:
        for group in groups:
            score_rotation(*group)
    else:   # most steps release the GIL: two rotations at a time use both cores
        with ThreadPoolExecutor(ROTATION_THREADS) as pool:
            for done in [pool.submit(score_rotation, *g) for g in groups]:
                done.result()
    t = np.radians(angles)
    centre_rho = ((w / 2) * np.cos(t) + (h / 2) * np.sin(t)) * scale
    return CoarseScan(angles, scores, scale, centre_rho, canvas, strips, strip_px, drift_px,
                      quantile)


def _rotation_groups(angles: np.ndarray, max_shear_deg: float, exact_deg: float = 0.0
                     ) -> list[tuple[float, dict[int, list[int]]]]:
    """The rotations to make: ``[(base angle, {quarter turns: [angle indices]})]``, every
    angle within ``max_shear_deg`` of its base turned by its quarter turns. The angles
    within ``max_shear_deg`` of ``exact_deg`` (modulo 90 degrees) share the rotation at
    exactly ``exact_deg``; the others are grouped going away from it on either side."""
    if not len(angles):
        return []
    folded = (angles - exact_deg + 45.0) % 90.0 - 45.0      # angle = exact + folded + 90 k
    quarters = np.round((angles - exact_deg - folded) / 90.0).astype(int)
    tol = 1e-9
    centre = np.flatnonzero(np.abs(folded) <= max_shear_deg + tol)
    above = np.flatnonzero(folded > max_shear_deg + tol)
    below = np.flatnonzero(folded < -max_shear_deg - tol)
    runs = [(centre, 0.0)] if len(centre) else []
    # greedy runs of width 2 max_shear_deg, upwards above the centre, downwards below it
    for idx, sign in ((above, 1.0), (below, -1.0)):
        order = idx[np.argsort(sign * folded[idx], kind="stable")]
        start = 0
        while start < len(order):
            lo = sign * folded[order[start]]
            stop = start
            while stop < len(order) and sign * folded[order[stop]] <= lo + 2 * max_shear_deg + tol:
                stop += 1
            run = order[start:stop]
            runs.append((run, (folded[run].min() + folded[run].max()) / 2))
            start = stop
    groups = []
    for run, offset in runs:
        members: dict[int, list[int]] = {}
        for i in run:
            members.setdefault(int(quarters[i]) % 4, []).append(int(i))
        groups.append((exact_deg + offset, members))
    return groups


def _sheared(sums: np.ndarray, centres: np.ndarray, deltas_deg: np.ndarray) -> np.ndarray:
    """Strip sums ``(G, n_strips, D, 2)`` of a rotation as seen by ones turned by each of
    ``deltas_deg`` ``(G,)`` further, from its sums ``(n_strips, D, 2)``: a line at column c
    of the turned rotation crosses strip s (centred ``y_s`` rows below the canvas centre) at
    column ``(c - y_s sin(delta)) / cos(delta)`` of this one (columns from the canvas
    centre), taken as ``c - y_s tan(delta)`` rounded (the cosine moves a column by under
    0.3 px for delta <= 2 degrees on a 1000 px canvas). Within a strip the line drifts by at
    most ``strip_px / 2 * tan(delta)`` columns more; the scan's drift tolerance absorbs
    both. Columns shifted in from beyond the canvas are 0."""
    n_strips, canvas, _ = sums.shape
    out = np.zeros((len(deltas_deg), *sums.shape), sums.dtype)
    shifts = np.rint(-centres[None, :] * np.tan(np.radians(deltas_deg))[:, None]).astype(int)
    for g, row in enumerate(shifts.tolist()):
        for s, k in enumerate(row):   # out[g, s, c] = sums[s, c + k]
            if k >= 0:
                out[g, s, :canvas - k] = sums[s, k:]
            else:
                out[g, s, -k:] = sums[s, :canvas + k]
    return out


def _tilted_cover_change(cover: np.ndarray, deltas_rad: np.ndarray) -> np.ndarray:
    """Rows of map a strip gains ``(G, n_strips, D)`` when its rotation is turned by
    ``deltas_rad`` further, which shifting its sums (:func:`_sheared`) does not show: the
    edge of the map that cuts a strip tilts, moving by ``column tan(delta)`` rows (column
    from the canvas centre), into the strip where the map starts in it (more map in the
    next strip than in the previous one), out of it where the map ends."""
    # the sign of the next strip's cover minus the previous one's (0 outside)
    ahead = np.zeros_like(cover)
    behind = np.zeros_like(cover)
    ahead[:, :-1] = cover[:, 1:]
    behind[:, 1:] = cover[:, :-1]
    side = (ahead > behind).astype(cover.dtype)
    side -= ahead < behind
    columns = np.arange(cover.shape[2]) - cover.shape[2] / 2
    # side is -1, 0 or 1: the product is exact in either order
    return side * (columns[None, :] * np.tan(np.asarray(deltas_rad))[:, None])[:, None, :]


def _column_scores(sums: np.ndarray, strip_px: int, drift_kernel: np.ndarray,
                   quantile: float, edge_window: int, cover_change: np.ndarray | None = None
                   ) -> tuple[np.ndarray, np.ndarray]:
    """(score, number of valid strips) of every rotated column, ``(G, D)`` each, from the
    strip sums ``(G, n_strips, D, 2)`` of G angles: ink x 16 and cover x 255 (see
    :func:`scan_lines`). A strip counts when at least 80 % of it is map, its cover changed
    by ``cover_change`` ``(G, n_strips, D)`` rows (see :func:`_tilted_cover_change`) first.
    """
    ink, cover = sums[..., 0] * np.float32(1 / 16), sums[..., 1] / 255.0   # 1/16: exact
    n_angles, n_strips, width = ink.shape
    scores = np.zeros((n_angles, width), np.float32)
    # a line is more ink than both neighbours two columns away (texture is not)
    rise = np.zeros_like(ink)
    rise[..., SIDE_PX:-SIDE_PX] = ink[..., SIDE_PX:-SIDE_PX] - np.maximum(
        ink[..., :-2 * SIDE_PX], ink[..., 2 * SIDE_PX:])
    tophat = cv2.dilate(rise.reshape(-1, width), drift_kernel).reshape(ink.shape)
    full = cover >= 0.8 * strip_px if cover_change is None else \
        cover + cover_change >= 0.8 * strip_px
    # strips last (contiguous): sorting along the last axis is several times faster
    per_px = np.where(full, tophat / np.maximum(cover, 1.0), np.inf).transpose(0, 2, 1).copy()
    per_px.sort(axis=2)   # valid values first, in increasing order
    n_full = full.sum(axis=1)
    rank = np.floor(quantile * np.maximum(n_full - 1, 0)).astype(int)
    q = np.take_along_axis(per_px, rank[..., None], axis=2)[..., 0]
    ok = n_full >= 2
    if edge_window:
        for g in range(n_angles):
            ok[g] &= ~_one_sided(ink[g].sum(axis=0), cover[g].sum(axis=0), edge_window)
    # what clutter alone gives along a line: each angle's median of q over its ok columns
    # (np.median's value, for all angles at once: the others sorted past them as inf)
    n_ok = ok.sum(axis=1)
    ranked = np.sort(np.where(ok, q, np.inf), axis=1)
    lo = ranked[np.arange(n_angles), np.maximum(n_ok - 1, 0) // 2]
    hi = ranked[np.arange(n_angles), n_ok // 2]
    baseline = np.where(n_ok % 2 == 1, hi, (lo + hi) / np.float32(2))
    scored = ok & (n_ok > 4)[:, None]
    scores[scored] = (q[scored] - np.broadcast_to(baseline[:, None], q.shape)[scored]) \
        * np.sqrt(n_full[scored])
    return scores, n_full


def _one_sided(ink: np.ndarray, cover: np.ndarray, window: int) -> np.ndarray:
    """Columns whose ink density on one side (``window`` columns, the 2 next to the column
    left out) is under EDGE_RATIO of the other side's, both sides mostly inside the image."""
    ci, cc = np.concatenate([[0], np.cumsum(ink)]), np.concatenate([[0], np.cumsum(cover)])
    n = len(ink)
    c = np.arange(n)
    lo_a, lo_b = np.clip(c - window, 0, n), np.clip(c - 2, 0, n)
    hi_a, hi_b = np.clip(c + 3, 0, n), np.clip(c + window + 1, 0, n)
    ink_l, cov_l = ci[lo_b] - ci[lo_a], cc[lo_b] - cc[lo_a]
    ink_r, cov_r = ci[hi_b] - ci[hi_a], cc[hi_b] - cc[hi_a]
    full = cover.max() * (window - 2) * 0.5
    judged = (cov_l > full) & (cov_r > full)
    dl, dr = ink_l / np.maximum(cov_l, 1), ink_r / np.maximum(cov_r, 1)
    return judged & (np.minimum(dl, dr) < EDGE_RATIO * np.maximum(dl, dr))


def candidate_lines(scan: CoarseScan, count: int, *, angle_window_deg: float = 1.5,
                    rho_window_px: float = 40.0) -> list[LineCandidate]:
    """The ``count`` best local maxima of the scan, at least the windows apart."""
    step = float(np.median(np.diff(scan.angles_deg))) if len(scan.angles_deg) > 1 else 1.0
    ka = max(1, round(angle_window_deg / step))
    kr = max(1, round(rho_window_px / scan.scale))
    s = scan.scores
    local_max = s == cv2.dilate(s, np.ones((2 * ka + 1, 2 * kr + 1), np.uint8))
    rows, cols = np.nonzero(local_max & (s > 0))
    order = np.argsort(-s[rows, cols])
    out: list[LineCandidate] = []
    for j in order:
        a, c = rows[j], cols[j]
        cand = LineCandidate(float(scan.angles_deg[a]), scan.rho_of(a, c), float(s[a, c]),
                             scan.angle_tolerance_deg(scan.strips[a, c]))
        if any(_same_line(cand, o, angle_window_deg, rho_window_px) for o in out):
            continue
        out.append(cand)
        if len(out) >= count:
            break
    return out


def _same_line(a: LineCandidate, b: LineCandidate, angle_tol: float, rho_tol: float) -> bool:
    da = angle_difference(a.normal_angle_deg, b.normal_angle_deg)
    if abs(da) > angle_tol:
        return False
    flipped = abs(a.normal_angle_deg - b.normal_angle_deg) > 90.0
    rho_b = -b.rho_px if flipped else b.rho_px
    return abs(a.rho_px - rho_b) <= rho_tol
