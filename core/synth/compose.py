"""Compositing the ink layers on the paper, with fading fields, grain and the fold crease."""

from __future__ import annotations

import cv2
import numpy as np

from .params import SheetParams
from .warp import BAND_ROWS


def field_u8(rng: np.random.Generator, shape: tuple[int, int], depth: float,
              floor: float) -> np.ndarray:
    """A full-size uint8 multiplier field in [255 * (1 - depth), 255], smooth and random."""
    h, w = shape
    gh, gw = max(2, h // 300 + 2), max(2, w // 300 + 2)
    g = rng.random((gh, gw)).astype(np.float32)
    g = cv2.resize(g, (gw * 8, gh * 8), interpolation=cv2.INTER_CUBIC)
    g = np.clip((g - g.min()) / max(float(np.ptp(g)), 1e-6), 0, 1)
    f = np.clip(1.0 - depth * g, floor, 1.0) * 255.0
    return cv2.resize(f.astype(np.uint8), (w, h), interpolation=cv2.INTER_LINEAR)


def composite(paper: np.ndarray, ink: np.ndarray, red: np.ndarray, p: SheetParams,
              rng: np.random.Generator, fold: np.ndarray | None) -> None:
    """Blend the ink layers into ``paper`` (uint8 RGB, in place), band by band.

    ``out = paper - (paper - ink colour) * alpha / 255`` for red then black ink, with
    OpenCV's saturating uint8 arithmetic; then a fine grain and the fold crease.
    """
    h, w = ink.shape
    ink_rgb = (*p.ink_rgb, 0.0)
    red_rgb = (*p.red_rgb, 0.0)
    # fine grain: a band-sized tile of luminance noise, split into its +/- parts
    noise = rng.normal(0.0, p.noise_sigma, (BAND_ROWS, w + 1024)).astype(np.float32)
    grain_pos = np.clip(noise, 0, 255).astype(np.uint8)
    grain_neg = np.clip(-noise, 0, 255).astype(np.uint8)
    for r0 in range(0, h, BAND_ROWS):
        r1 = min(h, r0 + BAND_ROWS)
        band = paper[r0:r1]
        for layer, colour in ((red, red_rgb), (ink, ink_rgb)):  # black printed over red
            if not cv2.countNonZero(layer[r0:r1]):
                continue  # no ink of this colour in the band (margins, most red)
            alpha = cv2.cvtColor(layer[r0:r1], cv2.COLOR_GRAY2RGB)
            darker = cv2.multiply(cv2.subtract(band, colour), alpha, scale=1 / 255)
            cv2.subtract(band, darker, dst=band)
        off = int(rng.integers(0, 1024))
        cv2.add(band, cv2.cvtColor(grain_pos[: r1 - r0, off:off + w], cv2.COLOR_GRAY2RGB),
                dst=band)
        cv2.subtract(band, cv2.cvtColor(grain_neg[: r1 - r0, off:off + w], cv2.COLOR_GRAY2RGB),
                     dst=band)
    if fold is not None:  # only the columns the crease darkens or lightens
        cols = np.flatnonzero(np.abs(fold - 1.0) > 1e-3)
        if len(cols):
            c0, c1 = int(cols[0]), int(cols[-1]) + 1
            for r0 in range(0, h, BAND_ROWS):
                r1 = min(h, r0 + BAND_ROWS)
                sub = paper[r0:r1, c0:c1].astype(np.float32) * fold[None, c0:c1, None]
                paper[r0:r1, c0:c1] = np.clip(sub, 0, 255).astype(np.uint8)
