"""Ink map of a sheet: dark line work, without red printing, text and long thin lines.

Arrays are ``(H, W)``, pixel x right and y down. The black-hat of the red channel measures
how much darker than the surrounding paper a pixel is; red ink is bright in the red channel
and is also painted over with the local paper tone first, so red labels and boundaries are
not line work.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .lettering import segment_kernel
from .settings import BlockSettings


def disk(radius: int) -> np.ndarray:
    """Elliptic structuring element of the given radius (pixels)."""
    r = max(1, int(radius))
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))


def ink_strength(rgb: np.ndarray, s: BlockSettings) -> np.ndarray:
    """Black-hat of the red channel, red ink removed: ``(H, W) uint8``, 0 on paper.

    Red strokes (and their anti-aliased rims, 2 px) are painted with the local paper tone;
    pixels dark in the red channel (black line work printed over or under the red, whose
    hue the JPEG chroma smears towards red) are kept: red ink is bright in that channel.
    """
    red = np.ascontiguousarray(rgb[:, :, 0])
    other = np.maximum(rgb[:, :, 1], rgb[:, :, 2])
    redness = cv2.subtract(red, other)
    del other
    reddish = redness > s.red_margin
    se = disk(s.px(s.ink_radius))
    if reddish.any():
        reddish = cv2.dilate(reddish.astype(np.uint8), disk(2)) > 0
        reddish &= red >= s.black_level
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


@dataclass
class LongLine:
    """A long thin line across the map: along ``axis`` (0: near-horizontal, 1:
    near-vertical), at ``pos[i]`` across at ``t[i]`` along (pixels); ``dark`` when it is as
    dark as the line work, so it cannot be told from crossing lines by its tone."""

    axis: int
    t: np.ndarray
    pos: np.ndarray
    dark: bool


def long_thin_lines(strength: np.ndarray, mask: np.ndarray, s: BlockSettings) -> list[LongLine]:
    """Long, thin, roughly axis-parallel lines crossing most of the map (graticule, folds).

    Graticule lines and folds cross streets and blocks alike, so they are not boundaries.
    The sheet is cut into strips; a line is a chain of narrow profile peaks, one per strip,
    that crosses at least ``long_line_coverage`` of them. A line darker than
    ``long_line_dark`` is left out (a long straight outline, the map frame) unless it
    crosses ``long_line_dark_coverage`` of the strips and line work crosses it
    (``crossing_share`` of at least ``long_line_crossing``).
    """
    height, width = strength.shape
    found = []
    strip = s.px(s.long_line_strip)
    half = s.px(s.long_line_half_width)
    for axis in (0, 1):
        length = width if axis == 0 else height
        across = height if axis == 0 else width
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
            pos = np.clip(np.round(np.interp(t, centres, chain[:, 1])).astype(int), 0,
                          across - 1)
            along = strength[pos, t] if axis == 0 else strength[t, pos]
            dark = bool(np.median(along) >= s.long_line_dark)
            if dark and (len(chain) < s.long_line_dark_coverage * valid.sum()
                         or crossing_share(strength, pos, t, axis, half + 3,
                                           s.ink_threshold) < s.long_line_crossing):
                continue  # short of the map's extent or met from one side only: an outline
            found.append(LongLine(axis, t, pos, dark))
    return found


def crossing_share(strength: np.ndarray, pos: np.ndarray, t: np.ndarray, axis: int,
                   offset: int, threshold: float) -> float:
    """Share of the ink beside a line (``offset`` px to either side) found on both sides
    at once: line work crossing it. A graticule line crosses outlines and hatching; the
    outline of a street has the block's walls on one side and the street on the other."""
    across = strength.shape[0] if axis == 0 else strength.shape[1]
    sides = []
    for d in (-offset, offset):
        q = np.clip(pos + d, 0, across - 1)
        sides.append((strength[q, t] if axis == 0 else strength[t, q]) > threshold)
    either = int(np.count_nonzero(sides[0] | sides[1]))
    return int(np.count_nonzero(sides[0] & sides[1])) / max(either, 1)


def band_pixels(line: LongLine, half: int, shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices of the pixels within ``half`` px across of a line."""
    across = shape[0] if line.axis == 0 else shape[1]
    q = np.clip(line.pos[None, :] + np.arange(-half, half + 1)[:, None], 0, across - 1)
    t = np.broadcast_to(line.t[None, :], q.shape)
    return (q.ravel(), t.ravel()) if line.axis == 0 else (t.ravel(), q.ravel())


def erase_long_lines(ink: np.ndarray, strength: np.ndarray, lines: list[LongLine],
                     s: BlockSettings) -> np.ndarray:
    """Erase long thin lines from ``ink`` but keep the line work crossing them.

    A light line loses only its light pixels (the darker line work crossing it stays), then
    pixels that a closing across the line fills come back. In the band of a dark line,
    only the pixels on straight runs of ink in other directions (outlines crossing it)
    stay.
    """
    if not lines:
        return ink
    half = s.px(s.long_line_half_width)
    out = ink.copy()
    light_bands = [np.zeros(ink.shape, bool), np.zeros(ink.shape, bool)]
    for line in lines:
        rows, cols = band_pixels(line, half, ink.shape)
        if not line.dark:
            light = strength[rows, cols] < s.long_line_dark
            light_bands[line.axis][rows[light], cols[light]] = True
            continue
        out[rows, cols] = _crossing_work(ink, line, rows, cols, s)
    across = 2 * half + 3
    for axis, band in enumerate(light_bands):
        if not band.any():
            continue
        erased = out.copy()
        erased[band] = 0
        kernel = np.ones((across, 1) if axis == 0 else (1, across), np.uint8)
        closed = cv2.morphologyEx(erased, cv2.MORPH_CLOSE, kernel)
        erased[band & (closed > 0) & (out > 0)] = 1
        out = erased
    return out


def _crossing_work(ink: np.ndarray, line: LongLine, rows: np.ndarray, cols: np.ndarray,
                   s: BlockSettings) -> np.ndarray:
    """Ink values for the band pixels ``(rows, cols)`` of a dark line: 1 where the ink lies
    on a straight run of ``text_line_length`` px at least 15 degrees off the line."""
    pad = s.px(s.text_line_length)
    y0, y1 = max(0, int(rows.min()) - pad), min(ink.shape[0], int(rows.max()) + pad + 1)
    x0, x1 = max(0, int(cols.min()) - pad), min(ink.shape[1], int(cols.max()) + pad + 1)
    sub = ink[y0:y1, x0:x1]
    kept = np.zeros_like(sub)
    line_angle = 0.0 if line.axis == 0 else np.pi / 2
    for k in range(s.text_angles):
        angle = np.pi * k / s.text_angles
        off = abs((angle - line_angle + np.pi / 2) % np.pi - np.pi / 2)
        if off < np.deg2rad(15):
            continue
        kept |= cv2.morphologyEx(sub, cv2.MORPH_OPEN, segment_kernel(pad, angle))
    return kept[rows - y0, cols - x0]


def ink_map(strength: np.ndarray, mask: np.ndarray, long_lines: list[LongLine],
            s: BlockSettings) -> np.ndarray:
    """Ink (uint8 0/1): line work of :func:`ink_strength` ``strength`` inside ``mask``,
    without small components and without the graticule lines and folds ``long_lines``
    (:func:`long_thin_lines`; erased when ``s.remove_long_lines``)."""
    ink = ((strength > s.ink_threshold) & mask).astype(np.uint8)
    ink = drop_small_components(ink, s)
    if s.remove_long_lines:
        ink = erase_long_lines(ink, strength, long_lines, s)
    return ink
