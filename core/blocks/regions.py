"""Regions enclosed by the line network: closed shapes, open space (streets), blocks.

Label images are ``(H, W) int32``: 0 on lines, outside the map and on dropped regions,
1..N on regions, each a 4-connected component (neighbours are separated by at least one
pixel of 0).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import cv2
import numpy as np
from scipy import ndimage as ndi

from .ink import disk
from .settings import BlockSettings
from .thinning import nonzero_yx


def partition(lines: np.ndarray, mask: np.ndarray, edge_seal: int = 0) -> tuple[np.ndarray, int]:
    """4-connected components of the map not on a line: ``(labels int32, count + 1)``.

    The map is first shrunk by ``edge_seal`` px, so an outline stopping just short of the
    map's edge still closes its block there (the free strip along the edge would join it
    to the street).
    """
    if edge_seal > 0:
        mask = cv2.erode(mask.astype(np.uint8), disk(edge_seal),
                         borderType=cv2.BORDER_CONSTANT, borderValue=0) > 0
    free = ((lines == 0) & mask).astype(np.uint8)
    n, labels = cv2.connectedComponents(free, connectivity=4, ltype=cv2.CV_32S)
    return labels, n


def region_widths(labels: np.ndarray, ids: np.ndarray,
                  half_widths: bool | np.ndarray = True,
                  objects: list | None = None,
                  lines: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(inscribed radius, typical half-width)`` of each region of ``ids`` (pixels).

    The inscribed radius is the largest distance to the region's edge; the typical
    half-width is the median of that distance along the region's medial ridge (pixels that
    are local maxima of the distance). A street network with a block leaked into it keeps
    the half-width of its streets, while its inscribed radius is the block's. Without
    ``half_widths`` the typical half-width is not computed (the radius is returned twice);
    it may also be a bool array saying for which of ``ids`` it is computed. ``objects``:
    ``scipy.ndimage.find_objects(labels)`` if already known. ``lines``: the line network
    (``(H, W)``, non-zero on lines) the regions were cut by; its loose pieces inside a
    region (line pixels next to that region and no other) then count as the region's, so a
    stray stroke across a block does not make it narrow.
    """
    need = np.broadcast_to(np.asarray(half_widths, bool), (len(ids),))
    if objects is None:
        objects = ndi.find_objects(labels)
    radius = np.zeros(len(ids), np.float32)
    half_width = np.zeros(len(ids), np.float32)
    square = np.ones((3, 3), np.uint8)
    height, width = labels.shape
    for k, i in enumerate(ids):
        sl = objects[i - 1]
        if sl is None:
            continue
        if lines is None:
            region = np.pad(labels[sl] == i, 1).astype(np.uint8)
        else:               # one pixel more on each side, to see the neighbours there
            y0, x0 = max(sl[0].start - 1, 0), max(sl[1].start - 1, 0)
            y1, x1 = min(sl[0].stop + 1, height), min(sl[1].stop + 1, width)
            sub = labels[y0:y1, x0:x1]
            inside = (sub == i).astype(np.uint8)
            others = ((sub != i) & (sub != 0)).astype(np.uint8)
            loose = ((lines[y0:y1, x0:x1] > 0) & (cv2.dilate(inside, square) > 0)
                     & (cv2.dilate(others, square) == 0))
            region = np.pad(inside | loose, 1).astype(np.uint8)
        dist = cv2.distanceTransform(region, cv2.DIST_L2, 3)
        radius[k] = float(dist.max())
        if not need[k]:
            half_width[k] = radius[k]
            continue
        ridge = (dist >= cv2.dilate(dist, square)) & (dist > 0)
        half_width[k] = float(np.median(dist[ridge])) if ridge.any() else radius[k]
    return radius, half_width


def unique_pairs(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Distinct rows of ``(lo, hi)`` (non-negative int32 labels): ``(K, 2) int64``, sorted.

    Sorted as one int64 key per pair, much faster than ``np.unique(axis=0)``."""
    key = np.unique(lo.astype(np.int64) << 32 | hi.astype(np.int64))
    return np.stack([key >> 32, key & 0xFFFFFFFF], axis=1)


def adjacency(labels: np.ndarray, lines: np.ndarray) -> np.ndarray:
    """Pairs ``(a, b)``, a < b, of regions on both sides of a line pixel: ``(K, 2) int64``.

    For each line pixel, the smallest and the largest region label among its 8 neighbours.
    """
    height, width = labels.shape
    ys, xs = nonzero_yx(lines)
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
    return unique_pairs(lo[on], hi[on])


def reach_adjacency(labels: np.ndarray, big: np.ndarray, reach: int) -> np.ndarray:
    """Pairs ``(a, b)``, a < b, of ``big`` regions at most about ``2 * reach`` px apart
    across lines and small regions only (the tangle a street name leaves in a street):
    ``(K, 2) int64``. Computed on every second pixel (distances within 2 px)."""
    keep = big.copy()
    keep[0] = False
    lab = np.where(keep[labels[::2, ::2]], labels[::2, ::2], 0).astype(np.float32)
    gap = lab == 0
    size = 2 * max(1, reach // 2) + 1
    kernel = np.ones((size, size), np.uint8)
    hi = cv2.dilate(lab, kernel)
    lab[gap] = np.float32(3e38)
    lo = cv2.erode(lab, kernel)
    del lab
    on = gap & (hi > 0) & (lo < 3e38) & (hi != lo)
    if not on.any():
        return np.zeros((0, 2), np.int64)
    return unique_pairs(lo[on].astype(np.int32), hi[on].astype(np.int32))


def region_areas(labels: np.ndarray, n: int) -> np.ndarray:
    """Pixel count of each label 0..n-1: ``(n,) int64``."""
    return np.bincount(labels.ravel(), minlength=n)


def _corridor_pairs(labels: np.ndarray, lines: np.ndarray, area: np.ndarray,
                    s: BlockSettings) -> np.ndarray:
    """Neighbouring regions for corridor growth: across a line, or (``corridor_reach``)
    across a tangle of lines and small regions."""
    pairs = adjacency(labels, lines)
    if s.corridor_reach > 0:
        both = np.concatenate([pairs, reach_adjacency(
            labels, area >= s.area(s.corridor_min_area), s.px(s.corridor_reach))])
        pairs = unique_pairs(both[:, 0], both[:, 1])
    return pairs


def open_space(labels: np.ndarray, n: int, lines: np.ndarray, map_area: int,
               s: BlockSettings, area: np.ndarray | None = None) -> np.ndarray:
    """Per label, True for open space (the street network, squares, the river).

    Open space is made of large regions shaped like a network or a corridor: area over
    squared inscribed radius above ``network_ratio`` (a compact block is below 10, the
    street network of a sheet in the hundreds), at least ``network_min_area`` pixels, or
    larger than ``street_fraction`` of the map with half that ratio. From them, open space
    grows into neighbouring corridors (ratio above ``corridor_ratio``, inscribed radius at
    most ``corridor_radius``): street pieces cut off by text or rails, strips of water
    between water lines. ``area``: :func:`region_areas` if already known.
    """
    area = (region_areas(labels, n) if area is None else area).copy()
    area[0] = 0
    street = np.zeros(n, bool)
    candidates = np.flatnonzero(area >= s.area(s.corridor_min_area))
    if len(candidates) == 0:
        return street
    with ThreadPoolExecutor(max_workers=1) as pool:
        # the neighbours (needed for corridor growth only) while the radii are measured
        pairs_job = (pool.submit(_corridor_pairs, labels, lines, area, s)
                     if np.isfinite(s.corridor_ratio) else None)
        objects = ndi.find_objects(labels)
        radius = region_widths(labels, candidates, False, objects, lines)[0]
        pairs = pairs_job.result() if pairs_job is not None else None
    ratio = area[candidates] / np.maximum(radius, 1.0) ** 2
    # the spread test only matters for large regions not already networks by their ratio
    half_width = radius.copy()
    if np.isfinite(s.network_spread):
        need = (area[candidates] >= s.area(s.network_min_area)) & (ratio <= s.network_ratio)
        if need.any():
            half_width[need] = region_widths(labels, candidates[need], True, objects,
                                             lines)[1]
    spread = area[candidates] / np.maximum(half_width, 1.0) ** 2
    network = (((area[candidates] >= s.area(s.network_min_area))
                & ((ratio > s.network_ratio) | (spread > s.network_spread)))
               | ((area[candidates] > s.street_fraction * map_area)
                  & (ratio > s.network_ratio / 2)))
    street[candidates[network]] = True
    corridor = np.zeros(n, bool)
    corridor[candidates[(ratio > s.corridor_ratio)
                        & (radius <= s.corridor_radius * s.scale)]] = True
    if pairs is None or not street.any() or not corridor.any():
        return street
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


def neighbour_count_per_label(a: np.ndarray, b: np.ndarray, n: int) -> np.ndarray:
    """For each label 0..n-1 of ``a``, the number of distinct nonzero labels of ``b``
    4-adjacent to it (where ``a`` is nonzero and ``b`` is zero and vice versa)."""
    keys = []
    for sa, sb in (((slice(None), slice(1, None)), (slice(None), slice(None, -1))),
                   ((slice(None), slice(None, -1)), (slice(None), slice(1, None))),
                   ((slice(1, None), slice(None)), (slice(None, -1), slice(None))),
                   ((slice(None, -1), slice(None)), (slice(1, None), slice(None)))):
        la, lb = a[sa], b[sb]
        touch = (la > 0) & (lb > 0)
        keys.append(la[touch].astype(np.int64) * (int(b.max()) + 1) + lb[touch])
    pairs = np.unique(np.concatenate(keys))
    return np.bincount(pairs // (int(b.max()) + 1), minlength=n)[:n]


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
    """Closed shapes: regions that are not open space, at least ``min_shape_area`` large and
    holding a disk of radius ``min_shape_radius`` (thinner strips lie between the water
    lines of a river or the parallel lines of a railway, not inside a building)."""
    keep = ~street
    keep[0] = False
    if s.min_shape_radius > 0:
        inside = keep[labels].astype(np.uint8)
        depth = cv2.distanceTransform(inside, cv2.DIST_L2, 3)
        del inside
        deep = depth >= s.min_shape_radius * s.scale
        del depth
        keep &= np.bincount(labels[deep], minlength=len(keep)) > 0
    return relabel(np.where(keep[labels], labels, 0), s.area(s.min_shape_area))


def blocks(labels: np.ndarray, street: np.ndarray, mask: np.ndarray,
           s: BlockSettings, area: np.ndarray | None = None) -> tuple[np.ndarray, int]:
    """Blocks: unions of neighbouring closed shapes, with the walls between them and the
    small regions they enclose, kept ``street_margin`` away from open space.

    Regions smaller than ``min_shape_area`` that touch open space (pieces of street cut by
    text, dashed lines or rails) are not part of any block, so they do not join the blocks
    on both sides of a street. ``area``: :func:`region_areas` if already known.
    """
    if area is None:
        area = region_areas(labels, len(street))
    keep = ~street & (area >= s.area(s.min_shape_area))
    keep[0] = False
    inside = keep.astype(np.uint8)[labels]
    inside = cv2.morphologyEx(inside, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8),
                              iterations=2)
    space = street[labels]
    inside[space] = 0
    # enclosed holes: components of the rest touching neither open space nor the map edge,
    # and bordering a single block (a hole between two blocks is a street sealed by text)
    n, rest = cv2.connectedComponents((inside == 0).astype(np.uint8), connectivity=4,
                                      ltype=cv2.CV_32S)
    open_ids = np.bincount(rest[space | ~mask], minlength=n) > 0
    _, parts = cv2.connectedComponents(inside, connectivity=4, ltype=cv2.CV_32S)
    open_ids |= neighbour_count_per_label(rest, parts, n) > 1
    del parts
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
