"""MapSeg task 2: 95th-percentile Hausdorff distance between two binary masks, in pixels.

The boundary of a mask is its pixels that have a 4-neighbour outside the mask or outside the
image. The distance from a pixel to a mask is the Euclidean distance (pixel centres) to the
nearest mask pixel, 0 inside the mask. HD95 is the larger of the two 95th percentiles (numpy's
linear interpolation): of the distances from the prediction's boundary pixels to the
reference, and from the reference's boundary pixels to the prediction.

A pixel outside a mask is nearest to one of the mask's boundary pixels (a step from an inner
pixel toward it stays in the mask and gets closer), so a KD-tree of the boundary pixels gives
exactly the Euclidean distance transform's values (``sqrt`` of integer squared distances in
float64) without a full-image transform: the same values as ``icdar21-mapseg-eval`` 1.0.4,
much faster. Masks with very long boundaries fall back to scipy's exact transform.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from ..errors import InputError
from .mapseg_errors import OfficialToolFailure

KDTREE_MAX_POINTS = 5_000_000  # above this many boundary pixels, use scipy's distance transform
_CROSS = cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3))


@dataclass(frozen=True)
class HausdorffResult:
    """HD95 and its intermediate values (pixels)."""

    hd95: float
    ref_to_pred: float  # percentile of the distances from reference boundary pixels to pred
    pred_to_ref: float  # percentile of the distances from prediction boundary pixels to ref
    ref_distances: np.ndarray  # per reference boundary pixel, raster order
    pred_distances: np.ndarray  # per prediction boundary pixel, raster order
    percentile: float
    official: bool = False


def as_binary_mask(mask: np.ndarray, *, official: bool = False, what: str = "mask"
                   ) -> np.ndarray:
    """A bool mask from a bool or uint8 array: uint8 is thresholded at 128 (0/255 masks).

    ``official=True`` keeps any nonzero pixel of any integer type, as the official tool does.
    """
    m = np.asarray(mask)
    if m.ndim != 2:
        raise InputError(f"{what} must be a single-channel 2-D image, not shape {m.shape}")
    if m.dtype == bool:
        return m
    if official and np.issubdtype(m.dtype, np.integer):
        return m != 0
    if m.dtype == np.uint8:
        return m >= 128
    raise InputError(f"{what} has {m.dtype} pixels; give a 0/255 8-bit mask")


def mask_boundary(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(rows, cols)`` of the mask pixels that have a 4-neighbour outside the mask or image."""
    m = np.ascontiguousarray(mask, dtype=bool).view(np.uint8)
    inner = cv2.erode(m, _CROSS, borderType=cv2.BORDER_CONSTANT, borderValue=0)
    np.bitwise_xor(inner, m, out=inner)  # inner is a subset of m: xor leaves the boundary
    flat = np.flatnonzero(inner.view(bool).ravel())  # much faster than np.nonzero in 2-D
    return np.divmod(flat, m.shape[1])


def _distances_to_mask(mask: np.ndarray, boundary: tuple[np.ndarray, np.ndarray],
                       rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Euclidean distance from pixels ``(rows, cols)`` to ``mask`` (0 inside), float64."""
    dist = np.zeros(len(rows))
    outside = ~mask[rows, cols]
    if not outside.any():
        return dist
    qr, qc = rows[outside], cols[outside]
    if len(boundary[0]) > KDTREE_MAX_POINTS:
        dist[outside] = _edt_distances(mask, qr, qc)
        return dist
    from scipy.spatial import cKDTree

    br, bc = boundary
    tree = cKDTree(np.column_stack((br, bc)).astype(np.float64))
    _, nearest = tree.query(np.column_stack((qr, qc)).astype(np.float64), k=1)
    # recompute from integer offsets: exactly scipy's EDT arithmetic (float64, then sqrt)
    dr = (br[nearest] - qr).astype(np.float64)
    dc = (bc[nearest] - qc).astype(np.float64)
    dist[outside] = np.sqrt(dr * dr + dc * dc)
    return dist


def _edt_distances(mask: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Distances from scipy's exact transform on the bounding box of the mask and points."""
    from scipy.ndimage import distance_transform_edt

    mr, mc = np.nonzero(mask)
    r0, r1 = min(mr.min(), rows.min()), max(mr.max(), rows.max()) + 1
    c0, c1 = min(mc.min(), cols.min()), max(mc.max(), cols.max()) + 1
    edt = distance_transform_edt(~mask[r0:r1, c0:c1])
    return edt[rows - r0, cols - c0]


def hausdorff95_details(ref_mask: np.ndarray, pred_mask: np.ndarray, *, percentile: float = 95,
                        official: bool = False) -> HausdorffResult:
    """HD95 with its two directed percentiles and the boundary distances.

    Both masks empty: 0. One mask empty: the image diagonal ``sqrt(W^2 + H^2)``, more than
    any distance between two pixels (the official tool crashes; ``official=True`` raises
    :class:`OfficialToolFailure`).
    """
    if not 0 <= percentile <= 100:
        raise ValueError(f"percentile must be in [0, 100], not {percentile}")
    a = as_binary_mask(ref_mask, official=official, what="reference")
    b = as_binary_mask(pred_mask, official=official, what="prediction")
    if a.shape != b.shape:
        raise InputError(f"reference is {a.shape[1]} x {a.shape[0]} px but prediction is "
                         f"{b.shape[1]} x {b.shape[0]} px; give masks of one size")
    ba, bb = mask_boundary(a), mask_boundary(b)
    empty_a, empty_b = len(ba[0]) == 0, len(bb[0]) == 0
    if empty_a or empty_b:
        if official:
            which = "empty prediction" if empty_b else "empty reference"
            raise OfficialToolFailure(f"{which}: no boundary pixel to take a percentile of")
        h, w = a.shape
        value = 0.0 if (empty_a and empty_b) else math.hypot(w, h)
        z = np.zeros(0)
        return HausdorffResult(value, value, value, z, z, float(percentile), official)
    d_ref = _distances_to_mask(b, bb, *ba)  # reference boundary -> prediction
    d_pred = _distances_to_mask(a, ba, *bb)  # prediction boundary -> reference
    ref_to_pred = float(np.percentile(d_ref, q=percentile))
    pred_to_ref = float(np.percentile(d_pred, q=percentile))
    return HausdorffResult(max(ref_to_pred, pred_to_ref), ref_to_pred, pred_to_ref,
                           d_ref, d_pred, float(percentile), official)


def hausdorff95(ref_mask: np.ndarray, pred_mask: np.ndarray, *, official: bool = False
                ) -> float:
    """95th-percentile Hausdorff distance in pixels between two masks of the same shape.

    Masks are bool, or uint8 thresholded at 128 (``official=True``: any nonzero pixel).
    See :func:`hausdorff95_details` for empty masks.
    """
    return hausdorff95_details(ref_mask, pred_mask, official=official).hd95
