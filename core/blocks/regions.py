"""Regions enclosed by the line network: closed shapes, open space (streets), blocks.

Label images are ``(H, W) int32``: 0 on lines, outside the map and on dropped regions,
1..N on regions, each a 4-connected component (neighbours are separated by at least one
pixel of 0).
"""

from __future__ import annotations

import cv2
import numpy as np
from scipy import ndimage as ndi

from .ink import disk
from .settings import BlockSettings


def partition(lines: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, int]:
    """4-connected components of the map not on a line: ``(labels int32, count + 1)``."""
    free = ((lines == 0) & mask).astype(np.uint8)
    n, labels = cv2.connectedComponents(free, connectivity=4, ltype=cv2.CV_32S)
    return labels, n


def inscribed_radius(labels: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Radius of the largest disk inside each region of ``ids`` (pixels)."""
    objects = ndi.find_objects(labels)
    out = np.zeros(len(ids), np.float32)
    for k, i in enumerate(ids):
        sl = objects[i - 1]
        if sl is None:
            continue
        region = np.pad(labels[sl] == i, 1).astype(np.uint8)
        out[k] = float(cv2.distanceTransform(region, cv2.DIST_L2, 3).max())
    return out


def adjacency(labels: np.ndarray, lines: np.ndarray) -> np.ndarray:
    """Pairs ``(a, b)``, a < b, of regions on both sides of a line pixel: ``(K, 2) int64``.

    For each line pixel, the smallest and the largest region label among its 8 neighbours.
    """
    height, width = labels.shape
    ys, xs = np.nonzero(lines)
    big = np.iinfo(np.int32).max
    lo = np.full(len(ys), big, np.int32)
    hi = np.zeros(len(ys), np.int32)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            if dy == 0 and dx == 0:
                continue
            v = labels[np.clip(ys + dy, 0, height - 1), np.clip(xs + dx, 0, width - 1)]
            np.maximum(hi, v, out=hi)
            np.minimum(lo, np.where(v > 0, v, big), out=lo)
    on = (hi > 0) & (lo < big) & (hi != lo)
    if not on.any():
        return np.zeros((0, 2), np.int64)
    pairs = np.stack([lo[on], hi[on]], axis=1).astype(np.int64)
    return np.unique(pairs, axis=0)


def open_space(labels: np.ndarray, n: int, lines: np.ndarray, map_area: int,
               s: BlockSettings) -> np.ndarray:
    """Per label, True for open space (the street network, squares, the river).

    Open space is made of large regions shaped like a network or a corridor: area over
    squared inscribed radius above ``network_ratio`` (a compact block is below 10, the
    street network of a sheet in the hundreds), at least ``network_min_area`` pixels, or
    larger than ``street_fraction`` of the map with half that ratio. From them, open space
    grows into neighbouring corridors (ratio above ``corridor_ratio``, inscribed radius at
    most ``corridor_radius``): street pieces cut off by text or rails, strips of water
    between water lines.
    """
    area = np.bincount(labels.ravel(), minlength=n)
    area[0] = 0
    street = np.zeros(n, bool)
    candidates = np.flatnonzero(area >= s.area(s.corridor_min_area))
    if len(candidates) == 0:
        return street
    radius = inscribed_radius(labels, candidates)
    ratio = area[candidates] / np.maximum(radius, 1.0) ** 2
    network = (((area[candidates] >= s.area(s.network_min_area)) & (ratio > s.network_ratio))
               | ((area[candidates] > s.street_fraction * map_area)
                  & (ratio > s.network_ratio / 2)))
    street[candidates[network]] = True
    corridor = np.zeros(n, bool)
    corridor[candidates[(ratio > s.corridor_ratio)
                        & (radius <= s.corridor_radius * s.scale)]] = True
    if not street.any() or not corridor.any():
        return street
    pairs = adjacency(labels, lines)
    pairs = pairs[corridor[pairs[:, 0]] | corridor[pairs[:, 1]]]
    while len(pairs):
        a_in, b_in = street[pairs[:, 0]], street[pairs[:, 1]]
        grow = np.concatenate([pairs[a_in & ~b_in, 1], pairs[b_in & ~a_in, 0]])
        grow = grow[corridor[grow]]
        if len(grow) == 0:
            break
        street[grow] = True
        pairs = pairs[~(street[pairs[:, 0]] & street[pairs[:, 1]])]
    return street


def relabel(binary_or_labels: np.ndarray, min_area: int) -> tuple[np.ndarray, int]:
    """4-connected components of ``> 0`` pixels, those under ``min_area`` dropped, numbered
    1..N in raster order of their first pixel: ``(labels int32, N)``."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats(
        (binary_or_labels > 0).astype(np.uint8), connectivity=4, ltype=cv2.CV_32S)
    keep = stats[:, cv2.CC_STAT_AREA] >= min_area
    keep[0] = False
    lut = np.zeros(n, np.int32)
    lut[keep] = np.arange(1, int(keep.sum()) + 1, dtype=np.int32)
    return lut[labels], int(keep.sum())


def shapes(labels: np.ndarray, street: np.ndarray, s: BlockSettings) -> tuple[np.ndarray, int]:
    """Closed shapes: regions that are not open space, at least ``min_shape_area`` large."""
    keep = ~street
    keep[0] = False
    return relabel(np.where(keep[labels], labels, 0), s.area(s.min_shape_area))


def blocks(labels: np.ndarray, street: np.ndarray, mask: np.ndarray,
           s: BlockSettings) -> tuple[np.ndarray, int]:
    """Blocks: unions of neighbouring closed shapes, with the walls between them and the
    small regions they enclose, kept ``street_margin`` away from open space.

    Regions smaller than ``min_shape_area`` that touch open space (pieces of street cut by
    text, dashed lines or rails) are not part of any block, so they do not join the blocks
    on both sides of a street.
    """
    area = np.bincount(labels.ravel(), minlength=len(street))
    keep = ~street & (area >= s.area(s.min_shape_area))
    keep[0] = False
    inside = keep.astype(np.uint8)[labels]
    inside = cv2.morphologyEx(inside, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8),
                              iterations=2)
    space = street[labels]
    inside[space] = 0
    # enclosed holes: components of the rest touching neither open space nor the map edge
    n, rest = cv2.connectedComponents((inside == 0).astype(np.uint8), connectivity=4,
                                      ltype=cv2.CV_32S)
    open_ids = np.bincount(rest[space | ~mask], minlength=n) > 0
    inside[~open_ids[rest] & mask] = 1
    del rest
    margin = cv2.dilate(space.astype(np.uint8), disk(s.px(s.street_margin)))
    inside[margin > 0] = 0
    inside &= mask.astype(np.uint8)
    return relabel(inside, s.area(s.min_block_area))


def parent_ids(shape_labels: np.ndarray, n_shapes: int, block_labels: np.ndarray,
               n_blocks: int) -> np.ndarray:
    """For shapes 1..N, the id of the block covering most of each (0 when none): ``(N+1,)``."""
    both = (shape_labels > 0) & (block_labels > 0)
    pairs = shape_labels[both].astype(np.int64) * (n_blocks + 1) + block_labels[both]
    counts = np.bincount(pairs, minlength=(n_shapes + 1) * (n_blocks + 1))
    table = counts.reshape(n_shapes + 1, n_blocks + 1)
    parent = table.argmax(axis=1).astype(np.int32)
    parent[table.max(axis=1) == 0] = 0
    parent[0] = 0
    return parent
