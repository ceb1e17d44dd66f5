"""Thinning of the ink into a one-pixel line network, and removal of short spurs.

Zhang-Suen thinning with 256-entry lookup tables on the 8-neighbourhood code, computed with
OpenCV filters (fast on 100-megapixel sheets). The result is 8-connected, so the regions
it separates are distinct 4-connected components.
"""

from __future__ import annotations

import cv2
import numpy as np

# Weights of the 8 neighbours: north 1, then clockwise NE 2, E 4, SE 8, S 16, SW 32, W 64,
# NW 128.
_WEIGHTS = np.array([[128, 1, 2], [64, 0, 4], [32, 16, 8]], np.float32)
_ONES = np.ones((3, 3), np.float32)


def _zhang_suen_tables() -> tuple[np.ndarray, np.ndarray]:
    first = np.zeros(256, np.uint8)
    second = np.zeros(256, np.uint8)
    for code in range(256):
        p = [(code >> i) & 1 for i in range(8)]   # N, NE, E, SE, S, SW, W, NW
        count = sum(p)
        transitions = sum(p[i] == 0 and p[(i + 1) % 8] == 1 for i in range(8))
        if not (2 <= count <= 6 and transitions == 1):
            continue
        n, e, s, w = p[0], p[2], p[4], p[6]
        if n * e * s == 0 and e * s * w == 0:
            first[code] = 1
        if n * e * w == 0 and n * s * w == 0:
            second[code] = 1
    return first, second


_FIRST, _SECOND = _zhang_suen_tables()


def _end_table() -> np.ndarray:
    """Codes of line ends: one or two set neighbours, next to each other around the pixel
    (a line ending in a one-pixel step still ends there)."""
    table = np.zeros(256, np.uint8)
    for code in range(256):
        p = [(code >> i) & 1 for i in range(8)]
        transitions = sum(p[i] == 0 and p[(i + 1) % 8] == 1 for i in range(8))
        if 1 <= sum(p) <= 2 and transitions == 1:
            table[code] = 1
    return table


_ENDS = _end_table()


def thin(binary: np.ndarray, max_iterations: int = 8) -> np.ndarray:
    """Zhang-Suen skeleton ``(H, W) uint8`` 0/1 of a binary image.

    ``max_iterations`` bounds the work: strokes up to about twice as wide are fully thinned,
    wider blobs keep a thick core (they still separate the regions around them).
    """
    img = (binary > 0).astype(np.uint8)
    for _ in range(max_iterations):
        changed = False
        for table in (_FIRST, _SECOND):
            code = cv2.filter2D(img, cv2.CV_8U, _WEIGHTS, borderType=cv2.BORDER_CONSTANT)
            delete = cv2.LUT(code, table)
            delete &= img
            if delete.any():
                img ^= delete
                changed = True
        if not changed:
            break
    return img


def neighbour_count(skeleton: np.ndarray) -> np.ndarray:
    """Number of 8-neighbours of each pixel that are set (uint8)."""
    total = cv2.filter2D(skeleton, cv2.CV_8U, _ONES, borderType=cv2.BORDER_CONSTANT)
    return total - skeleton


def end_points(skeleton: np.ndarray) -> np.ndarray:
    """``(H, W) bool``: the free ends of a one-pixel line network."""
    code = cv2.filter2D(skeleton, cv2.CV_8U, _WEIGHTS, borderType=cv2.BORDER_CONSTANT)
    return (cv2.LUT(code, _ENDS) > 0) & (skeleton > 0)


def prune_spurs(skeleton: np.ndarray, length: int) -> np.ndarray:
    """Remove branches with a free end that are at most ``length`` pixels long.

    The skeleton is eroded from its end points ``length`` times, then the surviving lines
    grow back from their own end points along the original skeleton, so lines with two free
    ends keep their full length and spurs attached at junctions stay removed.
    """
    if length <= 0:
        return skeleton
    pruned = skeleton.copy()
    for _ in range(length):
        ends = end_points(pruned) | ((pruned > 0) & (neighbour_count(pruned) == 0))
        if not ends.any():
            break
        pruned[ends] = 0
    grow = end_points(pruned).astype(np.uint8)
    square = np.ones((3, 3), np.uint8)
    for _ in range(length):
        grow = cv2.dilate(grow, square) & skeleton & (1 - pruned)
        if not grow.any():
            break
        pruned |= grow
    return pruned
