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


# (dy, dx) of the neighbours in the bit order of _WEIGHTS: N, NE, E, SE, S, SW, W, NW.
_STEPS = np.array([(-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1)])


def nonzero_yx(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(ys, xs)`` of the nonzero pixels of a 2-D uint8 or bool image, in raster order
    (``np.nonzero``, several times faster through OpenCV)."""
    if mask.dtype not in (np.uint8, np.bool_) or not mask.flags.c_contiguous:
        return np.nonzero(mask)
    found = cv2.findNonZero(mask.view(np.uint8))
    if found is None:
        empty = np.zeros(0, np.int64)
        return empty, empty
    xy = found.reshape(-1, 2).astype(np.int64)
    return xy[:, 1], xy[:, 0]


def _codes_at(img: np.ndarray, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
    """8-neighbourhood codes of pixels ``(ys, xs)`` of a 0/1 image padded by one pixel."""
    code = np.zeros(len(ys), np.uint8)
    for bit, (dy, dx) in enumerate(_STEPS):
        code |= img[ys + dy, xs + dx] << bit
    return code


def _set_neighbours(img: np.ndarray, ys: np.ndarray, xs: np.ndarray,
                    unless: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Distinct 8-neighbours of pixels ``(ys, xs)`` where ``img`` (padded by one pixel) is
    set and, when given, ``unless`` is not."""
    cy = (ys[:, None] + _STEPS[None, :, 0]).ravel()
    cx = (xs[:, None] + _STEPS[None, :, 1]).ravel()
    on = img[cy, cx] > 0
    if unless is not None:
        on &= unless[cy, cx] == 0
    key = np.unique(cy[on].astype(np.int64) * img.shape[1] + cx[on])
    return key // img.shape[1], key % img.shape[1]


def thin(binary: np.ndarray, max_iterations: int = 8) -> np.ndarray:
    """Zhang-Suen skeleton ``(H, W) uint8`` 0/1 of a binary image.

    ``max_iterations`` bounds the work: strokes up to about twice as wide are fully thinned,
    wider blobs keep a thick core (they still separate the regions around them). The first
    passes run on the whole image; once few pixels change, only the neighbours of the
    pixels deleted in the last two passes are tested (the others keep their codes).
    """
    img = np.pad((binary > 0).astype(np.uint8), 1)
    tables = (_FIRST, _SECOND)
    counts: list[int] = []
    deleted: list = []   # per pass: the deletion mask (dense passes) or (ys, xs)
    few = max(1000, img.size // 100)
    for step in range(2 * max_iterations):
        table = tables[step % 2]
        if len(counts) < 2 or counts[-1] + counts[-2] > few:
            code = cv2.filter2D(img, cv2.CV_8U, _WEIGHTS, borderType=cv2.BORDER_CONSTANT)
            delete = cv2.LUT(code, table)
            del code
            delete &= img
            img ^= delete
            counts.append(cv2.countNonZero(delete))
            deleted.append(delete)
        else:
            last = [nonzero_yx(d) if isinstance(d, np.ndarray) else d for d in deleted[-2:]]
            cy, cx = _set_neighbours(img, np.concatenate([d[0] for d in last]),
                                     np.concatenate([d[1] for d in last]))
            hit = table[_codes_at(img, cy, cx)] > 0
            ys, xs = cy[hit], cx[hit]
            img[ys, xs] = 0
            counts.append(len(ys))
            deleted[-2:] = last
            deleted.append((ys, xs))
        if len(deleted) > 2:
            deleted[-3] = None
        if step % 2 and counts[-1] == 0 and counts[-2] == 0:
            break
    return img[1:-1, 1:-1].copy()


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
    ends keep their full length and spurs attached at junctions stay removed. After the
    first pass only the neighbours of the pixels just removed (or grown) are examined.
    """
    if length <= 0:
        return skeleton
    pruned = np.pad((skeleton > 0).astype(np.uint8), 1)
    original = pruned.copy()
    ends_or_alone = _ENDS.copy()
    ends_or_alone[0] = 1
    code = cv2.filter2D(pruned, cv2.CV_8U, _WEIGHTS, borderType=cv2.BORDER_CONSTANT)
    ys, xs = nonzero_yx(cv2.LUT(code, ends_or_alone) & pruned)
    del code
    for _ in range(length):
        if not len(ys):
            break
        pruned[ys, xs] = 0
        cy, cx = _set_neighbours(pruned, ys, xs)
        hit = ends_or_alone[_codes_at(pruned, cy, cx)] > 0
        ys, xs = cy[hit], cx[hit]
    code = cv2.filter2D(pruned, cv2.CV_8U, _WEIGHTS, borderType=cv2.BORDER_CONSTANT)
    ys, xs = nonzero_yx(cv2.LUT(code, _ENDS) & pruned)
    del code
    for _ in range(length):
        ys, xs = _set_neighbours(original, ys, xs, unless=pruned)
        if not len(ys):
            break
        pruned[ys, xs] = 1
    return pruned[1:-1, 1:-1].copy()
