"""Map-area segmentation: the map content inside the frame, without margins, titles, legends.

Works on a reduced copy of the sheet (JPEG DCT scaling, 1/4 by default), then scales the
mask back to full size. Two cases:

- framed sheets: the ink component whose filled interior is largest is the frame (a
  rectangle or a polygon, possibly notched); its interior is the map. Thin free bands along
  the border (the paper between a decorative border and the frame) are peeled off and
  things touching the frame from outside (titles, folds) are cut by an opening.
- unframed crops (no closed frame line): the content is the largest blob of ink after a
  closing; the mask is its row-wise and column-wise span, which follows straight crop edges
  and L shapes without the bays left by blocks cut at the edge.

Pixel sizes below are full-resolution pixels (the reference scale is 1:5000 at 300 dpi,
about 0.42 m per pixel); they are divided by the reduction factor.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from scipy import ndimage as ndi

from ..imageio import ImageLike, image_size, read_image
from ..progress import ProgressCallback, report


@dataclass(frozen=True)
class MapAreaSettings:
    """Tuning of :func:`map_area_mask` (lengths in full-resolution pixels)."""

    reduce: int = 4            #: decoding reduction (1, 2, 4 or 8)
    ink_radius: float = 16     #: black-hat radius separating ink from paper
    content_closing: float = 48  #: joins the line network of an unframed map into one blob
    protrusion_opening: float = 64  #: removes lines sticking out of the content blob
    frame_tolerance: float = 24  #: polygon tolerance deciding whether a boundary is a frame
    max_frame_vertices: int = 40  #: a frame polygon has at most this many vertices
    band_width: float = 16     #: half-width of a free band between border and frame
    band_reach: float = 48     #: a band lies within this distance of the outside
    band_length: float = 200   #: and is at least this long
    final_opening: float = 48  #: removes text bumps touching the frame from outside


def _disk(radius: float) -> np.ndarray:
    r = max(1, round(radius))
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))


def _largest(binary: np.ndarray, connectivity: int = 4) -> np.ndarray:
    n, lab, stats, _ = cv2.connectedComponentsWithStats(binary.astype(np.uint8),
                                                        connectivity=connectivity)
    if n < 2:
        return binary.astype(bool)
    return lab == 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))


def _row_spans(binary: np.ndarray) -> np.ndarray:
    """Each row filled from its first to its last True pixel."""
    any_row = binary.any(axis=1)
    first = np.argmax(binary, axis=1)
    last = binary.shape[1] - 1 - np.argmax(binary[:, ::-1], axis=1)
    cols = np.arange(binary.shape[1])
    return any_row[:, None] & (cols[None, :] >= first[:, None]) & (cols[None, :] <= last[:, None])


def _ink(gray: np.ndarray, radius: float) -> np.ndarray:
    blackhat = cv2.morphologyEx(gray, cv2.MORPH_BLACKHAT, _disk(radius))
    threshold = max(10.0, float(np.percentile(blackhat, 95)) * 0.4)
    ink = (blackhat > threshold).astype(np.uint8)
    return cv2.morphologyEx(ink, cv2.MORPH_CLOSE, _disk(1))


def _largest_filled_component(ink: np.ndarray, candidates: int = 8) -> np.ndarray:
    """The filled interior of the ink component enclosing the largest area."""
    n, lab, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    best = np.zeros(ink.shape, np.uint8)
    best_area = 0
    for i in np.argsort(-stats[1:, cv2.CC_STAT_AREA])[:candidates] + 1:
        x, y, w, h = stats[i, :4]
        if w * h <= best_area:
            continue
        filled = ndi.binary_fill_holes(lab[y:y + h, x:x + w] == i)
        area = int(filled.sum())
        if area > best_area:
            best_area = area
            best[:] = 0
            best[y:y + h, x:x + w] = filled
    return best


def _is_frame(filled: np.ndarray, tolerance: float, max_vertices: int) -> bool:
    contours, _ = cv2.findContours(filled, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return False
    outer = max(contours, key=cv2.contourArea)
    polygon = cv2.approxPolyDP(outer, max(1.0, tolerance), True)
    return len(polygon) <= max_vertices


def _peel_border_bands(mask: np.ndarray, ink: np.ndarray, s: MapAreaSettings,
                       scale: float) -> np.ndarray:
    """Remove thin free bands lying along the border (paper between border and frame)."""
    for _ in range(2):
        free = ((ink == 0) & (mask > 0)).astype(np.uint8)
        n, lab, stats, _ = cv2.connectedComponentsWithStats(free, connectivity=4)
        thickness = ndi.maximum(cv2.distanceTransform(free, cv2.DIST_L2, 3), lab,
                                np.arange(n))
        outside = (mask == 0).astype(np.uint8)
        touching = cv2.dilate(outside, _disk(8 * scale)) > 0
        band = cv2.dilate(outside, _disk(s.band_reach * scale)) > 0
        in_band = np.bincount(lab[band], minlength=n) / np.maximum(stats[:, 4], 1)
        length = np.maximum(stats[:, 2], stats[:, 3])
        ids = np.unique(lab[touching & (free > 0)])
        ids = ids[(ids > 0)]
        ids = ids[(thickness[ids] <= s.band_width * scale) & (in_band[ids] >= 0.9)
                  & (length[ids] >= s.band_length * scale)]
        if len(ids) == 0:
            break
        mask[np.isin(lab, ids)] = 0
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, _disk(12 * scale))
        mask = _largest(mask).astype(np.uint8)
    return mask


def map_area_reduced(gray: np.ndarray, reduce: int,
                     settings: MapAreaSettings | None = None) -> np.ndarray:
    """Map-area mask ``(h, w) uint8`` 0/1 of a grey sheet already reduced ``reduce`` times."""
    s = settings or MapAreaSettings()
    scale = 1.0 / reduce
    ink = _ink(gray, s.ink_radius * scale)
    blob = cv2.morphologyEx(ink, cv2.MORPH_CLOSE, _disk(s.content_closing * scale))
    blob = ndi.binary_fill_holes(_largest(blob, 8)).astype(np.uint8)
    blob = _largest(cv2.morphologyEx(blob, cv2.MORPH_OPEN,
                                     _disk(s.protrusion_opening * scale)))
    if not blob.any():
        return np.zeros(gray.shape, np.uint8)
    frame = _largest_filled_component(ink)
    spans = _row_spans(blob) & _row_spans(blob.T).T   # orthogonal hull of the content
    if (frame.sum() >= 0.8 * spans.sum()
            and _is_frame(frame, s.frame_tolerance * scale, s.max_frame_vertices)):
        mask = _peel_border_bands(frame, ink, s, scale)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, _disk(s.final_opening * scale))
        mask = _largest(mask).astype(np.uint8)
    else:
        mask = (_row_spans(blob) | _row_spans(blob.T).T).astype(np.uint8)
    return ndi.binary_fill_holes(mask).astype(np.uint8)


def map_area_mask(source: ImageLike, *, settings: MapAreaSettings | None = None,
                  progress: ProgressCallback | None = None) -> np.ndarray:
    """Map-area mask of a sheet: ``(H, W)`` bool, True on the map content inside the frame.

    Args:
        source: image file (JPEG, PNG, TIFF) or RGB/grey uint8 array.
        settings: tuning; the defaults suit 1:5000 sheets scanned at 300 dpi.
        progress: optional callback (fraction, message).
    """
    s = settings or MapAreaSettings()
    if isinstance(source, np.ndarray):
        height, width = source.shape[:2]
    else:
        width, height = image_size(source)
    report(progress, 0.0, "reading the reduced sheet")
    gray = read_image(source, reduce=s.reduce, gray=True)
    report(progress, 0.4, "finding the map frame")
    small = map_area_reduced(gray, s.reduce, s)
    report(progress, 0.9, "scaling the mask to full size")
    full = cv2.resize(small * np.uint8(255), (width, height), interpolation=cv2.INTER_LINEAR)
    report(progress, 1.0, "done")
    return full >= 128
