"""ICDAR 2015 IoU detection metric (RRC Challenge 4, task 1), as the RRC ``script.py`` computes it.

Per image: a detection is don't-care when more than half its area lies in one ``###`` GT
(checked in file order). Then, for each care GT in file order and each care detection in
file order, the first free pair with IoU > 0.5 is matched (greedy first-fit, not best IoU, so
the result depends on file order). Dataset: R = Σmatched / Σcare GT, P = Σmatched / Σcare det.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .geometry import ImageGeometry
from .rrc_format import ReferenceRefusalError, TextImage, Word, rrc_refusal
from .scores import Rates

IOU_THRESHOLD = 0.5
DONT_CARE_AREA_FRACTION = 0.5


def dont_care_mask(gt: Sequence[Word]) -> np.ndarray:
    return np.array([w.dont_care for w in gt], dtype=bool)


def dont_care_detections(geometry: ImageGeometry, gt_dont_care: np.ndarray,
                         fraction: float) -> np.ndarray:
    """Detections with |D ∩ G| / |D| > ``fraction`` for some don't-care GT G (0 if |D| = 0)."""
    m = len(geometry.det_area)
    if not gt_dont_care.any() or m == 0:
        return np.zeros(m, dtype=bool)
    inside = geometry.inter[gt_dont_care]
    area = geometry.det_area
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(area > 0, inside / np.where(area > 0, area, 1), 0)
    return (share > fraction).any(axis=0)


def iou_matrix(geometry: ImageGeometry) -> np.ndarray:
    """IoU of every (GT, detection) pair: I / (|D| + |G| - I), 0 when the union is 0."""
    inter = geometry.inter
    union = geometry.det_area[None, :] + geometry.gt_area[:, None] - inter
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(union > 0, inter / np.where(union > 0, union, 1), 0.0)


def greedy_matches(iou: np.ndarray, gt_care: np.ndarray, det_care: np.ndarray,
                   threshold: float = IOU_THRESHOLD) -> list[tuple[int, int]]:
    """First-fit one-to-one matching: GTs in order, each takes its first free detection
    (in order) with IoU > threshold."""
    free = det_care.copy()
    pairs = []
    for g in np.flatnonzero(gt_care):
        candidates = np.flatnonzero(free & (iou[g] > threshold))
        if len(candidates):
            d = int(candidates[0])
            pairs.append((int(g), d))
            free[d] = False
    return pairs


@dataclass(frozen=True)
class IouImage:
    """One image: matched (gt, det) index pairs, don't-care detections and care counts."""

    pairs: tuple[tuple[int, int], ...]
    pair_iou: tuple[float, ...]
    det_dontcare: tuple[int, ...]
    num_gt_care: int
    num_det_care: int

    @property
    def rates(self) -> Rates:
        return Rates.per_image(len(self.pairs), self.num_gt_care, len(self.pairs),
                               self.num_det_care)

    def as_dict(self) -> dict:
        return {"pairs": [list(p) for p in self.pairs], "det_dontcare": list(self.det_dontcare),
                **self.rates.as_dict()}


def iou_image(gt: Sequence[Word], det: Sequence[Word],
              geometry: ImageGeometry | None = None) -> IouImage:
    """Match one image's detections to its GT words."""
    geo = geometry or ImageGeometry(gt, det)
    gt_dc = dont_care_mask(gt)
    det_dc = dont_care_detections(geo, gt_dc, DONT_CARE_AREA_FRACTION)
    iou = iou_matrix(geo)
    pairs = greedy_matches(iou, ~gt_dc, ~det_dc) if len(gt) and len(det) else []
    return IouImage(tuple(pairs), tuple(float(iou[g, d]) for g, d in pairs),
                    tuple(int(d) for d in np.flatnonzero(det_dc)),
                    int((~gt_dc).sum()), int((~det_dc).sum()))


@dataclass(frozen=True)
class IouResult:
    """Dataset scores with the counts behind them, and the per-image results by name."""

    rates: Rates
    matched: int
    num_gt_care: int
    num_det_care: int
    num_det_dontcare: int
    per_image: dict[str, IouImage]

    def as_dict(self) -> dict:
        return {**self.rates.as_dict(), "matched": self.matched,
                "num_gt_care": self.num_gt_care, "num_det_care": self.num_det_care,
                "num_det_dontcare": self.num_det_dontcare}


def check_rrc_input(images: Sequence[TextImage], official: bool) -> None:
    """In official mode, raise ReferenceRefusalError where the RRC scripts refuse the files."""
    if official:
        reason = rrc_refusal(images)
        if reason:
            raise ReferenceRefusalError(reason)


def evaluate_iou(images: Sequence[TextImage], *, official: bool = False) -> IouResult:
    """ICDAR 2015 IoU over a dataset.

    ``official=True`` refuses counter-clockwise quads as the RRC script does (raises
    ReferenceRefusalError); by default they are scored like their clockwise twin.
    """
    check_rrc_input(images, official)
    per_image = {im.name: iou_image(im.gt, im.det, im.geometry) for im in images}
    matched = sum(len(r.pairs) for r in per_image.values())
    gt_care = sum(r.num_gt_care for r in per_image.values())
    det_care = sum(r.num_det_care for r in per_image.values())
    det_dc = sum(len(r.det_dontcare) for r in per_image.values())
    return IouResult(Rates.from_counts(matched, gt_care, matched, det_care), matched, gt_care,
                     det_care, det_dc, per_image)
