"""Lettering touching line work: ink that lies on no long straight stroke.

Outlines, walls and rails are long and straight: each of their pixels lies on a straight
run of ink at least ``text_line_length`` px long in some direction. Letters are made of
short, curved strokes. The union of openings by straight segments at ``text_angles``
directions keeps the line work; what it loses are letters, and the short pieces of
outlines (cut corners, steps where a building line is set back). A lost piece is put back
when it is small (up to ``text_max_keep`` px) or when it touches an end of the straight
line work: a corner or a step joins two line ends, while a letter touches the middle of a
line that runs on past it.
"""

from __future__ import annotations

import cv2
import numpy as np

from .settings import BlockSettings
from .thinning import end_points, thin


def segment_kernel(length: int, angle: float) -> np.ndarray:
    """A one-pixel straight segment of ``length`` px at ``angle`` radians (x right, y
    down), as a structuring element."""
    r = max(1, length // 2)
    kernel = np.zeros((2 * r + 1, 2 * r + 1), np.uint8)
    dx, dy = r * np.cos(angle), r * np.sin(angle)
    cv2.line(kernel, (round(r - dx), round(r - dy)), (round(r + dx), round(r + dy)), 1, 1)
    return kernel


def straight_line_work(ink: np.ndarray, length: int, n_angles: int) -> np.ndarray:
    """``(H, W) uint8`` 0/1: ink pixels on a straight run of ``length`` px of ink."""
    lines = np.zeros_like(ink)
    opened = np.empty_like(ink)
    for k in range(n_angles):
        cv2.morphologyEx(ink, cv2.MORPH_OPEN, segment_kernel(length, np.pi * k / n_angles),
                         dst=opened)
        cv2.bitwise_or(lines, opened, dst=lines)
    return lines


def erase_lettering(ink: np.ndarray, s: BlockSettings) -> np.ndarray:
    """Ink without letters and other short curved strokes touching the line work."""
    if s.text_line_length <= 0:
        return ink
    lines = straight_line_work(ink, s.px(s.text_line_length), s.text_angles)
    rest = cv2.subtract(ink, lines)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(rest, connectivity=8,
                                                           ltype=cv2.CV_32S)
    extent = np.maximum(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT])
    letter = (extent > s.px(s.text_max_keep)) | (
        stats[:, cv2.CC_STAT_AREA] > s.area(s.text_max_keep * 3))
    letter[0] = False
    if letter.any():
        skeleton = thin(lines, s.thinning_iterations)
        ends = (end_points(skeleton)).astype(np.uint8)
        del skeleton
        ends = cv2.dilate(ends, np.ones((5, 5), np.uint8))
        at_end = np.bincount(labels[ends > 0], minlength=n) > 0
        letter &= ~at_end
    out = ink.copy()
    out[letter[labels]] = 0
    return out
