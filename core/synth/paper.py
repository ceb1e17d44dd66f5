"""Paper: cream colour with mottled texture, stains, foxing, darker edges, and the fold crease.

The paper is computed at 1/``PAPER_REDUCTION`` of the sheet size (it has no fine detail),
then upsampled; the fold crease, which is thin, is a 1-D profile applied at full size.
"""

from __future__ import annotations

import cv2
import numpy as np

from .params import SheetParams

PAPER_REDUCTION = 8


def _smooth_noise(rng: np.random.Generator, h: int, w: int, cell: float) -> np.ndarray:
    """Zero-mean, unit-std float32 noise with features about ``cell`` low-res pixels wide."""
    gh, gw = max(2, int(np.ceil(h / cell)) + 2), max(2, int(np.ceil(w / cell)) + 2)
    g = rng.standard_normal((gh, gw)).astype(np.float32)
    up = cv2.resize(g, (int(gw * cell), int(gh * cell)), interpolation=cv2.INTER_CUBIC)[:h, :w]
    up -= up.mean()
    return up / max(float(up.std()), 1e-6)


def paper_lowres(p: SheetParams, rng: np.random.Generator, width: int,
                 height: int) -> np.ndarray:
    """uint8 RGB paper at 1/PAPER_REDUCTION of the size."""
    h = max(2, -(-height // PAPER_REDUCTION))
    w = max(2, -(-width // PAPER_REDUCTION))
    big = _smooth_noise(rng, h, w, max(8.0, min(h, w) / 3))
    mid = _smooth_noise(rng, h, w, max(4.0, min(h, w) / 25))
    fine = _smooth_noise(rng, h, w, 2.0)
    light = 1.0 + 0.018 * big + 0.010 * mid + 0.008 * fine
    light += rng.standard_normal((h, w), dtype=np.float32) * np.float32(0.006)
    # darker edges of the sheet
    yy = np.linspace(-1, 1, h, dtype=np.float32)[:, None]
    xx = np.linspace(-1, 1, w, dtype=np.float32)[None, :]
    edge = np.clip(np.maximum(np.abs(xx), np.abs(yy)) - 0.85, 0, None) / 0.15
    light *= 1.0 - (0.04 + 0.06 * p.difficulty) * edge ** 2

    # stains (soft blobs with a darker tide-mark rim) and foxing spots: a brown overlay
    stain = np.zeros((h, w), np.float32)
    for _ in range(p.stains):
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        r = rng.uniform(0.02, 0.12) * min(w, h)
        ax = rng.uniform(0.6, 1.4)
        strength = rng.uniform(0.08, 0.25) * (0.5 + p.difficulty)
        x0, x1 = int(max(0, cx - 2 * r * ax)), int(min(w, cx + 2 * r * ax))
        y0, y1 = int(max(0, cy - 2 * r)), int(min(h, cy + 2 * r))
        if x1 <= x0 + 2 or y1 <= y0 + 2:
            continue
        yy2, xx2 = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        wob = 1.0 + 0.15 * _smooth_noise(rng, y1 - y0, x1 - x0, max(3.0, r / 3))
        d = np.sqrt(((xx2 - cx) / ax) ** 2 + (yy2 - cy) ** 2) / r * wob
        a = np.clip(1.0 - d, 0, 1) ** 0.5 * 0.6 + np.exp(-((d - 1.0) / 0.05) ** 2) * 0.4
        np.maximum(stain[y0:y1, x0:x1], a * strength, out=stain[y0:y1, x0:x1])
    for _ in range(p.foxing):
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        r = rng.uniform(0.3, 2.5)
        cv2.circle(stain, (int(cx * 16), int(cy * 16)), max(1, int(r * 16)),
                   float(rng.uniform(0.1, 0.35)), -1, cv2.LINE_AA, 4)
    stain = cv2.GaussianBlur(stain, (0, 0), 0.8)  # round, soft spots after upsampling
    # yellowing varies across the sheet: less blue where the paper aged more
    base = np.array(p.paper_rgb, np.float32)
    stain_rgb = np.array([150.0, 115.0, 60.0], np.float32)
    rgb = base[None, None, :] * light[..., None]
    rgb[..., 2] -= 4.0 * (1.0 + big) * (0.5 + p.difficulty)
    rgb += (stain_rgb - rgb) * stain[..., None]
    return np.clip(rgb, 0, 255).astype(np.uint8)


def paper_full(p: SheetParams, rng: np.random.Generator, width: int, height: int) -> np.ndarray:
    """uint8 RGB paper at full size (the buffer the ink is composited into)."""
    low = paper_lowres(p, rng, width, height)
    return cv2.resize(low, (width, height), interpolation=cv2.INTER_LINEAR)


def fold_profile(p: SheetParams, rng: np.random.Generator, width: int) -> np.ndarray | None:
    """Multiplicative brightness per column for the fold crease (float32, 1 = unchanged).

    The crease of a vertical fold: a light ridge a few pixels wide edged by thin grey lines,
    inside a broad faint shadow.
    """
    if not p.fold:
        return None
    x = np.arange(width, dtype=np.float32)
    xf = p.fold_position * width
    w_ridge = rng.uniform(3.0, 7.0)
    prof = np.ones(width, np.float32)
    prof -= 0.05 * (0.4 + p.difficulty) * np.exp(-((x - xf) / rng.uniform(25, 70)) ** 2)
    prof += 0.05 * np.exp(-((x - xf) / w_ridge) ** 4)
    for side in (-1.0, 1.0):
        depth = rng.uniform(0.12, 0.35)
        prof -= depth * np.exp(-((x - xf - side * (w_ridge + 1.0)) / rng.uniform(0.7, 1.6)) ** 2)
    return np.clip(prof, 0.5, 1.2)
