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

from dataclasses import dataclass

import cv2
import numpy as np

from .angles import angle_difference

SIDE_PX = 2                     # coarse columns between a line and its comparison columns
EDGE_WINDOW_PX = 400            # a frame line has (almost) no map on one side over this
EDGE_RATIO = 0.25


@dataclass(frozen=True)
class LineCandidate:
    """A straight line found at coarse scale, in full-resolution pixels."""

    normal_angle_deg: float
    rho_px: float
    score: float


def ridge_image(gray: np.ndarray, half_width: int) -> np.ndarray:
    """Depth of thin dark lines in any direction: ``max over axes of min(neighbours) - pixel``.

    ``gray`` is uint8 with dark lines; the result is uint8, 0 on paper, edges and wide areas
    and within ``half_width`` of the border.
    """
    h = half_width
    out = np.zeros_like(gray)
    side = np.empty_like(gray[:, 2 * h:])
    np.minimum(gray[:, :-2 * h], gray[:, 2 * h:], out=side)
    out[:, h:-h] = cv2.subtract(side, gray[:, h:-h])
    side = np.empty_like(gray[2 * h:, :])
    np.minimum(gray[:-2 * h, :], gray[2 * h:, :], out=side)
    np.maximum(out[h:-h, :], cv2.subtract(side, gray[h:-h, :]), out=out[h:-h, :])
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
    """

    angles_deg: np.ndarray
    scores: np.ndarray
    scale: float
    centre_rho: np.ndarray
    canvas: int
    strips: np.ndarray

    def rho_of(self, angle_index: int, column: float) -> float:
        """Full-resolution rho of a rotated column at a scanned angle."""
        return float(self.centre_rho[angle_index] + (column - self.canvas / 2) * self.scale)

    def column_of(self, angle_index: int, rho: float) -> int:
        """The rotated column of a full-resolution rho at a scanned angle."""
        return round((rho - self.centre_rho[angle_index]) / self.scale + self.canvas / 2)

    def subset(self, rows: slice) -> CoarseScan:
        """The scan of the angles ``rows`` only."""
        return CoarseScan(self.angles_deg[rows], self.scores[rows], self.scale,
                          self.centre_rho[rows], self.canvas, self.strips[rows])


def scan_lines(ridge: np.ndarray, valid: np.ndarray, scale: float, angles_deg: np.ndarray, *,
               strip_px: int, drift_px: int = 1, quantile: float = 0.4,
               drop_edges: bool = False) -> CoarseScan:
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
    """
    h, w = ridge.shape
    canvas = int(np.ceil(np.hypot(h, w))) + 2
    canvas = -(-canvas // strip_px) * strip_px
    n_strips = canvas // strip_px
    shift = np.float64([(canvas - w) / 2, (canvas - h) / 2])
    # fixed point in 8 bits (ridge x 16, valid x 255): rotating bytes is several times
    # faster than floats; the ridge is clipped to <= 15 grey levels (see RIDGE_CLIP)
    packed = np.dstack([np.clip(ridge * valid * 16.0, 0, 255),
                        valid * 255.0]).astype(np.uint8)
    scores = np.zeros((len(angles_deg), canvas), np.float32)
    strips = np.zeros((len(angles_deg), canvas), np.int32)
    drift_kernel = np.ones((1, 2 * drift_px + 1), np.uint8)
    edge_window = max(3, round(EDGE_WINDOW_PX / scale)) if drop_edges else 0

    def score(i: int, sums: np.ndarray) -> None:
        scores[i], strips[i] = _column_scores(sums, strip_px, drift_kernel, quantile,
                                              edge_window)

    partner = _perpendicular_partners(angles_deg)
    for i, angle in enumerate(angles_deg):
        if i in partner.values():
            continue   # scored from its partner's rotation
        m = cv2.getRotationMatrix2D((w / 2, h / 2), float(angle), 1.0)
        m[:, 2] += shift
        # one spare column on the right: the perpendicular angle's strips (below)
        rot = cv2.warpAffine(packed, m, (canvas + 1, canvas), flags=cv2.INTER_LINEAR)
        score(i, rot[:, :canvas].reshape(n_strips, strip_px, canvas, 2)
              .sum(axis=1, dtype=np.float32))
        if i in partner:
            # turning by 90 more degrees about the canvas centre maps (x, y) to
            # (y, canvas - x): the rotation at angle + 90 is this one's columns 1 .. canvas
            # turned counter-clockwise (column canvas is margin, all zero)
            turned = cv2.rotate(rot[:, 1:], cv2.ROTATE_90_COUNTERCLOCKWISE)
            score(partner[i], turned.reshape(n_strips, strip_px, canvas, 2)
                  .sum(axis=1, dtype=np.float32))
    t = np.radians(angles_deg)
    centre_rho = ((w / 2) * np.cos(t) + (h / 2) * np.sin(t)) * scale
    return CoarseScan(np.asarray(angles_deg, float), scores, scale, centre_rho, canvas, strips)


def _perpendicular_partners(angles_deg: np.ndarray) -> dict[int, int]:
    """{i: j} where angle j is angle i + 90 degrees: both are scored from one rotation."""
    out: dict[int, int] = {}
    for i, a in enumerate(angles_deg):
        if i in out.values():
            continue
        j = np.flatnonzero(np.abs(np.asarray(angles_deg) - (a + 90.0)) < 1e-6)
        if len(j) and int(j[0]) not in out and int(j[0]) not in out.values():
            out[i] = int(j[0])
    return out


def _column_scores(sums: np.ndarray, strip_px: int, drift_kernel: np.ndarray,
                   quantile: float, edge_window: int) -> tuple[np.ndarray, np.ndarray]:
    """(score, number of valid strips) of every rotated column from its strip sums
    ``(n_strips, D, 2)``: ink x 16 and cover x 255 (see :func:`scan_lines`)."""
    ink, cover = sums[..., 0] / 16.0, sums[..., 1] / 255.0
    scores = np.zeros(ink.shape[1], np.float32)
    # a line is more ink than both neighbours two columns away (texture is not)
    sides = np.full_like(ink, np.inf)
    sides[:, SIDE_PX:-SIDE_PX] = np.maximum(ink[:, :-2 * SIDE_PX], ink[:, 2 * SIDE_PX:])
    tophat = cv2.dilate(np.where(np.isfinite(sides), ink - sides, 0).astype(np.float32),
                        drift_kernel)
    full = cover >= 0.8 * strip_px
    per_px = np.where(full, tophat / np.maximum(cover, 1.0), np.inf)
    per_px.sort(axis=0)   # valid values first, in increasing order
    n_full = full.sum(axis=0)
    rank = np.floor(quantile * np.maximum(n_full - 1, 0)).astype(int)
    q = np.take_along_axis(per_px, rank[None, :], axis=0)[0]
    ok = n_full >= 2
    if edge_window:
        ok &= ~_one_sided(ink.sum(axis=0), cover.sum(axis=0), edge_window)
    if ok.sum() > 4:
        baseline = np.median(q[ok])   # what clutter alone gives along a line
        scores[ok] = (q[ok] - baseline) * np.sqrt(n_full[ok])
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
        cand = LineCandidate(float(scan.angles_deg[a]), scan.rho_of(a, c), float(s[a, c]))
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
