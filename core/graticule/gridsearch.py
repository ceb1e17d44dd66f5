"""Find the graticule's orientation, spacing and line positions at reduced scale.

1. A coarse scan (1/16 scale, 1 degree steps) scores straight lines at every angle.
2. A graticule is two perpendicular families of evenly spaced lines with one spacing, so
   each angle is scored by the autocorrelation of its line profile at a lag s plus that of
   the perpendicular angle at the same lag: the best (angle, spacing) pairs are hypotheses.
3. Each hypothesis is examined with a fine scan (1/8 scale, quarter-degree steps) around both
   angles, where even faint 1 px lines stand out once the angle is right; its lines are
   fitted with a comb and the hypothesis explaining the most line evidence wins.

The ridge image counts thin-line evidence with a clipped depth, so a faint grid line weighs
as much per pixel as a black outline: length, not darkness, decides.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import cv2
import numpy as np

from ..imageio import half_size
from .angles import angle_difference, rho_at
from .coarse import (
    CoarseScan,
    LineCandidate,
    candidate_lines,
    pack_ridge,
    ridge_image,
    scan_lines,
)

RIDGE_HALF_WIDTH_HALF_RES = 2   # ridge test offset at half resolution (4 px at full)
RIDGE_FLOOR = 3                 # ridges shallower than this (grey levels) are paper grain
RIDGE_CLIP = 8                  # ridge depth (beyond the floor) counted at most
STRIP_PX = 512                  # strip length along lines, full-resolution pixels
MIN_TOOTH_STRIPS = 3            # a comb line crossing fewer valid strips cannot be seen
#: ridge depth (grey levels) -> depth counted: min(max(depth - RIDGE_FLOOR, 0), RIDGE_CLIP)
_CLIPPED_DEPTH = np.clip(np.arange(256) - RIDGE_FLOOR, 0, RIDGE_CLIP).astype(np.uint8)
SCAN_THREADS = 2                # hypotheses scanned at once
COARSE_SIDE_PX = 625            # long side of the coarse image, pixels
PARALLEL_DEG = 0.65             # lines of one family found within this of their median angle


@dataclass
class ReducedImages:
    """Clipped ridge images and their valid areas at the two working scales."""

    coarse: np.ndarray
    coarse_valid: np.ndarray
    coarse_scale: int
    fine: np.ndarray
    fine_valid: np.ndarray
    fine_scale: int
    masked: bool   # a map-area mask was given (else frames must be told from grid lines)
    size: tuple[int, int]   # (width, height) of the full-resolution image
    # each scan rotates these (see pack_ridge); made once for the dozen scans
    coarse_packed: np.ndarray | None = None
    fine_packed: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.coarse_packed is None:
            self.coarse_packed = pack_ridge(self.coarse, self.coarse_valid)
        if self.fine_packed is None:
            self.fine_packed = pack_ridge(self.fine, self.fine_valid)


@dataclass
class GridHypothesis:
    """A graticule seen at reduced scale.

    Attributes:
        angles_deg: normal angles of the two families (first: the one found first).
        spacing_px: distance between lines, full-resolution pixels.
        lines: per family, the candidate lines of the fine scan (strongest first).
        score: how much line evidence the comb explains (arbitrary units).
    """

    angles_deg: tuple[float, float]
    spacing_px: float
    lines: tuple[list[LineCandidate], list[LineCandidate]]
    score: float


def working_scales(width: int, height: int) -> tuple[int, int]:
    """(coarse, fine) reductions: the coarse image about COARSE_SIDE_PX on its long side
    (1/16 of a 10000 px sheet), the fine one twice as large, never finer than 1/2."""
    coarse = 2 ** int(np.clip(round(np.log2(max(width, height) / COARSE_SIDE_PX)), 2, 4))
    return coarse, max(2, coarse // 2)


def reduced_mask(valid: np.ndarray, scale: int) -> np.ndarray:
    """``valid`` (bool, full resolution) reduced to ``1/scale`` (``w // scale`` columns):
    True where at least half of the block is (area averaging)."""
    h, w = valid.shape
    return cv2.resize(valid.view(np.uint8), (max(1, w // scale), max(1, h // scale)),
                      interpolation=cv2.INTER_AREA) >= 1   # area mean of 0/1 bytes, rounded


def reduced_images(gray: np.ndarray, valid: np.ndarray | None, *, margin_px: int = 48,
                   scales: tuple[int, int] | None = None,
                   reduced_masks: dict[int, np.ndarray] | None = None,
                   half: np.ndarray | None = None) -> ReducedImages:
    """Clipped ridge images at the two working scales of ``gray`` (uint8, dark lines).

    ``valid`` (bool, full resolution) marks where lines may be counted; it is shrunk by
    ``margin_px`` so the map frame is not counted as a line. ``reduced_masks``: the
    ``reduced_mask(valid, scale)`` already made, by scale; ``half``: ``gray`` reduced to
    ``(H // 2, W // 2)`` by area averaging, when already made.
    """
    height, width = gray.shape
    coarse_scale, fine_scale = scales or working_scales(width, height)
    if half is None:
        half = half_size(gray)
    ridge = ridge_image(half, RIDGE_HALF_WIDTH_HALF_RES)
    del half
    # paper grain makes shallow ridges everywhere: drop them, then clip (one table look-up)
    cv2.LUT(ridge, _CLIPPED_DEPTH, dst=ridge)
    out = []
    for scale in (fine_scale, coarse_scale):
        shape = (max(1, width // scale), max(1, height // scale))
        img = cv2.resize(ridge, shape, interpolation=cv2.INTER_AREA)   # 0 to RIDGE_CLIP
        if valid is not None:
            v = (reduced_masks or {}).get(scale)
            v = (reduced_mask(valid, scale) if v is None else v).view(np.uint8)
        else:
            v = np.ones(img.shape, np.uint8)
        r = max(1, margin_px // scale)
        v = cv2.erode(v, np.ones((2 * r + 1, 2 * r + 1), np.uint8))   # 0 or 1
        # pack_ridge's bytes, made from the bytes (ink <= RIDGE_CLIP * 16 < 256)
        packed = np.empty((*img.shape, 2), np.uint8)
        np.multiply(img * v, 16, out=packed[..., 0])
        np.multiply(v, 255, out=packed[..., 1])
        out += [img.astype(np.float32), v.astype(np.float32), packed]
    return ReducedImages(out[3], out[4], coarse_scale, out[0], out[1], fine_scale,
                         valid is not None, (width, height), coarse_packed=out[5],
                         fine_packed=out[2])


def coarse_scan(images: ReducedImages, step_deg: float = 1.0) -> CoarseScan:
    """Scan every angle in [-45, 135) at the coarse scale."""
    s = images.coarse_scale
    angles = np.arange(-45.0, 135.0, step_deg)
    return scan_lines(images.coarse, images.coarse_valid, s, angles,
                      strip_px=max(8, STRIP_PX // s), drift_px=2, drop_edges=not images.masked,
                      packed=images.coarse_packed)


def _peak_profiles(scan: CoarseScan) -> np.ndarray:
    """Each angle's profile reduced to its local maxima (others 0), widened by one bin."""
    a = scan.scores
    peaks = (a == cv2.dilate(a, np.ones((1, 9), np.uint8))) & (a > 0)
    p = np.where(peaks, a, 0.0).astype(np.float32)
    return cv2.dilate(p, np.ones((1, 3), np.uint8)).astype(np.float64)


def angle_hypotheses(scan: CoarseScan, count: int, min_spacing_px: float,
                     max_spacing_px: float) -> list[tuple[float, float]]:
    """The ``count`` best (angle, spacing) pairs by perpendicular comb evidence."""
    p = _peak_profiles(scan)
    n_angles, length = p.shape
    nfft = 1 << int(np.ceil(np.log2(2 * length)))
    spec = np.fft.rfft(p, nfft, axis=1)
    ac = np.fft.irfft(np.abs(spec) ** 2, nfft, axis=1)[:, :length]
    lo = max(2, int(min_spacing_px / scan.scale))
    hi = min(length - 1, int(max_spacing_px / scan.scale))
    if hi <= lo:
        return []
    step = float(np.median(np.diff(scan.angles_deg))) if n_angles > 1 else 1.0
    quarter = round(90.0 / step)
    tol = max(1, round(1.0 / step))
    scored = []
    for k in range(n_angles):
        best, best_lag = 0.0, lo
        for j in range(-tol, tol + 1):
            other = ac[(k + quarter + j) % n_angles, lo:hi]
            both = ac[k, lo:hi] + other
            i = int(np.argmax(both))
            if both[i] > best:
                best, best_lag = float(both[i]), i + lo
        scored.append((best, float(scan.angles_deg[k]), best_lag * scan.scale))
    scored.sort(reverse=True)
    out: list[tuple[float, float]] = []
    for score, angle, spacing in scored:
        if score <= 0:
            break
        # a pair and its perpendicular twin are the same hypothesis
        if any(min(abs(angle_difference(angle, a)), abs(angle_difference(angle + 90, a))) < 2.5
               for a, _ in out):
            continue
        out.append((angle, spacing))
        if len(out) >= count:
            break
    return out


def families_near_angle(images: ReducedImages, angle_deg: float, *, fine: bool,
                        half_range_deg: float = 0.9, step_deg: float = 0.3, count: int = 16
                        ) -> list[tuple[list[LineCandidate], CoarseScan]]:
    """Lines near ``angle_deg`` and near ``angle_deg + 90`` (strongest first), found by a scan
    in small angle steps at the fine scale or (cheaper, to rank many hypotheses) at the coarse
    one; and each family's scan. One rotation serves both families.

    Angles stay continuous around ``angle_deg`` (not wrapped into [-45, 135)), so that all
    lines of one family share one orientation of their normal.
    """
    if fine:
        img, valid, s = images.fine, images.fine_valid, images.fine_scale
        packed = images.fine_packed
    else:
        img, valid, s = images.coarse, images.coarse_valid, images.coarse_scale
        packed = images.coarse_packed
    angles = np.arange(angle_deg - half_range_deg, angle_deg + half_range_deg + 1e-9, step_deg)
    n = len(angles)
    scan = scan_lines(img, valid, s, np.r_[angles, angles + 90.0],
                      strip_px=max(8, STRIP_PX // s), drift_px=1, drop_edges=not images.masked,
                      exact_deg=angle_deg, packed=packed)
    out = []
    for rows in (slice(0, n), slice(n, 2 * n)):
        family = scan.subset(rows)
        out.append((candidate_lines(family, count, angle_window_deg=2 * half_range_deg + 1,
                                    rho_window_px=3 * s), family))
    return out


def predicted_teeth(scan: CoarseScan, angle_deg: float, phase: float, spacing: float) -> int:
    """How many lines of the comb ``phase + k * spacing`` would cross enough of the map to be
    seen (MIN_TOOTH_STRIPS strips of valid area)."""
    row = int(np.argmin(np.abs(scan.angles_deg - angle_deg)))
    lo = scan.rho_of(row, 0)
    hi = scan.rho_of(row, scan.canvas - 1)
    # scan.column_of for every tooth (np.rint rounds halves to even, as round does)
    ks = np.arange(math.ceil((lo - phase) / spacing), math.floor((hi - phase) / spacing) + 1)
    cols = np.rint((phase + ks * float(spacing) - float(scan.centre_rho[row]))
                   / float(scan.scale) + scan.canvas / 2)
    cols = cols[(cols >= 0) & (cols < scan.canvas)].astype(np.int64)
    return int(np.count_nonzero(scan.strips[row, cols] >= MIN_TOOTH_STRIPS))


def comb_evidence(lines: list[LineCandidate], spacings: np.ndarray,
                  tols: np.ndarray) -> list[tuple[float, float, list[int]]]:
    """(score, phase, indices of the lines on the comb) for one family at each spacing
    (``tols``: the distance from a tooth a line may be at, per spacing).

    Every line is tried as the comb's anchor; the score is the summed strength of the lines
    on the comb (the strongest one per tooth), minus half the mean strength for every tooth
    missing between them. All spacings and anchors are scored at once; the best anchor's
    members (by tooth) and phase are then worked out for each spacing.
    """
    if not lines:
        return [(0.0, 0.0, [])] * len(spacings)
    order = np.argsort([-c.score for c in lines], kind="stable")   # strongest first
    rhos = np.array([lines[i].rho_px for i in order])
    w = np.array([lines[i].score for i in order])
    spacings = np.asarray(spacings, float)
    s = spacings[:, None, None]
    rel = (rhos[None, None, :] - rhos[None, :, None]) / s     # (spacing, anchor, line)
    k = np.rint(rel)
    on = np.abs(rel - k) * s <= np.asarray(tols, float)[:, None, None]
    # a line wins its tooth unless a stronger one (earlier) is on the same tooth
    n = len(lines)
    beaten = k[..., :, None] == k[..., None, :]
    beaten &= on[..., None, :]
    beaten &= np.tri(n, n, -1, dtype=bool)
    win = on & ~beaten.any(axis=-1)
    total = (win * w).sum(axis=-1)
    count = win.sum(axis=-1)                                  # >= 1: the anchor itself
    span = np.where(on, k, -np.inf).max(axis=-1) - np.where(on, k, np.inf).min(axis=-1) + 1
    scores = total - 0.5 * (span - count) * total / count
    # each spacing's best anchor: its winners by tooth, and the comb's phase (their median
    # offset from their tooth; one tooth has one winner, so the teeth sort without ties)
    rows = np.arange(len(spacings))
    best = np.argmax(scores, axis=1)
    won, teeth = win[rows, best], k[rows, best]               # (spacing, line)
    by_tooth = np.argsort(np.where(won, teeth, np.inf), axis=1, kind="stable")
    n_won = won.sum(axis=1)
    taken = np.arange(n)[None, :] < n_won[:, None]
    offsets = rhos[by_tooth] - np.take_along_axis(teeth, by_tooth, axis=1) * spacings[:, None]
    ranked = np.sort(np.where(taken, offsets, np.inf), axis=1)
    middle = ranked[rows, n_won // 2]
    phases = np.where(n_won % 2 == 1, middle,
                      (ranked[rows, np.maximum(n_won // 2 - 1, 0)] + middle) / 2.0)
    members = order[by_tooth]
    return [(float(scores[j, a]), float(phases[j]), members[j, :n_won[j]].tolist())
            for j, a in enumerate(best.tolist())]


def evaluate_hypothesis(images: ReducedImages, angle_deg: float, spacing_guess: float,
                        min_spacing_px: float, max_spacing_px: float, *,
                        fine: bool = True,
                        families: list[tuple[list[LineCandidate], CoarseScan]] | None = None
                        ) -> GridHypothesis:
    """Scan both families of a hypothesis in small angle steps and fit the best common
    comb (at the fine scale, or at the coarse one to rank hypotheses cheaply).

    A comb's score is the strength of the lines on it, times the share of the teeth that
    cross the map where a line was found (a graticule shows nearly all its lines, while a
    fine comb through random clutter leaves most teeth empty), times (n - 1) / n for n lines
    found (the spacing is only confirmed by the lines after the first: two or three strong
    lines, rails or a frame, fit a comb of their own spacing trivially).
    ``families``: ``families_near_angle(images, angle_deg, fine=fine)`` when already made.
    """
    other = angle_deg + 90.0
    (fam_a, scan_a), (fam_b, scan_b) = families or families_near_angle(images, angle_deg,
                                                                        fine=fine)
    # the comb is measured with every line's rho at one angle (see _at_common_angle)
    comb_a, comb_b = _at_common_angle(images, fam_a), _at_common_angle(images, fam_b)
    spacings = _spacing_candidates(fam_a, fam_b, spacing_guess, min_spacing_px,
                                   max_spacing_px)
    scale = images.fine_scale if fine else images.coarse_scale
    best = GridHypothesis((angle_deg, other), spacing_guess, ([], []), 0.0)
    tols = np.maximum(2.0 * scale, 0.015 * np.asarray(spacings))
    parallel: dict[tuple[int, ...], tuple[list[int], float]] = {}   # many spacings share
    candidates = []
    for j, (s, (_, pa, ma), (_, pb, mb)) in enumerate(zip(
            spacings, comb_evidence(comb_a, spacings, tols),
            comb_evidence(comb_b, spacings, tols), strict=True)):
        # grid lines are parallel: a member turned from the others is a street on the comb
        ma, sa = _parallel_members(ma, fam_a, comb_a, angle_deg, parallel, 0, fine)
        mb, sb = _parallel_members(mb, fam_b, comb_b, other, parallel, 1, fine)
        found = len(ma) + len(mb)
        bound = (sa + sb) * (found - 1) / max(found, 1)   # the score with no tooth missing
        candidates.append((-bound, j, s, pa, ma, sa, pb, mb, sb))
    # the highest bounds first, so that the teeth of most spacings need not be counted; the
    # first spacing (smallest) of equal scores wins, as when they are tried in order
    best_j = -1
    for neg_bound, j, s, pa, ma, sa, pb, mb, sb in sorted(candidates, key=lambda c: c[:2]):
        if -neg_bound * (1 + 1e-9) < best.score:
            break   # cannot win even with no tooth missing (nor can any after it)
        angles = (_family_angle([fam_a[i] for i in ma], angle_deg),
                  _family_angle([fam_b[i] for i in mb], other))
        teeth = predicted_teeth(scan_a, angles[0], pa, s) + \
            predicted_teeth(scan_b, angles[1], pb, s)
        found = len(ma) + len(mb)
        score = (sa + sb) * found / max(teeth, found, 1) * (found - 1) / max(found, 1)
        if score > best.score or (score == best.score and score > 0 and j < best_j):
            lines = ([fam_a[i] for i in ma], [fam_b[i] for i in mb])
            best, best_j = GridHypothesis(angles, float(s), lines, float(score)), j
    return best


def _parallel_members(members: list[int], lines: list[LineCandidate],
                      comb: list[LineCandidate], default: float,
                      memo: dict[tuple, tuple[list[int], float]], family: int,
                      short_lines: bool = False) -> tuple[list[int], float]:
    """``_parallel`` members and their summed comb score, remembered in ``memo``."""
    key = (family, *members)
    if key not in memo:
        kept = _parallel(members, lines, default, short_lines)
        memo[key] = kept, (sum(comb[i].score for i in kept) if kept else 0.0)
    return memo[key]


def _at_common_angle(images: ReducedImages,
                     lines: list[LineCandidate]) -> list[LineCandidate]:
    """The lines as seen at the strongest line's angle (rho of their point nearest the image
    centre), so that their spacings are measured in the image, not at the origin."""
    if not lines:
        return lines
    ref = lines[0].normal_angle_deg
    return [LineCandidate(ref, rho_at(c.normal_angle_deg, c.rho_px, ref, *images.size),
                          c.score) for c in lines]


def _family_angle(lines: list[LineCandidate], default: float) -> float:
    """Median normal angle of the lines (one strong street among them does not tilt it)."""
    if not lines:
        return default
    return _median([default + angle_difference(c.normal_angle_deg, default) for c in lines])


def _median(values: list[float]) -> float:
    """``np.median`` of a short list, without numpy's overhead (called thousands of times)."""
    v = sorted(values)
    n = len(v)
    return float(v[n // 2]) if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2.0


def _parallel(members: list[int], lines: list[LineCandidate], default: float,
              short_lines: bool = False) -> list[int]:
    """The members within PARALLEL_DEG of their median angle (two fine steps: a grid line
    bent by the paper can be seen a step off).

    With ``short_lines`` (the fine scale), a line may also be as far off as the angle
    tolerances (``LineCandidate.angle_tol_deg``) allow when they are wider: its own plus
    the best-measured member's (the median's angle is no better known than that). A line
    crossing a few strips only (a narrow map, a crop) scores alike over a range of angles,
    and where in that range it peaks hinges on which of its strips are counted as map, that
    is, on a few pixels of the map's edge. (At the coarse scale that range exceeds the
    scan's own, and the test would keep every line.)
    """
    angle = _family_angle([lines[i] for i in members], default)
    known = min((lines[i].angle_tol_deg for i in members), default=0.0) if short_lines else 0.0

    def allowed(line: LineCandidate) -> float:
        return max(PARALLEL_DEG, line.angle_tol_deg + known) if short_lines else PARALLEL_DEG

    return [i for i in members
            if abs(angle_difference(lines[i].normal_angle_deg, angle)) <= allowed(lines[i])]


def _spacing_candidates(fam_a: list[LineCandidate], fam_b: list[LineCandidate], guess: float,
                        lo: float, hi: float) -> list[float]:
    """The coarse guess plus the spacings implied by pairs of strong lines of one family
    (their distance divided by 1, 2 or 3); the comb fit decides between them."""
    out = [guess]
    for fam in (fam_a, fam_b):
        rhos = sorted(c.rho_px for c in fam[:6])
        for i in range(len(rhos)):
            for j in range(i + 1, len(rhos)):
                gap = rhos[j] - rhos[i]
                out += [gap / div for div in (1, 2, 3) if lo <= gap / div <= hi]
    out.sort()
    merged: list[float] = []
    for s in out:   # one candidate per 1 % (the comb tolerance is 1.5 %)
        if not merged or s > merged[-1] * 1.01:
            merged.append(s)
    return merged


def find_grid(images: ReducedImages, *, hypotheses: int = 8, finalists: int = 3,
              finalist_ratio: float = 0.5, min_spacing_px: float = 250.0,
              max_spacing_px: float = 8000.0,
              spacing_hint: float | None = None) -> GridHypothesis | None:
    """The best graticule hypothesis, or None when no angle shows any comb.

    The ``hypotheses`` best angle pairs of the coarse scan are re-scored at the coarse scale
    in small angle steps (cheap); the ``finalists`` best of those that score at least
    ``finalist_ratio`` times the best one are examined at the fine scale, and the best fine
    result wins. (On 72 generated sheets of four styles and the 4 real ones, the fine scale
    never overturned the coarse ranking; it decides near-ties, such as the Paris crop's two
    hypotheses of equal coarse score. The autocorrelation's own ranking is less reliable:
    one tilted sheet's graticule was its sixth pair.)
    """
    scan = coarse_scan(images)
    lo, hi = (0.8 * spacing_hint, 1.25 * spacing_hint) if spacing_hint else \
        (min_spacing_px, max_spacing_px)
    pairs = angle_hypotheses(scan, hypotheses, lo, hi)
    # the scans of the hypotheses two at a time (their steps release the GIL), then their
    # combs (Python, one at a time)
    with ThreadPoolExecutor(SCAN_THREADS) as pool:
        scans = list(pool.map(lambda p: families_near_angle(images, p[0], fine=False), pairs))
    ranked = sorted(((evaluate_hypothesis(images, a, s, lo, hi, fine=False,
                                          families=f).score, a, s)
                     for (a, s), f in zip(pairs, scans, strict=True)), reverse=True)
    best = None
    for coarse_score, angle, spacing in ranked[:finalists]:
        if coarse_score < finalist_ratio * ranked[0][0]:
            break
        h = evaluate_hypothesis(images, angle, spacing, lo, hi)
        if best is None or h.score > best.score:
            best = h
    return best
