"""Closing gaps in damaged outlines: joining line ends that face each other.

A line end is a skeleton pixel with one neighbour; its direction is the way out of the
line, estimated from the skeleton pixels within ``radius`` of it. Two ends are joined by a
straight segment when they are at most ``max_gap`` apart, each lies in front of the other
within ``angle`` degrees and their directions are opposite within the same angle (the two
pieces of one straight outline). Each end is joined at most once, to its nearest partner.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from scipy.spatial import cKDTree

from .thinning import end_points, nonzero_yx


def line_ends(skeleton: np.ndarray, radius: int) -> tuple[np.ndarray, np.ndarray]:
    """End points ``(N, 2)`` (x, y) of a skeleton and their unit directions ``(N, 2)``."""
    ends = end_points(skeleton)
    ys, xs = nonzero_yx(ends)
    if len(ys) == 0:
        return np.zeros((0, 2)), np.zeros((0, 2))
    padded = np.pad(skeleton, radius)
    windows = sliding_window_view(padded, (2 * radius + 1, 2 * radius + 1))[ys, xs]
    oy, ox = np.mgrid[-radius:radius + 1, -radius:radius + 1]
    disk = (ox * ox + oy * oy) <= radius * radius
    w = windows * disk
    count = np.maximum(w.sum(axis=(1, 2)), 1).astype(np.float64)
    cx = (w * ox).sum(axis=(1, 2)) / count
    cy = (w * oy).sum(axis=(1, 2)) / count
    direction = np.stack([-cx, -cy], axis=1)
    norm = np.hypot(direction[:, 0], direction[:, 1])
    ok = norm > 0.5
    direction[ok] /= norm[ok, None]
    direction[~ok] = 0.0
    return np.stack([xs, ys], axis=1).astype(np.float64), direction


def join_facing_ends(skeleton: np.ndarray, max_gap: float, angle: float = 12.0,
                     radius: int = 10) -> tuple[np.ndarray, int]:
    """The skeleton with facing line ends joined; also returns the number of joins."""
    points, direction = line_ends(skeleton, radius)
    if len(points) < 2 or max_gap <= 0:
        return skeleton, 0
    tree = cKDTree(points)
    pairs = tree.query_pairs(max_gap, output_type="ndarray")
    if len(pairs) == 0:
        return skeleton, 0
    i, j = pairs[:, 0], pairs[:, 1]
    delta = points[j] - points[i]
    dist = np.hypot(delta[:, 0], delta[:, 1])
    cos_min = np.cos(np.deg2rad(angle))
    ahead_i = (delta * direction[i]).sum(1) >= cos_min * dist
    ahead_j = (-delta * direction[j]).sum(1) >= cos_min * dist
    opposite = (direction[i] * direction[j]).sum(1) <= -cos_min
    ok = ahead_i & ahead_j & opposite & (dist >= 2)
    return _draw_best(skeleton, points, i[ok], j[ok], dist[ok])


def join_near_ends(skeleton: np.ndarray, max_gap: float, angle: float = 60.0,
                   radius: int = 6) -> tuple[np.ndarray, int]:
    """Join line ends at most ``max_gap`` apart whose directions both point roughly (within
    ``angle`` degrees) at each other: the broken corners of an outline."""
    points, direction = line_ends(skeleton, radius)
    if len(points) < 2 or max_gap <= 0:
        return skeleton, 0
    pairs = cKDTree(points).query_pairs(max_gap, output_type="ndarray")
    if len(pairs) == 0:
        return skeleton, 0
    i, j = pairs[:, 0], pairs[:, 1]
    delta = points[j] - points[i]
    dist = np.maximum(np.hypot(delta[:, 0], delta[:, 1]), 1e-6)
    cos_min = np.cos(np.deg2rad(angle))
    ok = (((delta * direction[i]).sum(1) >= cos_min * dist)
          & ((-delta * direction[j]).sum(1) >= cos_min * dist) & (dist >= 2))
    return _draw_best(skeleton, points, i[ok], j[ok], dist[ok])


def join_ends_to_lines(skeleton: np.ndarray, max_gap: int, angle: float = 25.0,
                       radius: int = 6) -> tuple[np.ndarray, int]:
    """Extend each line end straight ahead (within ``angle`` degrees) to the nearest line
    pixel at most ``max_gap`` away: outlines stopping just short of another line."""
    points, direction = line_ends(skeleton, radius)
    if len(points) == 0 or max_gap <= 0:
        return skeleton, 0
    g = int(max_gap)
    xs, ys = points[:, 0].astype(int), points[:, 1].astype(int)
    padded = np.pad(skeleton, g)
    windows = sliding_window_view(padded, (2 * g + 1, 2 * g + 1))[ys, xs]
    oy, ox = np.mgrid[-g:g + 1, -g:g + 1]
    dist = np.hypot(ox, oy).astype(np.float32)
    along = ox[None] * direction[:, 0, None, None] + oy[None] * direction[:, 1, None, None]
    cos_min = np.cos(np.deg2rad(angle))
    ok = (windows > 0) & (dist[None] >= 3) & (dist[None] <= g) & (along >= cos_min * dist[None])
    d = np.where(ok, dist[None], np.inf).reshape(len(points), -1)
    best = d.argmin(axis=1)
    has = np.isfinite(d[np.arange(len(points)), best])
    out = skeleton.copy()
    for k in np.flatnonzero(has):
        tx, ty = xs[k] + ox.ravel()[best[k]], ys[k] + oy.ravel()[best[k]]
        cv2.line(out, (int(xs[k]), int(ys[k])), (int(tx), int(ty)), 1, 1)
    return out, int(has.sum())


def _draw_best(skeleton: np.ndarray, points: np.ndarray, i: np.ndarray, j: np.ndarray,
               dist: np.ndarray) -> tuple[np.ndarray, int]:
    """Draw the segments of pairs (i, j), nearest first, each end used at most once."""
    used = np.zeros(len(points), bool)
    out = skeleton.copy()
    joined = 0
    for k in np.argsort(dist):
        a, b = i[k], j[k]
        if used[a] or used[b]:
            continue
        used[a] = used[b] = True
        pa, pb = points[a].astype(int), points[b].astype(int)
        cv2.line(out, (int(pa[0]), int(pa[1])), (int(pb[0]), int(pb[1])), 1, 1)
        joined += 1
    return out, joined


def join_corner_rays(skeleton: np.ndarray, max_extend: float, min_angle: float = 30.0,
                     radius: int = 10) -> tuple[np.ndarray, int]:
    """Rebuild broken corners: two line ends whose straight extensions (each at most
    ``max_extend`` long, at least ``min_angle`` degrees apart) meet are both extended to the
    meeting point. Each end is used at most once, shortest extensions first."""
    points, direction = line_ends(skeleton, radius)
    if len(points) < 2 or max_extend <= 0:
        return skeleton, 0
    pairs = cKDTree(points).query_pairs(2 * max_extend, output_type="ndarray")
    if len(pairs) == 0:
        return skeleton, 0
    i, j = pairs[:, 0], pairs[:, 1]
    di, dj = direction[i], direction[j]
    cross = di[:, 0] * dj[:, 1] - di[:, 1] * dj[:, 0]
    ok = np.abs(cross) >= np.sin(np.deg2rad(min_angle))
    delta = points[j] - points[i]
    safe = np.where(ok, cross, 1.0)
    s = (delta[:, 0] * dj[:, 1] - delta[:, 1] * dj[:, 0]) / safe   # along di from i
    t = (delta[:, 0] * di[:, 1] - delta[:, 1] * di[:, 0]) / safe   # along dj from j
    ok &= (s > 1) & (t > 1) & (s <= max_extend) & (t <= max_extend)
    i, j, s, t = i[ok], j[ok], s[ok], t[ok]
    used = np.zeros(len(points), bool)
    out = skeleton.copy()
    joined = 0
    for k in np.argsort(s + t):
        a, b = i[k], j[k]
        if used[a] or used[b]:
            continue
        used[a] = used[b] = True
        meet = points[a] + s[k] * direction[a]
        mx, my = round(float(meet[0])), round(float(meet[1]))
        for e in (a, b):
            cv2.line(out, (int(points[e][0]), int(points[e][1])), (mx, my), 1, 1)
        joined += 1
    return out, joined


def ray_hits(skeleton: np.ndarray, points: np.ndarray, direction: np.ndarray,
             max_len: float, start: float = 3.0, spread: float = 0.03) -> np.ndarray:
    """Distance along each ray (from ``points`` along unit ``direction``) to the first
    line pixel at most ``1 + spread * distance`` px to either side of it, or inf."""
    height, width = skeleton.shape
    n = len(points)
    hit = np.full(n, np.inf)
    if n == 0:
        return hit
    steps = np.arange(start, max_len + 0.5, 1.0)
    half = int(np.ceil(1 + spread * max_len))
    normal = np.stack([-direction[:, 1], direction[:, 0]], axis=1)
    for chunk in range(0, n, 4096):
        sl = slice(chunk, chunk + 4096)
        p, d, q = points[sl], direction[sl], normal[sl]
        best = np.full(len(p), np.inf)
        for k in range(-half, half + 1):
            reach = np.abs(k) <= 1 + spread * steps
            xs = np.rint(p[:, None, 0] + d[:, None, 0] * steps + q[:, None, 0] * k).astype(int)
            ys = np.rint(p[:, None, 1] + d[:, None, 1] * steps + q[:, None, 1] * k).astype(int)
            inside = (xs >= 0) & (xs < width) & (ys >= 0) & (ys < height) & reach[None, :]
            on = np.zeros(xs.shape, bool)
            on[inside] = skeleton[ys[inside], xs[inside]] > 0
            first = np.where(on.any(axis=1), steps[on.argmax(axis=1)], np.inf)
            best = np.minimum(best, first)
        hit[sl] = best
    return hit


def extend_ends(skeleton: np.ndarray, max_len: float, *, to_ends_only: bool = False,
                end_radius: float = 3.0, radius: int = 10) -> tuple[np.ndarray, int]:
    """Extend line ends straight ahead to the first line they meet within ``max_len`` px:
    outlines broken near a corner or in the middle of an edge. Shortest extensions first;
    an end reached by another's extension is no longer extended. With ``to_ends_only``,
    only extensions arriving within ``end_radius`` px of another line end are drawn."""
    points, direction = line_ends(skeleton, radius)
    ok = np.hypot(direction[:, 0], direction[:, 1]) > 0
    points, direction = points[ok], direction[ok]
    if len(points) == 0:
        return skeleton, 0
    dist = ray_hits(skeleton, points, direction, max_len)
    target = points + direction * np.where(np.isfinite(dist), dist, 0)[:, None]
    tree = cKDTree(points)
    near, partner = tree.query(target, k=1)
    at_end = np.isfinite(dist) & (near <= end_radius)
    chosen = np.flatnonzero(at_end if to_ends_only else np.isfinite(dist))
    used = np.zeros(len(points), bool)
    out = skeleton.copy()
    drawn = 0
    for k in chosen[np.argsort(dist[chosen])]:
        if used[k]:
            continue
        used[k] = True
        if at_end[k]:
            used[partner[k]] = True
        tx, ty = np.rint(target[k]).astype(int)
        cv2.line(out, (int(points[k][0]), int(points[k][1])), (int(tx), int(ty)), 1, 1)
        drawn += 1
    return out, drawn
