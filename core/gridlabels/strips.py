"""Words of figures in strips cut along grid lines: the geometry the word finder of grid
values uses (:mod:`.words`, by the frame and along the lines inside the map).

A strip is cut turned so that the line runs up its middle; long straight strokes (the line,
the frame, other lines) are removed from its ink, and the ink left is split into
character-sized components joined into words.

Pixel coordinates: x right, y down (integer values at pixel centres); strips in pixels of
the sheet as read (:func:`.words.sheet_gray`).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import cv2
import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from ..cores import usable_cores
from ..graticule.result import LineFamily

T = TypeVar("T")
W = TypeVar("W")

#: Strips cut and searched for words at once (threads).
STRIP_THREADS = min(2, usable_cores())


def line_geometry(fam: LineFamily, k: int) -> tuple[np.ndarray, np.ndarray]:
    """A point of line ``k`` (the foot of the normal from the origin) and its direction."""
    t = np.radians(fam.normal_angle_deg)
    nrm = np.array([np.cos(t), np.sin(t)])
    return nrm * fam.line_position(k), np.array([-nrm[1], nrm[0]])


def cut_strip(gray: np.ndarray, origin: np.ndarray, out: np.ndarray, across: np.ndarray,
              width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """Cut a ``height`` x ``width`` strip whose bottom-centre is ``origin``, up = ``out``;
    returns it and the 2x3 map strip pixel -> image pixel."""
    down = -out
    m = np.array([[across[0], down[0], 0.0], [across[1], down[1], 0.0]])
    m[:, 2] = origin - m[:, 0] * (width / 2.0) - m[:, 1] * height
    strip = cv2.warpAffine(gray, m, (width, height), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                           borderMode=cv2.BORDER_REPLICATE)
    return strip, m


def strip_ink(strip: np.ndarray, long_px: int, mend: bool = True
              ) -> tuple[np.ndarray, np.ndarray]:
    """Binary ink (255) of a strip without its long horizontal and vertical strokes, and
    the ink's darkness (0 paper - 255 darkest ink) without them; ``mend``: but with the
    ink under them that carries a figure's stroke across them (:func:`_mended`).

    Ink is what is darker than the local paper (a grey closing) by a good part of the
    strip's contrast; straight strokes longer than ``long_px`` are the line, the frame or
    other grid lines."""
    paper = cv2.morphologyEx(strip, cv2.MORPH_CLOSE, np.ones((15, 15), np.uint8))
    depth = cv2.subtract(paper, strip)
    hist = np.cumsum(cv2.calcHist([depth], [0], None, [256], [0, 256]).ravel())
    contrast = float(np.searchsorted(hist, 0.999 * hist[-1]))       # 99.9th percentile
    ink = (depth > max(35.0, 0.4 * contrast)).astype(np.uint8) * 255
    # axis-aligned strokes by openings, strokes at other angles (a frame the grid is
    # tilted against) by a Hough transform; at full size: at half size the one-pixel gaps
    # between small figures close, and a row of them is taken for a stroke
    n = max(3, long_px)
    upright = cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((n, 1), np.uint8))
    level = cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((1, n), np.uint8))
    segs = cv2.HoughLinesP(cv2.subtract(ink, upright | level), 1, np.pi / 180, int(0.7 * n),
                           minLineLength=n, maxLineGap=2)
    for x0, y0, x1, y1 in (segs.reshape(-1, 4) if segs is not None else []):
        cv2.line(level if abs(x1 - x0) >= abs(y1 - y0) else upright,
                 (int(x0), int(y0)), (int(x1), int(y1)), 255, 2)
    # each kind of stroke a pixel wider each side
    level, upright = (cv2.dilate(m, np.ones((3, 3), np.uint8)) for m in (level, upright))
    lines = level | upright
    kept = cv2.subtract(ink, lines)
    mended = _mended(kept, ink, level, upright, max(5, long_px // 4)) if mend \
        else np.zeros_like(kept)
    dark = cv2.convertScaleAbs(depth, alpha=255.0 / max(contrast, 1.0))
    dark[(lines > 0) & (mended == 0)] = 0
    return kept | mended, dark


def _mended(kept: np.ndarray, ink: np.ndarray, level: np.ndarray, upright: np.ndarray,
            reach: int) -> np.ndarray:
    """The ink under removed straight strokes that carries a figure's stroke across them (a
    frame line or a tick drawn through a number cuts its figures in two): under a level
    stroke (``level``: where level strokes were removed), ink joined to figure ink
    (``kept``) both above and below by unbroken ink (8-connected, one row at a time), at
    most ``reach`` pixels each way; under an upright one, the same left and right."""
    out = np.zeros_like(kept)
    for band, axis, steps in ((level, 0, _ROW_STEPS), (upright, 1, _COLUMN_STEPS)):
        under = cv2.bitwise_and(band, ink)
        # only the rows (columns) the strokes cross, a row more each side, run by run
        on = np.flatnonzero(under.any(axis=1 - axis))
        if not len(on):
            continue
        breaks = np.flatnonzero(np.diff(on) > 1)
        for a, b in zip(on[np.r_[0, breaks + 1]], on[np.r_[breaks, len(on) - 1]], strict=True):
            part = (slice(max(0, a - 1), b + 2), slice(None))[::1 - 2 * axis]
            out[part] |= _crossing(np.ascontiguousarray(kept[part]),
                                   np.ascontiguousarray(under[part]), steps, reach)
    return out


def _crossing(kept: np.ndarray, under: np.ndarray, steps: tuple[np.ndarray, np.ndarray],
              reach: int) -> np.ndarray:
    """The pixels of ``under`` joined to ``kept`` from both sides (``steps``: one step
    each way), at most ``reach`` steps."""
    both = under
    for step in steps:
        reached = kept
        for _ in range(reach):
            grown = cv2.bitwise_or(reached, cv2.bitwise_and(cv2.dilate(reached, step), under))
            if cv2.countNonZero(grown) == cv2.countNonZero(reached):
                break
            reached = grown
        both = cv2.bitwise_and(both, reached)
    return both


#: One step of unbroken ink away from a level stroke's side (down, then up: the row
#: before, a column either way), and from an upright one's (right, then left).
_ROW_STEPS = (np.array([[1, 1, 1], [0, 1, 0], [0, 0, 0]], np.uint8),
              np.array([[0, 0, 0], [0, 1, 0], [1, 1, 1]], np.uint8))
_COLUMN_STEPS = tuple(np.ascontiguousarray(k.T) for k in _ROW_STEPS)


def find_words(ink: np.ndarray, min_h: int, max_h: int, join: float = 0.45
               ) -> list[tuple[np.ndarray, int, np.ndarray]]:
    """Character-sized components grouped into words: (box x0, y0, x1, y1, characters, box
    of the full-height figures).

    Characters closer than ``join`` times the typical character size (about half) join one
    word, then words on one text line closer than their height (digits grouped by three,
    ``6 862 000``)."""
    n, lab, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    size = np.maximum(stats[:, 2], stats[:, 3])
    keep = ((size >= min_h) & (size <= max_h)
            & (stats[:, cv2.CC_STAT_AREA] >= 0.08 * size.astype(np.float64) ** 1.5))
    keep[0] = False
    if not keep.any():
        return []
    chars = (keep.astype(np.uint8) * 255)[lab]
    gap = max(2, round(join * float(np.median(size[keep]))))
    joined = cv2.dilate(chars, np.ones((gap, gap), np.uint8))
    m, wlab, wstats, _ = cv2.connectedComponentsWithStats(joined, connectivity=8)
    # characters of each word: the distinct (word, character) label pairs of the ink
    on = chars > 0
    pairs = np.unique(wlab[on].astype(np.int64) * n + lab[on])
    counts = np.bincount(pairs // n, minlength=m)[1:].tolist()
    half = gap // 2
    x, y, w, h = (wstats[1:, i].astype(np.float64) for i in range(4))
    boxes = np.stack([x + half, y + half, x + w - half, y + h - half], axis=1)
    return _merge_aligned(boxes.reshape(-1, 4), counts)


def _merge_aligned(box: np.ndarray, counts: list[int]
                   ) -> list[tuple[np.ndarray, int, np.ndarray]]:
    """Join words of the same height on the same text line separated by less than their
    height (the space of grouped digits, ``6 862 000``), along x or along y; small raised
    trailing figures join the word they follow. Returns (box, characters, box of the
    full-height figures) per word."""
    n = len(box)
    if n == 0:
        return []
    w, h = box[:, 2] - box[:, 0], box[:, 3] - box[:, 1]
    joined = np.zeros((n, n), bool)
    for axis in (0, 1):                       # text along x, then along y
        thick = h if axis == 0 else w         # the text's height
        lo, hi = box[:, axis], box[:, axis + 2]
        plo, phi = box[:, 1 - axis], box[:, 3 - axis]
        gap = np.maximum(lo[None, :] - hi[:, None], lo[:, None] - hi[None, :])
        overlap = np.minimum(phi[:, None], phi[None, :]) - np.maximum(plo[:, None], plo[None, :])
        t = np.minimum(thick[:, None], thick[None, :])
        big = np.maximum(thick[:, None], thick[None, :])
        # same height, or small raised figures (652 and a superscript 000) level with the
        # top of the big ones (or the bottom, the word read upside down)
        level = np.minimum(np.abs(plo[:, None] - plo[None, :]),
                           np.abs(phi[:, None] - phi[None, :]))
        # a word of a few figures along this axis, not a stroke nor a word across it
        short = (hi - lo >= thick) & (hi - lo <= 5 * thick)
        raised = (t >= 0.4 * big) & (t <= 0.75 * big) & (level < 0.2 * big) \
            & short[:, None] & short[None, :]
        similar = (big < 1.35 * t) | raised
        joined |= similar & (overlap > 0.6 * t) & (gap < 1.0 * t) & (gap > -0.5 * t)
    group, order, starts = linked_groups(joined)
    whole = group_boxes(box, order, starts)
    along_x = (whole[:, 2] - whole[:, 0] >= whole[:, 3] - whole[:, 1])[group]
    # the figures at full height, without small raised ones (read as the value in
    # thousands: 652 of 652 and a superscript 000)
    thick = np.where(along_x, h, w)
    top = np.maximum.reduceat(thick[order], starts)[group]
    full = thick >= top - 0.25 * np.abs(top)
    main = group_boxes(np.where(full[:, None], box, [np.inf, np.inf, -np.inf, -np.inf]),
                       order, starts)
    chars = np.bincount(group, weights=np.asarray(counts, np.float64), minlength=len(starts))
    return [(whole[i], int(chars[i]), main[i]) for i in range(len(starts))]


def linked_groups(linked: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The groups of items linked directly or through others.

    Args:
        linked: ``(n, n)`` bool, item i linked to item j (either half is enough).

    Returns:
        Each item's group (groups numbered in the order of their first item), the items
        ordered by group (in their own order within one), and where each group starts in
        that order (for ``ufunc.reduceat``).
    """
    k, group = connected_components(csr_matrix(linked), directed=False)
    order = np.argsort(group, kind="stable")
    return group, order, np.searchsorted(group[order], np.arange(k))


def group_boxes(box: np.ndarray, order: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """``(groups, 4)`` boxes (x0, y0, x1, y1) around the ``(n, 4)`` boxes of each group of
    :func:`linked_groups`."""
    b = box[order]
    return np.stack([np.minimum.reduceat(b[:, 0], starts), np.minimum.reduceat(b[:, 1], starts),
                     np.maximum.reduceat(b[:, 2], starts), np.maximum.reduceat(b[:, 3], starts)],
                    axis=1)


def strip_box_in_image(box: np.ndarray, m: np.ndarray, reduce: int
                       ) -> tuple[int, int, int, int]:
    """The box (x0, y0, x1, y1) of the full-resolution image around a box of a strip, given
    the strip's 2x3 map to the sheet as read (:func:`cut_strip`) and the sheet's reduction."""
    x0, y0, x1, y1 = (int(v) for v in box)
    corners = np.array([[x0, y0, 1], [x1, y0, 1], [x1, y1, 1], [x0, y1, 1]],
                       np.float64) @ m.T * reduce
    return (int(corners[:, 0].min()), int(corners[:, 1].min()),
            int(np.ceil(corners[:, 0].max())), int(np.ceil(corners[:, 1].max())))


def map_strips(work: Callable[[T], list[W]], tasks: list[T]) -> list[W]:
    """``work(task)`` of every task, :data:`STRIP_THREADS` at a time, their lists joined in
    the tasks' order (OpenCV works without Python's lock: strips cut and searched at once)."""
    with ThreadPoolExecutor(STRIP_THREADS) as pool:
        return [item for found in pool.map(work, tasks) for item in found]


def box_iou(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def word_emptiness(words: list[tuple[np.ndarray, int, np.ndarray]], ink: np.ndarray,
                   width: int, reach: float = 1.0, ring: float = 1.0
                   ) -> list[tuple[float, np.ndarray, int, np.ndarray]]:
    """(emptiness, box, characters, box of the full-height figures) of the words on the
    line (the strip's centre column, or within ``reach`` times their height of it) that
    are more than a lone character: the share of ink in a ring ``ring`` times their
    height wide around them (0: blank paper)."""
    integral = cv2.integral((ink > 0).astype(np.uint8))
    h, w = ink.shape
    scored = []
    for box, comps, main in words:  # comps: number of characters
        x0, y0, x1, y1 = box
        size = max(x1 - x0, y1 - y0)
        short = min(x1 - x0, y1 - y0)
        if short < 0:
            continue       # an inverted box (a thin stroke less its joining gap)
        if not (x0 - reach * short <= width / 2 <= x1 + reach * short):
            continue       # not on the line
        if comps < 2 and size < 1.5 * short:
            continue       # a lone character: too little to read
        pad = int(ring * short)
        a0, b0 = max(0, int(x0) - pad), max(0, int(y0) - pad)
        a1, b1 = min(w, int(x1) + pad), min(h, int(y1) + pad)
        around = (integral[b1, a1] - integral[b0, a1] - integral[b1, a0] + integral[b0, a0])
        inner = (integral[int(y1), int(x1)] - integral[int(y0), int(x1)]
                 - integral[int(y1), int(x0)] + integral[int(y0), int(x0)])
        area = max(1, (a1 - a0) * (b1 - b0) - (x1 - x0) * (y1 - y0))
        scored.append(((around - inner) / area, box, comps, main))
    return scored
