"""Tightness-aware IoU (TIoU, Liu et al. 2019), as Yuliang-Liu/TIoU-metric ``script.py`` does.

Matching is the ICDAR 2015 IoU matching (:mod:`.iou`). Each matched pair (G, D) with
I = |G ∩ D| and U = |G| + |D| - I scores

- recall    I·f(Ct/|G|)/U with Ct = |G| - I, the GT area the detection cuts off;
- precision I·f(Ot/|D|)/U with Ot = |D ∩ O| - |D ∩ G ∩ O|, where O is the union of the other
  GT polygons that intersect D (outlier GT area inside the detection), 0 if <= 1e-10;

with f(x) = 1 if x <= 0.01 else 1 - x. R = Σrecall / Σcare GT, P = Σprecision / Σcare det.
SIoU uses the plain IoU of each pair instead.

Differences from the reference (``official=True`` reproduces it):

- the reference meant to leave don't-care GTs out of O but tests the matched GT's index
  instead of the other GT's, so ``###`` regions count as outlier area; the default leaves
  them out;
- the reference refuses counter-clockwise quads (see :mod:`.iou`).

The reference also crashes (UnboundLocalError) when the first image it evaluates has no care
GT; both modes give the numbers of the script with that crash fixed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely

from .geometry import ImageGeometry
from .iou import check_rrc_input, dont_care_mask, iou_image
from .rrc_format import TextImage, Word
from .scores import Rates

TIGHTNESS_TOLERANCE = 0.01
OUTLIER_EPSILON = 1.0e-10


def tightness_factor(fraction: float) -> float:
    """f(x): no penalty up to 1 % of the area, then 1 - x."""
    return 1 if fraction <= TIGHTNESS_TOLERANCE else 1 - fraction


@dataclass(frozen=True)
class TiouPair:
    """A matched pair: indices, IoU and its TIoU recall and precision terms."""

    gt: int
    det: int
    iou: float
    recall: float
    precision: float


def outlier_area(geo: ImageGeometry, g: int, d: int, others: np.ndarray) -> float:
    """Ot: area of D covered by the GT polygons ``others`` (indices) outside G."""
    if len(others) == 0:
        return 0.0
    union = shapely.union_all(geo.gt_polys[others])
    det = geo.det_polys[d]
    in_det = shapely.area(shapely.intersection(det, union))
    in_pair = shapely.area(shapely.intersection(shapely.intersection(det, geo.gt_polys[g]),
                                                union))
    ot = in_det - in_pair
    return 0.0 if ot <= OUTLIER_EPSILON else float(ot)


def tiou_pair(geo: ImageGeometry, g: int, d: int, iou: float,
              outlier_gts: np.ndarray) -> TiouPair:
    """TIoU recall and precision terms of one matched pair; ``outlier_gts`` marks the GTs
    that may count as outlier area."""
    inter = geo.inter[g, d]
    gt_area, det_area = geo.gt_area[g], geo.det_area[d]
    union = det_area + gt_area - inter
    cut = max(0.0, gt_area - inter)
    recall = inter * tightness_factor(cut * 1.0 / gt_area) / union
    others = np.flatnonzero(outlier_gts & (geo.inter[:, d] != 0))
    others = others[others != g]
    precision = inter * tightness_factor(outlier_area(geo, g, d, others) * 1.0 / det_area) / union
    return TiouPair(g, d, iou, float(recall), float(precision))


@dataclass(frozen=True)
class TiouImage:
    """One image: the matched pairs with their terms, and the care counts."""

    pairs: tuple[TiouPair, ...]
    num_gt_care: int
    num_det_care: int

    def sums(self) -> tuple[float, float, float]:
        """Σ TIoU recall, Σ TIoU precision, Σ IoU over the pairs, in matching order."""
        r = p = s = 0.0
        for pair in self.pairs:
            r += pair.recall
            p += pair.precision
            s += pair.iou
        return r, p, s

    @property
    def rates(self) -> Rates:
        r, p, _ = self.sums()
        return Rates.per_image(r, self.num_gt_care, p, self.num_det_care)

    def as_dict(self) -> dict:
        return {**self.rates.as_dict(), "pairs": [[q.gt, q.det] for q in self.pairs]}


def tiou_image(gt: Sequence[Word], det: Sequence[Word], geometry: ImageGeometry | None = None,
               *, official: bool = False) -> TiouImage:
    """Match one image with the IoU rule and score each pair's tightness."""
    geo = geometry or ImageGeometry(gt, det)
    matched = iou_image(gt, det, geo)
    outlier_gts = np.ones(len(gt), dtype=bool) if official else ~dont_care_mask(gt)
    scored = tuple(tiou_pair(geo, g, d, iou, outlier_gts)
                   for (g, d), iou in zip(matched.pairs, matched.pair_iou, strict=True))
    return TiouImage(scored, matched.num_gt_care, matched.num_det_care)


@dataclass(frozen=True)
class TiouResult:
    """TIoU, the plain IoU scores ("origin") and SIoU, with the per-image results."""

    rates: Rates
    origin: Rates
    siou: Rates
    matched: int
    per_image: dict[str, TiouImage]

    def as_dict(self) -> dict:
        return {**self.rates.as_dict(), "matched": self.matched,
                "origin": self.origin.as_dict(), "siou": self.siou.as_dict()}


def evaluate_tiou(images: Sequence[TextImage], *, official: bool = False) -> TiouResult:
    """TIoU over a dataset; ``official=True`` reproduces the reference (see module doc)."""
    check_rrc_input(images, official)
    per_image = {im.name: tiou_image(im.gt, im.det, im.geometry, official=official)
                 for im in images}
    recall_sum = precision_sum = iou_sum = 0.0
    matched = gt_care = det_care = 0
    for result in per_image.values():
        r, p, s = result.sums()
        recall_sum += r
        precision_sum += p
        iou_sum += s
        matched += len(result.pairs)
        gt_care += result.num_gt_care
        det_care += result.num_det_care
    return TiouResult(Rates.from_counts(recall_sum, gt_care, precision_sum, det_care),
                      Rates.from_counts(matched, gt_care, matched, det_care),
                      Rates.from_counts(iou_sum, gt_care, iou_sum, det_care),
                      matched, per_image)
