"""Hatched areas: buildings drawn as parallel strokes, whose strokes are not boundaries.

Hatching strokes lie 1-3 px apart, much closer than the two outlines of the narrowest
street. A closing that bridges gaps of ``2 * hatch_close`` px turns a hatched building into
a solid blob; an opening of radius ``hatch_open`` then removes the lines (outlines,
walls, text strokes) and keeps only the blobs. A blob is hatching when it is thick (it
holds a disk of radius ``hatch_min_radius``: words along a street do not), only partly
inked (at most ``hatch_max_ink`` of its pixels; bold lettering and solid dark patches are
denser) and made of parallel strokes: at least ``hatch_parallel`` of its ink lies on
straight runs of ``hatch_stroke`` px in one direction. The hatched area is then the
area those strokes cover (a closing of them), so lettering or line work merged into the
blob is left out; its edge is the building's outline. Ink deeper inside than
``hatch_margin`` is erased: the building becomes an empty area closed by its outline.
"""

from __future__ import annotations

import cv2
import numpy as np
from scipy import ndimage as ndi

from .ink import disk
from .lettering import segment_kernel
from .settings import BlockSettings

STROKE_ANGLES = 16  # directions tried for the hatching strokes


def hatch_areas(ink: np.ndarray, mask: np.ndarray, s: BlockSettings) -> np.ndarray:
    """``(H, W) uint8`` 0/1: hatched areas (densely packed strokes) inside ``mask``."""
    blobs = cv2.morphologyEx(ink, cv2.MORPH_CLOSE, disk(s.px(s.hatch_close)))
    cv2.morphologyEx(blobs, cv2.MORPH_OPEN, disk(s.px(s.hatch_open)), dst=blobs)
    blobs &= mask.astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(blobs, connectivity=8,
                                                           ltype=cv2.CV_32S)
    if n < 2:
        return blobs
    area = stats[:, cv2.CC_STAT_AREA].astype(np.float64)
    inked = np.bincount(labels[ink > 0], minlength=n)
    depth = cv2.distanceTransform(blobs, cv2.DIST_L2, 3)
    deep = depth >= s.hatch_min_radius * s.scale   # the blob holds a disk this large
    del depth
    thick = np.bincount(labels[deep], minlength=n) > 0
    del deep
    keep = thick & (inked <= s.hatch_max_ink * area)
    keep[0] = False
    objects = ndi.find_objects(labels)
    kernels = [segment_kernel(s.px(s.hatch_stroke), np.pi * k / STROKE_ANGLES)
               for k in range(STROKE_ANGLES)]
    pad = s.px(s.hatch_stroke)
    out = np.zeros_like(blobs)
    close = disk(s.px(s.hatch_close))
    for i in np.flatnonzero(keep):
        box = objects[i - 1]
        y0, x0 = max(0, box[0].start - pad), max(0, box[1].start - pad)
        sl = (slice(y0, box[0].stop + pad), slice(x0, box[1].stop + pad))
        inside = (labels[sl] == i).astype(np.uint8)
        strokes = hatch_strokes(ink[sl], inside, kernels, s.hatch_parallel)
        if strokes is None:
            continue
        # the area the strokes cover: lettering or lines merged into the blob are left out
        area_i = cv2.morphologyEx(strokes, cv2.MORPH_CLOSE, close) & inside
        out[sl] |= area_i
    return out


def hatch_strokes(ink: np.ndarray, inside: np.ndarray, kernels: list[np.ndarray],
                  parallel: float) -> np.ndarray | None:
    """The hatching strokes of one blob (uint8 0/1), or None if it is not hatching.

    The strokes are the ink on straight runs (``kernels``) in the blob's main direction
    and in any direction holding at least half as much (two hatchings side by side);
    the blob is hatching when its main direction holds ``parallel`` of its ink.
    """
    total = int(np.count_nonzero(ink[inside > 0]))
    if total == 0:
        return None
    opened = [cv2.morphologyEx(ink, cv2.MORPH_OPEN, kernel) & inside for kernel in kernels]
    counts = np.array([np.count_nonzero(o) for o in opened])
    best = int(counts.max())
    if best < parallel * total:
        return None
    strokes = np.zeros_like(ink)
    for k in np.flatnonzero(counts >= 0.5 * best):
        strokes |= opened[k]
    return strokes


def erase_texture(ink: np.ndarray, texture: np.ndarray, s: BlockSettings) -> np.ndarray:
    """Ink with the strokes inside texture areas (beyond ``hatch_margin``) erased."""
    inner = cv2.erode(texture, disk(s.px(s.hatch_margin)))
    out = ink.copy()
    out[inner > 0] = 0
    return out
