"""Texture areas: hatching of buildings and water lines, whose strokes are not boundaries.

A pixel belongs to a texture area when every free (non-ink) pixel around it is close to
ink, i.e. the strokes are densely packed; an opening keeps only areas wider than
``texture_opening`` (so the two lines of a sidewalk or a railway are not texture). Ink deeper
inside than ``texture_margin`` is erased: the hatched building becomes an empty area still
closed by its outline, which lies at the edge of the texture area.
"""

from __future__ import annotations

import cv2
import numpy as np

from .ink import disk
from .settings import BlockSettings


def texture_areas(ink: np.ndarray, mask: np.ndarray, s: BlockSettings) -> np.ndarray:
    """``(H, W) uint8`` 0/1: areas of densely packed strokes (hatching, water lines)."""
    gap = cv2.distanceTransform((1 - ink).astype(np.uint8), cv2.DIST_L2, 3)
    w = s.px(s.texture_window)
    cv2.dilate(gap, disk(w // 2), dst=gap)
    dense = (gap <= s.texture_gap * s.scale / 2).astype(np.uint8)
    del gap
    dense = cv2.morphologyEx(dense, cv2.MORPH_OPEN, disk(s.px(s.texture_opening) // 2))
    dense &= mask.astype(np.uint8)
    return dense


def erase_texture(ink: np.ndarray, texture: np.ndarray, s: BlockSettings) -> np.ndarray:
    """Ink with the strokes inside texture areas (beyond ``texture_margin``) erased."""
    inner = cv2.erode(texture, disk(s.px(s.texture_margin)))
    out = ink.copy()
    out[inner > 0] = 0
    return out
