"""Blocks from the block-interior network (``BlockSettings.block_net``).

``net_blocks``: the blocks are the map pixels the network (``net.py``) gives a block
probability above ``net_threshold``, with the gaps a graticule line or a fold cuts through
them closed (the network sees them as thin streets), closed with a disk of radius
``net_join`` (parts a wall or a bold inner line splits, with no street between them, are
one block), opened with a disk of radius ``net_open`` (thin bridges across narrow streets
and slivers at the map's edge go), enclosed holes up to ``net_fill_holes`` filled (a
courtyard or garden the network calls open space lies inside its block's outline),
components under ``min_block_area`` dropped.
"""

from __future__ import annotations

import cv2
import numpy as np

from .ink import LongLine, band_pixels, disk
from .regions import relabel
from .settings import BlockSettings


def bridge_long_lines(inside: np.ndarray, lines: list[LongLine], s: BlockSettings) -> None:
    """Close, in place, the gaps a long thin line (graticule, fold: not a boundary) cuts
    through ``inside`` (uint8 0/1): a closing across the line, at most ``2 * net_bridge + 1``
    px long, within ``net_bridge`` px of it."""
    half = s.px(s.net_bridge)
    for axis in (0, 1):
        band = np.zeros(inside.shape, bool)
        for line in lines:
            if line.axis == axis:
                band[band_pixels(line, half, inside.shape)] = True
        if not band.any():
            continue
        kernel = np.ones((2 * half + 1, 1) if axis == 0 else (1, 2 * half + 1), np.uint8)
        closed = cv2.morphologyEx(inside, cv2.MORPH_CLOSE, kernel)
        inside[band] = closed[band]


def fill_small_holes(inside: np.ndarray, max_area: int) -> np.ndarray:
    """``inside`` (uint8 0/1) with its holes (4-connected regions of 0 not reaching the
    image's edge) of at most ``max_area`` pixels set to 1."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats(1 - inside, connectivity=4,
                                                           ltype=cv2.CV_32S)
    h, w = inside.shape
    x, y = stats[:, cv2.CC_STAT_LEFT], stats[:, cv2.CC_STAT_TOP]
    enclosed = ((x > 0) & (y > 0) & (x + stats[:, cv2.CC_STAT_WIDTH] < w)
                & (y + stats[:, cv2.CC_STAT_HEIGHT] < h))
    fill = enclosed & (stats[:, cv2.CC_STAT_AREA] <= max_area)
    fill[0] = False
    return (inside | fill[labels]).astype(np.uint8)


def net_blocks(prob: np.ndarray, mask: np.ndarray, s: BlockSettings,
               long_lines: list[LongLine] | None = None) -> tuple[np.ndarray, int]:
    """Block labels ``(int32, count)`` from the probability ``prob`` (uint8 0-255, full
    resolution) inside the map-area ``mask``; the gaps cut by ``long_lines`` (see
    :func:`core.blocks.ink.long_thin_lines`) are bridged first."""
    map_u8 = mask.astype(np.uint8)
    inside = (prob > round(255 * s.net_threshold)).astype(np.uint8) & map_u8
    if long_lines and s.net_bridge > 0:
        bridge_long_lines(inside, long_lines, s)
        inside &= map_u8
    if s.net_join > 0:
        inside = cv2.morphologyEx(inside, cv2.MORPH_CLOSE, disk(s.px(s.net_join))) & map_u8
    if s.net_open > 0:
        inside = cv2.morphologyEx(inside, cv2.MORPH_OPEN, disk(s.px(s.net_open)))
    if s.net_fill_holes > 0:
        inside = fill_small_holes(inside, s.area(s.net_fill_holes)) & map_u8
    return relabel(inside, s.area(s.min_block_area))

