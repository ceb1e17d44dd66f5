"""Ink map of a sheet: dark line work, without red printing, text and long thin lines.

Arrays are ``(H, W)``, pixel x right and y down. The black-hat of the red channel measures
how much darker than the surrounding paper a pixel is; red ink is bright in the red channel
and is also painted over with the local paper tone first, so red labels and boundaries are
not line work.
"""

from __future__ import annotations

import cv2
import numpy as np

from .settings import BlockSettings


def disk(radius: int) -> np.ndarray:
    """Elliptic structuring element of the given radius (pixels)."""
    r = max(1, int(radius))
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))


def ink_strength(rgb: np.ndarray, s: BlockSettings) -> np.ndarray:
    """Black-hat of the red channel, red ink removed: ``(H, W) uint8``, 0 on paper.

    Red strokes (and their anti-aliased rims, 2 px) are painted with the local paper tone;
    dark neutral pixels (black line work printed over or beside the red) are kept.
    """
    red = np.ascontiguousarray(rgb[:, :, 0])
    other = np.maximum(rgb[:, :, 1], rgb[:, :, 2])
    redness = cv2.subtract(red, other)
    del other
    reddish = redness > s.red_margin
    se = disk(s.px(s.ink_radius))
    if reddish.any():
        reddish = cv2.dilate(reddish.astype(np.uint8), disk(2)) > 0
        black = (redness <= s.red_margin // 2) & (red < s.black_level)
        reddish &= ~black
        del black
        paper = cv2.dilate(red, se)
        red[reddish] = paper[reddish]
        del paper
    del reddish, redness
    paper = cv2.dilate(red, se)
    cv2.subtract(paper, red, dst=paper)
    return paper


def drop_small_components(ink: np.ndarray, s: BlockSettings) -> np.ndarray:
    """Remove 8-connected ink components that are small and short (letters, dots, dashes)."""
    n, lab, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8,
                                                        ltype=cv2.CV_32S)
    extent = np.maximum(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT])
    keep = (stats[:, cv2.CC_STAT_AREA] >= s.area(s.letter_area)) | (
        extent >= s.px(s.letter_extent))
    keep[0] = False
    return keep.astype(np.uint8)[lab]


def _line_chains(profile: np.ndarray, contrast: float, valid: np.ndarray,
                 coverage: float, max_jump: int = 8) -> list[np.ndarray]:
    """Chains of peaks ``(strip, position)`` running across most strips of a profile."""
    n_pos, n_strips = profile.shape
    local_max = cv2.dilate(profile, np.ones((7, 1), np.float32))
    peaks = [np.flatnonzero((profile[:, k] > contrast) & (profile[:, k] >= local_max[:, k]))
             for k in range(n_strips)]
    used = [np.zeros(len(p), bool) for p in peaks]
    need = coverage * max(1, int(valid.sum()))
    chains = []
    for k0 in range(n_strips):
        for j0 in range(len(peaks[k0])):
            if used[k0][j0]:
                continue
            used[k0][j0] = True
            chain = [(k0, peaks[k0][j0])]
            pos, k, miss = peaks[k0][j0], k0, 0
            while k + 1 < n_strips and miss <= 2:
                k += 1
                cand = peaks[k]
                if len(cand):
                    d = np.abs(cand - pos)
                    j = int(d.argmin())
                    if d[j] <= max_jump * (1 + miss) and not used[k][j]:
                        used[k][j] = True
                        chain.append((k, cand[j]))
                        pos, miss = cand[j], 0
                        continue
                miss += 1
            if len(chain) >= need:
                chains.append(np.array(chain))
    return chains


def long_thin_lines(strength: np.ndarray, mask: np.ndarray,
                    s: BlockSettings) -> tuple[np.ndarray, np.ndarray]:
    """Pixels of long, thin, roughly axis-parallel lines crossing most of the map.

    Graticule lines and folds cross streets and blocks alike, so they are not boundaries.
    The sheet is cut into strips; a line is a chain of narrow profile peaks, one per strip,
    that crosses at least ``long_line_coverage`` of them. Only pixels lighter than
    ``long_line_dark`` are returned, so darker line work crossing the line stays.

    Returns:
        ``(horizontal, vertical)`` bool masks of the near-horizontal and near-vertical lines.
    """
    height, width = strength.shape
    result = []
    strip = s.px(s.long_line_strip)
    half = s.px(s.long_line_half_width)
    for axis in (0, 1):
        out = np.zeros((height, width), bool)
        length = width if axis == 0 else height
        n_strips = max(1, length // strip)
        edges = np.linspace(0, length, n_strips + 1).astype(int)
        cols = []
        valid = np.zeros(n_strips, bool)
        for k in range(n_strips):
            sl = (slice(None), slice(edges[k], edges[k + 1])) if axis == 0 else \
                (slice(edges[k], edges[k + 1]), slice(None))
            cols.append(cv2.reduce(strength[sl], 1 - axis, cv2.REDUCE_AVG,
                                   dtype=cv2.CV_32F).ravel())
            valid[k] = bool(mask[sl].any())
        profile = np.stack(cols, axis=1)
        profile -= cv2.blur(profile, (1, 41))
        for chain in _line_chains(profile, s.long_line_contrast, valid, s.long_line_coverage):
            centres = (edges[chain[:, 0]] + edges[chain[:, 0] + 1]) / 2.0
            t = np.arange(edges[chain[0, 0]], edges[chain[-1, 0] + 1])
            pos = np.round(np.interp(t, centres, chain[:, 1])).astype(int)
            pos = np.clip(pos, 0, (height if axis == 0 else width) - 1)
            along = strength[pos, t] if axis == 0 else strength[t, pos]
            if np.median(along) >= s.long_line_dark:
                continue  # a dark line: straight line work (a long outline), not a grid line
            for d in range(-half, half + 1):
                q = np.clip(pos + d, 0, (height if axis == 0 else width) - 1)
                if axis == 0:
                    out[q, t] = True
                else:
                    out[t, q] = True
        result.append(out & (strength < s.long_line_dark))
    return result[0], result[1]


def erase_long_lines(ink: np.ndarray, horizontal: np.ndarray, vertical: np.ndarray,
                     s: BlockSettings) -> np.ndarray:
    """Erase the lines from ``ink`` but bridge line work crossing them: an erased pixel
    comes back when a closing across its line (vertical for horizontal lines) fills it."""
    lines = horizontal | vertical
    if not lines.any():
        return ink
    across = 2 * s.px(s.long_line_half_width) + 3
    erased = ink.copy()
    erased[lines] = 0
    bridged = np.zeros_like(ink)
    for band, kernel in ((horizontal, np.ones((across, 1), np.uint8)),
                         (vertical, np.ones((1, across), np.uint8))):
        if band.any():
            closed = cv2.morphologyEx(erased, cv2.MORPH_CLOSE, kernel)
            bridged[band & (closed > 0)] = 1
    erased[(bridged > 0) & (ink > 0)] = 1
    return erased


def ink_map(rgb: np.ndarray, mask: np.ndarray, s: BlockSettings) -> tuple[np.ndarray, np.ndarray]:
    """``(ink uint8 0/1, strength uint8)``: line work inside ``mask`` without text."""
    strength = ink_strength(rgb, s)
    ink = ((strength > s.ink_threshold) & mask).astype(np.uint8)
    ink = drop_small_components(ink, s)
    if s.remove_long_lines:
        ink = erase_long_lines(ink, *long_thin_lines(strength, mask, s), s)
    return ink, strength
