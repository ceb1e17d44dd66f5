"""Anti-aliased sub-pixel drawing helpers on single-channel uint8 ink layers (0 = no ink).

Coordinates are float pixels with pixel centres at integers (OpenCV); they are passed to
OpenCV with ``SHIFT`` fractional bits.
"""

from __future__ import annotations

import cv2
import numpy as np

SHIFT = 4
_ONE = 1 << SHIFT


def fixed(points: np.ndarray) -> np.ndarray:
    """Float (k, 2) pixel points as OpenCV fixed-point int32 (k, 1, 2)."""
    return np.round(np.asarray(points, np.float64) * _ONE).astype(np.int32).reshape(-1, 1, 2)


def polyline(layer: np.ndarray, points: np.ndarray, value: int, thickness: int,
             closed: bool = False) -> None:
    """Draw one anti-aliased polyline."""
    if len(points) < 2:
        return
    cv2.polylines(layer, [fixed(points)], closed, int(value), int(max(1, thickness)),
                  cv2.LINE_AA, SHIFT)


def polylines(layer: np.ndarray, lines: list[np.ndarray], value: int, thickness: int,
              closed: bool = False) -> None:
    """Draw many anti-aliased polylines in one call."""
    lines = [fixed(p) for p in lines if len(p) >= 2]
    if lines:
        cv2.polylines(layer, lines, closed, int(value), int(max(1, thickness)), cv2.LINE_AA,
                      SHIFT)


def segment(layer: np.ndarray, p0: np.ndarray, p1: np.ndarray, value: int,
            thickness: int) -> None:
    """Draw one anti-aliased straight segment."""
    a = fixed(np.asarray(p0, np.float64).reshape(1, 2))[0, 0]
    b = fixed(np.asarray(p1, np.float64).reshape(1, 2))[0, 0]
    cv2.line(layer, (int(a[0]), int(a[1])), (int(b[0]), int(b[1])), int(value),
             int(max(1, thickness)), cv2.LINE_AA, SHIFT)


def resample(points: np.ndarray, step: float) -> tuple[np.ndarray, np.ndarray]:
    """Points every ``step`` px along a polyline and the arc length of each."""
    pts = np.asarray(points, np.float64)
    seg = np.hypot(*np.diff(pts, axis=0).T)
    s = np.concatenate([[0.0], np.cumsum(seg)])
    if s[-1] <= 0:
        return pts[:1], np.zeros(1)
    t = np.arange(0.0, s[-1], step)
    return np.stack([np.interp(t, s, pts[:, 0]), np.interp(t, s, pts[:, 1])], axis=1), t


def dashed(layer: np.ndarray, points: np.ndarray, value: int, thickness: int, dash: float,
           gap: float, phase: float = 0.0) -> None:
    """Draw a dashed polyline (dash and gap lengths in px along the line)."""
    dense, s = resample(points, 2.0)
    if len(dense) < 2:
        return
    period = dash + gap
    on = ((s + phase) % period) < dash
    runs = []
    start = None
    for i, flag in enumerate(on):
        if flag and start is None:
            start = i
        elif not flag and start is not None:
            runs.append(dense[start:i])
            start = None
    if start is not None:
        runs.append(dense[start:])
    polylines(layer, [r for r in runs if len(r) >= 2], value, thickness)


def offset_polyline(points: np.ndarray, distance: float | np.ndarray) -> np.ndarray:
    """A polyline moved sideways by ``distance`` px (positive to the left of travel, y down)."""
    pts = np.asarray(points, np.float64)
    d = np.gradient(pts, axis=0)
    norm = np.hypot(d[:, 0], d[:, 1])[:, None]
    d = d / np.maximum(norm, 1e-9)
    left = np.stack([d[:, 1], -d[:, 0]], axis=1)
    return pts + left * np.asarray(distance, np.float64).reshape(-1, 1)


def paste_max(layer: np.ndarray, patch: np.ndarray, x0: int, y0: int) -> None:
    """``layer[y0:, x0:] = max(layer, patch)`` clipped to the layer's bounds."""
    h, w = layer.shape[:2]
    ph, pw = patch.shape[:2]
    xa, ya = max(0, x0), max(0, y0)
    xb, yb = min(w, x0 + pw), min(h, y0 + ph)
    if xa >= xb or ya >= yb:
        return
    sub = layer[ya:yb, xa:xb]
    np.maximum(sub, patch[ya - y0:yb - y0, xa - x0:xb - x0], out=sub)
