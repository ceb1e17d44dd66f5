"""Follow one thin dark line at full resolution and measure how much of it is really there.

A line is given by a point and a unit direction (pixel x right, y down). The image is
resampled along it into a straightened strip (rows = position t along the line, columns =
offset u across it, ``u`` positive along the normal ``n = (-d_y, d_x)``), cut into blocks of
a few dozen rows; in each block the across-profile gives the positions of the deepest thin
ridges, to sub-pixel precision. A smooth curve fitted robustly through them follows the line
along its bend (paper warp). The
share of blocks where the line is seen (coverage) tells a graticule line, which crosses the
whole map, from a street edge, which stops.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

BLOCK_PX = 48          # rows of the straightened strip averaged into one sample
RIDGE_HALF_WIDTH = 3   # a line up to ~2 * RIDGE_HALF_WIDTH - 1 px wide is a ridge
PEAKS_PER_BLOCK = 4    # ridge positions kept per block


@dataclass
class ValidArea:
    """Where lines are counted: a boolean mask kept at 1/scale of the image (cheap to erode
    and to query), looked up at block centres."""

    mask: np.ndarray
    scale: int

    def contains(self, xy: np.ndarray) -> np.ndarray:
        """(M,) bool for (M, 2) full-resolution points (outside the mask array: False)."""
        ij = np.floor(np.asarray(xy, dtype=np.float64) / self.scale).astype(np.int64)
        h, w = self.mask.shape
        inside = (ij[:, 0] >= 0) & (ij[:, 0] < w) & (ij[:, 1] >= 0) & (ij[:, 1] < h)
        out = np.zeros(len(ij), dtype=bool)
        out[inside] = self.mask[ij[inside, 1], ij[inside, 0]]
        return out


@dataclass
class BlockPeaks:
    """Ridge positions found block by block along a predicted line.

    Attributes:
        t: (M,) block centres along the line, pixels from the origin.
        u: (M, K) ridge offsets across the line, pixels (nan where fewer than K ridges).
        strength: (M, K) ridge depths, grey levels (0 where none).
        valid: (M,) bool: block inside the image (and the mask when given).
    """

    t: np.ndarray
    u: np.ndarray
    strength: np.ndarray
    valid: np.ndarray

    def samples(self, nearest: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """(t, u) of every ridge found, flattened; with ``nearest``, only each block's ridge
        nearest u = 0 (the prediction)."""
        peaks = self.nearest_only() if nearest else self
        seen = ~np.isnan(peaks.u)
        return np.broadcast_to(peaks.t[:, None], peaks.u.shape)[seen], peaks.u[seen]

    def nearest_only(self) -> BlockPeaks:
        """The same blocks keeping only each block's ridge nearest u = 0."""
        j = _nearest_index(self.u)
        rows = np.arange(len(self.t))
        return BlockPeaks(self.t, self.u[rows, j][:, None], self.strength[rows, j][:, None],
                          self.valid)


@dataclass
class LineTrack:
    """Evidence for one line, in the line's own frame.

    Attributes:
        origin: (x, y) of t = 0, u = 0, pixels.
        direction: unit vector along the line (x, y).
        t: (M,) block centres along the line, pixels from ``origin``.
        u: (M,) offset of the line across the prediction in each block (nan: not seen).
        strength: (M,) ridge depth in grey levels where seen (0 elsewhere).
        valid: (M,) bool, block inside the image (and the mask when one is given).
        fit: smooth polynomial u(t) through the seen blocks (np.polyval order).
    """

    origin: np.ndarray
    direction: np.ndarray
    t: np.ndarray
    u: np.ndarray
    strength: np.ndarray
    valid: np.ndarray
    fit: np.ndarray
    # local_fit's straight fits, by the samples they used (a crossing's guess is iterated)
    _local_fits: dict[bytes, np.ndarray] = field(default_factory=dict, repr=False,
                                                 compare=False)

    @property
    def inliers(self) -> np.ndarray:
        """(M,) bool: blocks where the line was seen."""
        return ~np.isnan(self.u)

    @property
    def normal(self) -> np.ndarray:
        """Unit normal ``(-d_y, d_x)``: the direction of positive u."""
        return np.array([-self.direction[1], self.direction[0]])

    @property
    def coverage(self) -> float:
        """Share of the valid blocks where the line was seen."""
        n = int(self.valid.sum())
        return float((self.inliers & self.valid).sum()) / n if n else 0.0

    @property
    def contrast(self) -> float:
        """Median ridge depth where the line was seen, grey levels."""
        seen = self.inliers
        return float(np.median(self.strength[seen])) if seen.any() else 0.0

    def point_at(self, t: float | np.ndarray) -> np.ndarray:
        """Pixel position(s) of the line's smooth fit at along-line position(s) t."""
        t = np.asarray(t, dtype=np.float64)
        u = np.polyval(self.fit, t)
        pts = (self.origin[None, :] + t.reshape(-1, 1) * self.direction[None, :]
               + u.reshape(-1, 1) * self.normal[None, :])
        return pts.reshape((*t.shape, 2))

    def local_fit(self, t_centre: float, half_length: float) -> tuple[np.ndarray, int]:
        """Straight fit ``u = a t + b`` of the samples within ``half_length`` of ``t_centre``;
        the smooth fit's tangent when fewer than 3 samples are that close."""
        near = self.inliers & (np.abs(self.t - t_centre) <= half_length)
        used = int(near.sum())
        if used >= 3:
            key = near.tobytes()
            if key not in self._local_fits:
                self._local_fits[key] = np.polyfit(self.t[near], self.u[near], 1)
            return self._local_fits[key], used
        slope = float(np.polyval(np.polyder(self.fit), t_centre)) if len(self.fit) > 1 else 0.0
        return np.array([slope, np.polyval(self.fit, t_centre) - slope * t_centre]), 0


def straightened_strip(gray: np.ndarray, origin: np.ndarray, direction: np.ndarray,
                       t0: float, t1: float, half_width: int) -> np.ndarray:
    """Resample ``gray`` along a line: row i is t = t0 + i, column j is u = j - half_width.

    One affine resampling (bilinear); outside the image the strip is 0. Same dtype as gray.
    """
    d = np.asarray(direction, dtype=np.float64)
    n = np.array([-d[1], d[0]])
    start = origin + t0 * d - half_width * n
    m = np.array([[n[0], d[0], start[0]], [n[1], d[1], start[1]]])
    rows = max(1, round(t1 - t0))
    return cv2.warpAffine(gray, m, (2 * half_width + 1, rows),
                          flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_CONSTANT, borderValue=0)


def ridge_response(profiles: np.ndarray, half_width: int = RIDGE_HALF_WIDTH) -> np.ndarray:
    """Depth of a thin dark ridge at each offset: ``min(p[u-h], p[u+h]) - p[u]`` (>= 0).

    ``profiles`` is (M, K) grey levels; edges and wide dark areas give ~0, a thin dark
    line gives its depth below the paper on both sides. Columns near the ends are 0.
    """
    h = half_width
    out = np.zeros_like(profiles)
    side = np.minimum(profiles[:, :-2 * h], profiles[:, 2 * h:])
    out[:, h:-h] = np.maximum(side - profiles[:, h:-h], 0.0)
    return out


def block_peaks(gray: np.ndarray, origin: np.ndarray, direction: np.ndarray, t0: float,
                t1: float, *, search_px: float, valid_area: ValidArea | None = None,
                min_strength: float = 6.0, peaks: int = PEAKS_PER_BLOCK,
                block_px: int = BLOCK_PX,
                ridge_half_width: int = RIDGE_HALF_WIDTH) -> BlockPeaks:
    """The ``peaks`` deepest thin ridges within ``search_px`` of the line, block by block.

    ``ridge_half_width`` is the offset of the comparison samples on both sides: smaller
    values tell a line from a neighbour closer to it, larger ones take wider lines."""
    origin = np.asarray(origin, dtype=np.float64)
    d = np.asarray(direction, dtype=np.float64)
    d = d / np.hypot(*d)
    lim = int(np.floor(search_px))
    half = lim + ridge_half_width + 1
    n_blocks = max(1, int((t1 - t0) // block_px))
    strip = straightened_strip(gray, origin, d, t0, t0 + n_blocks * block_px, half)
    profiles = strip.reshape(n_blocks, block_px, 2 * half + 1).mean(axis=1, dtype=np.float32)
    t = t0 + (np.arange(n_blocks) + 0.5) * block_px
    # a block counts when all of it is inside the image (and its centre inside the mask)
    height, width = gray.shape
    ends = [origin[None, :] + (t[:, None] + s * block_px / 2) * d[None, :] for s in (-1, 1)]
    valid = np.ones(n_blocks, dtype=bool)
    for e in ends:
        valid &= (e[:, 0] >= half) & (e[:, 0] < width - 1 - half) \
            & (e[:, 1] >= half) & (e[:, 1] < height - 1 - half)
    if valid_area is not None:
        valid &= valid_area.contains(origin[None, :] + t[:, None] * d[None, :])
    r = ridge_response(profiles, ridge_half_width)
    centre = slice(half - lim, half + lim + 1)
    inner = np.zeros_like(r, dtype=bool)
    inner[:, 1:-1] = (r[:, 1:-1] >= r[:, :-2]) & (r[:, 1:-1] > r[:, 2:]) \
        & (r[:, 1:-1] >= min_strength)
    keep = np.zeros_like(inner)
    keep[:, centre] = inner[:, centre]
    keep[~valid] = False
    score = np.where(keep, r, -1.0)
    k = min(peaks, score.shape[1])
    cols = np.argsort(-score, axis=1)[:, :k]
    rows = np.arange(n_blocks)[:, None]
    ok = score[rows, cols] > 0
    # sub-pixel: centroid of the line's darkness below the level of its two sides (exact
    # for a wide flat-bottomed line too, where a parabola through 3 samples is biased)
    h = ridge_half_width
    c = np.clip(cols, h, r.shape[1] - 1 - h)
    offsets = np.arange(-h + 1, h)
    window = profiles[rows[..., None], c[..., None] + offsets]            # (M, K, 2h-1)
    sides = np.minimum(profiles[rows, c - h], profiles[rows, c + h])[..., None]
    w = np.clip(sides - window, 0.0, None)
    with np.errstate(divide="ignore", invalid="ignore"):
        frac = np.where(w.sum(-1) > 0, (w * offsets).sum(-1) / w.sum(-1), 0.0)
    u = np.where(ok, c + frac - half, np.nan)
    strength = np.where(ok, r[rows, cols], 0.0)
    return BlockPeaks(t, u, strength, valid)


def robust_polyfit(t: np.ndarray, u: np.ndarray, degree: int, tol: float,
                   iterations: int = 100, seed: int = 0, max_slope: float | None = None,
                   max_offset: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """RANSAC polynomial u(t), refined by least squares on its inliers.

    All hypotheses are drawn and scored at once (batched solves), which keeps this cheap
    enough to run on every candidate line. ``max_slope`` and ``max_offset`` (degree 1 only)
    reject lines steeper than that (du/dt) or passing further than that from u = 0 at
    t = 0. Returns (coefficients in np.polyval order, inlier mask); with
    fewer than degree + 1 samples, (zeros, all False).
    """
    n = len(t)
    if n < degree + 1:
        return np.zeros(degree + 1), np.zeros(n, dtype=bool)
    rng = np.random.default_rng(seed)
    centre = float(np.mean(t))
    scale = max(1.0, float(np.ptp(t)))
    s = (t - centre) / scale
    powers = np.arange(degree, -1, -1)
    picks = rng.integers(0, n, size=(iterations, degree + 1))   # repeats give det 0: dropped
    vander = s[picks][..., None] ** powers                       # (I, d+1, d+1)
    ok = np.abs(np.linalg.det(vander)) > 1e-12
    if not ok.any():
        return np.zeros(degree + 1), np.zeros(n, dtype=bool)
    coefs = np.linalg.solve(vander[ok], u[picks[ok]][..., None])[..., 0]   # (I', d+1)
    if degree == 1 and (max_slope is not None or max_offset is not None):
        keep = np.ones(len(coefs), dtype=bool)
        if max_slope is not None:
            keep &= np.abs(coefs[:, 0]) <= max_slope * scale
        if max_offset is not None:   # u at t = 0, i.e. s = -centre / scale
            keep &= np.abs(coefs[:, 0] * (-centre / scale) + coefs[:, 1]) <= max_offset
        coefs = coefs[keep]
        if len(coefs) == 0:
            return np.zeros(degree + 1), np.zeros(n, dtype=bool)
    design = s[:, None] ** powers                                # (n, d+1)
    counts = (np.abs(coefs @ design.T - u[None, :]) <= tol).sum(axis=1)
    best = coefs[int(np.argmax(counts))]
    for _ in range(3):
        inl = np.abs(design @ best - u) <= tol
        if inl.sum() < degree + 1:
            break
        best = np.linalg.lstsq(design[inl], u[inl], rcond=None)[0]
    inliers = np.abs(design @ best - u) <= tol
    return _unscale(best, centre, scale), inliers


def _unscale(coef: np.ndarray, centre: float, scale: float) -> np.ndarray:
    """Coefficients of p((t - centre) / scale) as a polynomial in t."""
    b0, b1 = 1.0 / scale, -centre / scale   # the polynomial (t - c) / s
    # lines and quadratics: numpy's products below, written out (the same floats; 30x faster)
    if len(coef) == 2 and coef[0] != 0:
        c0, c1 = float(coef[0]), float(coef[1])
        return np.array([c0 * b0, c0 * b1 + c1])
    if len(coef) == 3 and coef[0] != 0 and coef[0] * b0 != 0:
        c0, c1, c2 = float(coef[0]), float(coef[1]), float(coef[2])
        a, b = c0 * b0, c0 * b1 + c1
        return np.array([a * b0, a * b1 + b * b0, b * b1 + c2])
    out = np.zeros(1)
    base = np.array([b0, b1])
    for c in coef:
        out = np.polyadd(np.polymul(out, base), [c])
    return out


def _nearest_index(u: np.ndarray) -> np.ndarray:
    return np.argmin(np.where(np.isnan(u), np.inf, np.abs(u)), axis=1)


def find_line_near(gray: np.ndarray, origin: np.ndarray, direction: np.ndarray, t0: float,
                   t1: float, *, search_px: float, valid_area: ValidArea | None = None,
                   min_strength: float = 6.0, max_slope: float | None = None,
                   nearest: bool = False,
                   block_px: int = BLOCK_PX) -> tuple[np.ndarray, np.ndarray] | None:
    """Locate a straight thin line within ``search_px`` of a rough prediction.

    Every block proposes its deepest ridges; the straight line through most proposals wins
    (RANSAC), so a faint line that is rarely the darkest thing in a block is still found.
    ``max_slope`` bounds its turn from ``direction`` (tan of the angle): a graticule line is
    parallel to the others of its family, a street next to it is not. With ``nearest`` (the
    prediction is good), each block offers only its ridge nearest the prediction, so of two
    parallel lines the one nearer the prediction wins rather than the darker.
    Returns ``(origin, direction)`` of that line (origin = its point at t = 0), or None.
    """
    origin = np.asarray(origin, dtype=np.float64)
    d = np.asarray(direction, dtype=np.float64)
    d = d / np.hypot(*d)
    pk = block_peaks(gray, origin, d, t0, t1, search_px=search_px, valid_area=valid_area,
                     min_strength=min_strength, peaks=3, block_px=block_px)
    ts, us = pk.samples(nearest)
    if len(ts) < 3:
        return None
    coef, inl = robust_polyfit(ts, us, 1, tol=2.0, iterations=200, max_slope=max_slope)
    if inl.sum() < 3:
        return None
    n = np.array([-d[1], d[0]])
    new_origin = origin + np.polyval(coef, 0.0) * n
    new_dir = d + coef[0] * n
    return new_origin, new_dir / np.hypot(*new_dir)


def track_line(gray: np.ndarray, origin: np.ndarray, direction: np.ndarray, t0: float,
               t1: float, *, search_px: float = 16.0, valid_area: ValidArea | None = None,
               min_strength: float = 6.0, tol_px: float = 2.0, nearest: bool = False,
               block_px: int = BLOCK_PX) -> LineTrack:
    """Follow the thin line that runs along ``origin + t * direction``, t in [t0, t1].

    The prediction should be close to the line; the line may bend up to ``search_px`` away
    from it (paper warp). A smooth curve (quadratic in t for long lines) is fitted robustly
    through the blocks' ridges, so a street crossing at a shallow angle, which follows the
    line for a while and then leaves it, is not mistaken for it. (A quadratic, not a cubic: a
    cubic bends enough to follow a grid line, then a distractor segment beside its end.)
    """
    origin = np.asarray(origin, dtype=np.float64)
    d = np.asarray(direction, dtype=np.float64)
    d = d / np.hypot(*d)
    pk = block_peaks(gray, origin, d, t0, t1, search_px=search_px, valid_area=valid_area,
                     min_strength=min_strength, block_px=block_px)
    if nearest:   # the prediction is trusted: each block offers its ridge nearest to it
        pk = pk.nearest_only()
    ts, us = pk.samples()
    length = float(np.ptp(pk.t[pk.valid])) if pk.valid.any() else 0.0
    degree = 2 if length > 1200 else 1
    coef, _ = robust_polyfit(ts, us, degree, tol=tol_px, iterations=300)
    # in each block, the ridge nearest the curve if it is close enough
    dist = np.abs(pk.u - np.polyval(coef, pk.t)[:, None])
    dist = np.where(np.isnan(dist), np.inf, dist)
    j = np.argmin(dist, axis=1)
    rows = np.arange(len(pk.t))
    on = dist[rows, j] <= tol_px
    u = np.where(on, pk.u[rows, j], np.nan)
    strength = np.where(on, pk.strength[rows, j], 0.0)
    return LineTrack(origin, d, pk.t, u, strength, pk.valid, coef)
