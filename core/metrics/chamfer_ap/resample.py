"""Resampling polylines at a fixed spacing along their length, as the CVPR 2023 HD-map metric does.

The reference samples ``line.interpolate(d)`` (shapely/GEOS) at the distances
``[0] + list(numpy.arange(spacing, L, spacing)) + [L]``, where ``L`` is the 2-D length. This
module gives the same points bit for bit, with numpy, for many lines at once:

- ``L`` and the cumulative lengths are sequential sums of ``sqrt(dx*dx + dy*dy)`` (as GEOS's
  ``Length::ofLine`` and ``LengthLocationMap``), so the last cumulative length *is* ``L``;
- the sample at distance ``d`` lies on the first segment whose cumulative end length is
  ``> d``, at ``p0 + t * (p1 - p0)`` with ``t = (d - start) / seglen`` (GEOS's
  ``pointAlongSegmentByFraction``: ``t <= 0`` gives ``p0``, ``t >= 1`` gives ``p1``);
- ``d <= 0`` gives the first point and ``d >= L`` the last one;
- the distances are ``numpy.arange``'s own values: its length ``ceil((L - s) / s)`` and its
  values ``s + i * s`` do not depend on ``L`` otherwise, so one ``arange`` serves all lines.
  Its near-duplicate last sample (``L = 0.9`` gives 0.8999999999999999 and 0.9: 5 samples)
  is kept.

Coordinates are 2-D in any unit (metres, pixels); the spacing is in the same unit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

SAMPLE_DIST = 0.3
"""The challenge's sample spacing, in metres."""

MAX_SAMPLES_PER_LINE = 1_000_000
"""Most samples one line may give (16 MB): 300 km at the challenge's 0.3 m."""
MAX_SAMPLES = 50_000_000
"""Most samples of all lines together (800 MB of coordinates)."""


class SampleLimitError(ValueError):
    """Resampling would make more points than :data:`MAX_SAMPLES_PER_LINE` or
    :data:`MAX_SAMPLES` (coordinates in the wrong unit, or a typing error)."""


def resample_polylines(lines: Sequence[np.ndarray],
                       spacing: float = SAMPLE_DIST) -> tuple[np.ndarray, np.ndarray]:
    """Resample every ``(N_k, 2)`` float64 polyline (``N_k >= 1``) at ``spacing``.

    Returns ``(samples, offsets)``: ``samples`` is ``(S, 2)`` float64 and line ``k``'s samples
    are ``samples[offsets[k]:offsets[k + 1]]`` (at least 2 per line: both end points). A
    zero-length line (all points equal, or a single point) gives its point twice.
    """
    spacing = float(spacing)
    if not (math.isfinite(spacing) and spacing > 0):
        raise ValueError(f"spacing must be a positive number, not {spacing}")
    n_lines = len(lines)
    if n_lines == 0:
        return np.zeros((0, 2)), np.zeros(1, dtype=np.intp)
    n_points = np.fromiter((len(line) for line in lines), dtype=np.intp, count=n_lines)
    if n_points.min() < 1:
        raise ValueError("every polyline needs at least one point")
    points = np.concatenate(lines, axis=0).astype(np.float64, copy=False)  # (T, 2)
    first_point = _starts(n_points)
    n_seg = n_points - 1

    # Segment k of line l joins points p = first_point[l] + k and p + 1; ``seg_len[p]``.
    # Lengths are computed for every consecutive pair; pairs across two lines are never used.
    dx = np.diff(points[:, 0])
    dy = np.diff(points[:, 1])
    with np.errstate(over="ignore", invalid="ignore"):  # huge coordinates: refused below
        seg_len = np.sqrt(dx * dx + dy * dy)
    seg_line = np.repeat(np.arange(n_lines), n_seg)  # line of each segment, in order
    seg_first = _starts(n_seg)  # index of each line's first segment in the segment list
    seg_point = first_point[seg_line] + (np.arange(len(seg_line)) - seg_first[seg_line])
    cum_end, length = _cumulative_lengths(seg_len, first_point, n_seg)
    _check_sample_count(length, spacing)

    # arange(spacing, L, spacing) of every line = the first n_mid values of one arange
    n_mid = np.maximum(np.ceil((length - spacing) / spacing), 0).astype(np.intp)
    template = np.arange(spacing, float(length.max()), spacing)

    n_samples = n_mid + 2
    offsets = np.zeros(n_lines + 1, dtype=np.intp)
    np.cumsum(n_samples, out=offsets[1:])
    samples = np.empty((int(offsets[-1]), 2))
    samples[offsets[:-1]] = points[first_point]  # d = 0
    # d = L: the last point (no segment ends beyond L); a zero-length line: its one point
    samples[offsets[1:] - 1] = np.where((length > 0)[:, None], points[first_point + n_seg],
                                        points[first_point])

    # Intermediate sample i of line l (d = template[i]) lies on the first segment k whose
    # cumulative end is > d, i.e. i >= below[k - 1] and i < below[k], where below[k] counts
    # the template values < cum_end[k]; i >= below[last] means past the end (the last point).
    below = np.minimum(np.searchsorted(template, cum_end, side="left"), n_mid[seg_line])
    below_prev = np.where(np.arange(len(below)) == seg_first[seg_line], 0,
                          np.roll(below, 1))
    per_segment = below - below_prev
    past_end = n_mid.copy()
    has_seg = n_seg > 0
    past_end[has_seg] -= below[seg_first[has_seg] + n_seg[has_seg] - 1]
    # buckets in sample order: each line's segments, then its "past the end" bucket
    bucket_counts = np.empty(len(below) + n_lines, dtype=np.intp)
    bucket_is_seg = np.ones(len(bucket_counts), dtype=bool)
    past_slot = seg_first + n_seg + np.arange(n_lines)
    bucket_is_seg[past_slot] = False
    bucket_counts[bucket_is_seg] = per_segment
    bucket_counts[past_slot] = past_end
    bucket_id = np.empty(len(bucket_counts), dtype=np.intp)
    bucket_id[bucket_is_seg] = np.arange(len(below))  # segment index
    bucket_id[past_slot] = -1 - np.arange(n_lines)  # -1 - line
    mid_bucket = np.repeat(bucket_id, bucket_counts)

    mid_line = np.repeat(np.arange(n_lines), n_mid)
    mid_rank = np.arange(len(mid_line)) - _starts(n_mid)[mid_line]
    mid_slot = offsets[:-1][mid_line] + 1 + mid_rank
    d = template[mid_rank]
    on_seg = mid_bucket >= 0
    past = ~on_seg
    samples[mid_slot[past]] = points[(first_point + n_seg)[-1 - mid_bucket[past]]]

    k = mid_bucket[on_seg]
    p = seg_point[k]
    p0 = points[p]
    p1 = points[p + 1]
    start = np.where(k == seg_first[seg_line[k]], 0.0, cum_end[np.maximum(k - 1, 0)])
    frac = (d[on_seg] - start) / seg_len[p]  # > 0 length: the segment holds a sample
    interpolated = (p1 - p0) * frac[:, None] + p0
    at_p0 = frac <= 0.0
    at_p1 = frac >= 1.0
    interpolated[at_p0] = p0[at_p0]
    interpolated[at_p1] = p1[at_p1]
    samples[mid_slot[on_seg]] = interpolated
    return samples, offsets


def _check_sample_count(length: np.ndarray, spacing: float) -> None:
    """Raise SampleLimitError before allocating more samples than the limits allow."""
    with np.errstate(over="ignore", invalid="ignore"):
        per_line = length / spacing
    worst = int(np.argmax(np.where(np.isfinite(per_line), per_line, np.inf)))
    if not (np.isfinite(per_line[worst]) and per_line[worst] <= MAX_SAMPLES_PER_LINE):
        raise SampleLimitError(
            f"a line is {length[worst]:.3g} units long: resampled every "
            f"{spacing:g} it gives {per_line[worst]:.3g} points, over the limit of "
            f"{MAX_SAMPLES_PER_LINE:.0e} a line; check its coordinates (unit, typing) or "
            "raise the sample spacing")
    total = float(per_line.sum()) + 2 * len(length)
    if total > MAX_SAMPLES:
        raise SampleLimitError(
            f"the lines give {total:.3g} points resampled every {spacing:g}, over the "
            f"limit of {MAX_SAMPLES:.0e}; score fewer frames at once or raise the sample "
            "spacing")


def _starts(counts: np.ndarray) -> np.ndarray:
    """Start index of each group in a concatenation of groups of ``counts`` items."""
    starts = np.zeros(len(counts), dtype=np.intp)
    np.cumsum(counts[:-1], out=starts[1:])
    return starts


def _cumulative_lengths(seg_len: np.ndarray, first_point: np.ndarray,
                        n_seg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-line running sums of segment lengths (in segment-list order) and line lengths.

    Sequential sums, like GEOS, vectorized across lines: step k adds the k-th segment of every
    line that has one.
    """
    n_lines = len(n_seg)
    order = np.argsort(-n_seg, kind="stable")  # lines with the most segments first
    n_sorted = n_seg[order]
    seg_first = _starts(n_seg)
    cum_end = np.empty(int(n_seg.sum()))
    running = np.zeros(n_lines)
    max_seg = int(n_sorted[0]) if n_lines else 0
    # lines_with[k]: how many (sorted) lines have more than k segments
    lines_with = np.searchsorted(-n_sorted, -np.arange(max_seg), side="left")
    for k in range(max_seg):
        m = int(lines_with[k])
        rows = order[:m]
        running[:m] += seg_len[first_point[rows] + k]
        cum_end[seg_first[rows] + k] = running[:m]
    length = np.empty(n_lines)
    length[order] = running
    return cum_end, length


def resample_polyline(points: np.ndarray, spacing: float = SAMPLE_DIST) -> np.ndarray:
    """Resample one ``(N, 2)`` polyline (``N >= 1``) at ``spacing``: ``(S, 2)`` float64."""
    samples, _ = resample_polylines([np.asarray(points, dtype=np.float64)], spacing)
    return samples


def sample_count(length: float, spacing: float = SAMPLE_DIST) -> int:
    """Number of samples of a line of 2-D length ``length``: ``len(arange(s, L, s)) + 2``."""
    return len(np.arange(spacing, length, spacing)) + 2
