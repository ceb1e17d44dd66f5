"""Scoring closed shapes against an edge ground truth (the protocol of the real-crop test).

The reference is made of the 4-connected regions of non-edge pixels inside the map mask
(as the ground truth of Chen et al., ICDAR 2021, is drawn: one-pixel edges of every closed
shape). Regions larger than ``street_fraction`` of the mask are the street network and are
left out; regions smaller than ``min_area`` pixels are ignored: a predicted component lying
mostly (more than half of its pixels) in ignored regions is not counted. The score is
COCO panoptic quality (``core.metrics.panoptic``): matches at IoU > 0.5, PQ = SQ x RQ.
"""

from __future__ import annotations

import cv2
import numpy as np

from ..metrics.panoptic import PanopticResult, panoptic_quality


def _regions_and_street(edges: np.ndarray, mask: np.ndarray, street_fraction: float
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The 4-connected regions of non-edge map pixels: ``(labels int32, area per label,
    street per label)``, street being the regions over ``street_fraction`` of the mask."""
    free = ((edges == 0) & mask).astype(np.uint8)
    n, labels = cv2.connectedComponents(free, connectivity=4, ltype=cv2.CV_32S)
    area = np.bincount(labels.ravel(), minlength=n)
    area[0] = 0
    return labels, area, area > street_fraction * int(mask.sum())


def _keep_large(labels: np.ndarray, area: np.ndarray, drop: np.ndarray,
                min_area: int) -> tuple[np.ndarray, np.ndarray]:
    """``(reference labels int32, ignored bool)``: the labels neither dropped nor under
    ``min_area`` pixels (those are the ignored ones)."""
    small = (area < min_area) & (area > 0)
    keep = ~drop & ~small
    keep[0] = False
    return np.where(keep[labels], labels, 0).astype(np.int32), small[labels]


def closed_shapes_reference(edges: np.ndarray, mask: np.ndarray, *,
                            street_fraction: float = 0.03,
                            min_area: int = 1000) -> tuple[np.ndarray, np.ndarray]:
    """``(reference labels int32, ignored bool)`` from an edge image (nonzero on edges)."""
    labels, area, street = _regions_and_street(edges, mask, street_fraction)
    return _keep_large(labels, area, street, min_area)


def blocks_reference(edges: np.ndarray, mask: np.ndarray, *, street_fraction: float = 0.03,
                     min_area: int = 1000) -> tuple[np.ndarray, np.ndarray]:
    """A proxy building-block reference ``(labels int32, ignored bool)`` from the same edge
    image: the 4-connected components of the map minus the street network (the regions
    over ``street_fraction`` of the mask, grown by 1 px so that blocks facing each other
    across a one-pixel gap stay apart). Edges inside a block join its shapes into one
    block. Components under ``min_area`` pixels are ignored.

    This is not MapSeg's task-1 ground truth (none exists for the crop): parts of the map
    without drawn edges count as street, so it serves to compare methods, not as a target.
    """
    labels, _, street = _regions_and_street(edges, mask, street_fraction)
    street_px = cv2.dilate(street[labels].astype(np.uint8), np.ones((3, 3), np.uint8))
    blocks = (mask & (street_px == 0)).astype(np.uint8)
    n, labels = cv2.connectedComponents(blocks, connectivity=4, ltype=cv2.CV_32S)
    area = np.bincount(labels.ravel(), minlength=n)
    area[0] = 0
    return _keep_large(labels, area, np.zeros(n, bool), min_area)


def shapes_quality(reference: np.ndarray, ignored: np.ndarray,
                   prediction: np.ndarray) -> PanopticResult:
    """Panoptic quality of a 0/255 (or bool) prediction; its 4-connected components lying
    mostly in ``ignored`` pixels are left out first."""
    n, pred = cv2.connectedComponents((np.asarray(prediction) > 0).astype(np.uint8),
                                      connectivity=4, ltype=cv2.CV_32S)
    area = np.bincount(pred.ravel(), minlength=n)
    in_ignored = np.bincount(pred[ignored], minlength=n)
    drop = in_ignored * 2 > area
    drop[0] = True
    pred[drop[pred]] = 0
    return panoptic_quality(reference, pred)
