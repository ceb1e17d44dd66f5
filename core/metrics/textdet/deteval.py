"""DetEval (ICDAR 2013 style) on quadrilaterals, as MhLiao/DB ``deteval.py`` computes it.

Area recall R[g, d] = |G ∩ D| / |G| and area precision P[g, d] = |G ∩ D| / |D| (shapely areas,
no +1 pixel convention). A detection with P > 0.4 against a ``###`` GT is don't-care. Three
stages, each in file order, consume GTs and detections:

1. one-to-one (g, d): g has exactly one detection and d exactly one GT (counted over all of
   them) with R >= 0.8 and P >= 0.4, that is the pair; g overlaps (R > 0) exactly one care
   detection and d exactly one care GT; and the centre distance 2|c_G - c_D| / (diag_G +
   diag_D) < 1 (c: mean of the corners, diag: bounding-box diagonal). Credit 1 / 1.
2. one-to-many: a free care GT with the free care detections having P >= 0.4 as candidates,
   when round(Σ R, 4) >= 0.8 and g overlaps >= 2 care detections. Credit 1 / 1 for one
   candidate, else 0.8 recall and 0.8 per detection precision.
3. many-to-one: a free care detection with the free care GTs having R >= 0.8 as candidates,
   when round(Σ P, 4) >= 0.4 and d overlaps >= 2 care GTs. Credit 1 / 1 for one candidate,
   else one per GT recall and 1 precision.

Dataset: R = Σ recall credit / Σ care GT, P = Σ precision credit / Σ care det.

The reference silently drops a quad that shapely finds invalid or not simple (a GT dropped
that way leaves the denominator); ``official=True`` does the same, the default keeps it
(repaired, see :mod:`.geometry`) so it counts as a missed word or a false positive.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .geometry import ImageGeometry
from .iou import dont_care_detections, dont_care_mask
from .rrc_format import TextImage, Word
from .scores import Rates

AREA_RECALL = 0.8
AREA_PRECISION = 0.4
CENTER_DIFF = 1.0
ONE_TO_ONE_CREDIT = 1.0
ONE_TO_MANY_CREDIT = 0.8
MANY_TO_ONE_CREDIT = 1.0


@dataclass(frozen=True)
class DetEvalMatch:
    """GT indices, detection indices, the kind ("OO", "OM" or "MO") and the stage (1-3)."""

    gts: tuple[int, ...]
    dets: tuple[int, ...]
    kind: str
    stage: int

    def as_list(self) -> list:
        """As the reference logs it: stage 2 lists its detections, stage 3 its GTs."""
        gts: int | list[int] = list(self.gts) if self.stage == 3 else self.gts[0]
        dets: int | list[int] = list(self.dets) if self.stage == 2 else self.dets[0]
        return [gts, dets, self.kind]


@dataclass(frozen=True)
class DetEvalImage:
    """One image: the matches in the order found, don't-care detections, credits, counts."""

    matches: tuple[DetEvalMatch, ...]
    det_dontcare: tuple[int, ...]
    recall_accum: float
    precision_accum: float
    num_gt_care: int
    num_det_care: int

    def as_dict(self) -> dict:
        return {"pairs": [m.as_list() for m in self.matches],
                "det_dontcare": list(self.det_dontcare), "recall_accum": self.recall_accum,
                "precision_accum": self.precision_accum}


def _centre_distance_ok(gq: np.ndarray, dq: np.ndarray) -> bool:
    """2|c_G - c_D| / (diag_G + diag_D) < 1, with c the corner mean, diag the bbox diagonal."""
    g, d = gq.tolist(), dq.tolist()

    def centre(q: list) -> tuple[float, float]:
        return sum(p[0] for p in q) / 4, sum(p[1] for p in q) / 4

    def diag(q: list) -> float:
        xs, ys = [p[0] for p in q], [p[1] for p in q]
        return ((max(xs) - min(xs)) ** 2 + (max(ys) - min(ys)) ** 2) ** 0.5

    (gx, gy), (dx, dy) = centre(g), centre(d)
    dist = ((gx - dx) ** 2 + (gy - dy) ** 2) ** 0.5
    return dist / (diag(g) + diag(d)) * 2.0 < CENTER_DIFF


def _rounded_sum(values: np.ndarray) -> float:
    """Sum in order, rounded to 4 decimals with NumPy's rounding, as the reference does."""
    total = np.float64(0.0)
    for v in values:
        total += v
    return float(np.round(total, 4))


class _Stages:
    """The three matching stages on one image's R and P matrices."""

    def __init__(self, recall: np.ndarray, precision: np.ndarray, gt_dc: np.ndarray,
                 det_dc: np.ndarray, gt_quads: np.ndarray, det_quads: np.ndarray):
        self.r, self.p = recall, precision
        self.gt_dc, self.det_dc = gt_dc, det_dc
        self.gt_quads, self.det_quads = gt_quads, det_quads
        self.gt_used = np.zeros(len(gt_dc), dtype=bool)
        self.det_used = np.zeros(len(det_dc), dtype=bool)
        overlap = recall > 0
        self.overlaps_of_gt = (overlap & ~det_dc[None, :]).sum(axis=1)
        self.overlaps_of_det = (overlap & ~gt_dc[:, None]).sum(axis=0)
        self.matches: list[DetEvalMatch] = []
        self.recall_accum = 0.0
        self.precision_accum = 0.0

    def _credit(self, gts: list[int], dets: list[int], stage: int, recall: float,
                precision: float) -> None:
        self.gt_used[gts] = True
        self.det_used[dets] = True
        self.recall_accum += recall
        self.precision_accum += precision
        kind = "OO" if len(gts) == len(dets) == 1 else ("OM" if stage == 2 else "MO")
        self.matches.append(DetEvalMatch(tuple(gts), tuple(dets), kind, stage))

    def one_to_one(self) -> None:
        good = (self.r >= AREA_RECALL) & (self.p >= AREA_PRECISION)
        unique = good & (good.sum(axis=1) == 1)[:, None] & (good.sum(axis=0) == 1)[None, :]
        for g, d in zip(*np.nonzero(unique), strict=True):
            if self.gt_used[g] or self.det_used[d] or self.gt_dc[g] or self.det_dc[d]:
                continue
            if self.overlaps_of_gt[g] != 1 or self.overlaps_of_det[d] != 1:
                continue
            if _centre_distance_ok(self.gt_quads[g], self.det_quads[d]):
                self._credit([int(g)], [int(d)], 1, ONE_TO_ONE_CREDIT, ONE_TO_ONE_CREDIT)

    def one_to_many(self) -> None:
        for g in np.flatnonzero(~self.gt_dc):
            if self.gt_used[g]:
                continue
            dets = [int(d) for d in np.flatnonzero(~self.det_used & ~self.det_dc)
                    if self.p[g, d] >= AREA_PRECISION]
            if not dets or _rounded_sum(self.r[g, dets]) < AREA_RECALL:
                continue
            if self.overlaps_of_gt[g] >= 2:
                if len(dets) == 1:
                    self._credit([int(g)], dets, 2, ONE_TO_ONE_CREDIT, ONE_TO_ONE_CREDIT)
                else:
                    self._credit([int(g)], dets, 2, ONE_TO_MANY_CREDIT,
                                 ONE_TO_MANY_CREDIT * len(dets))

    def many_to_one(self) -> None:
        for d in np.flatnonzero(~self.det_dc):
            if self.det_used[d]:
                continue
            gts = [int(g) for g in np.flatnonzero(~self.gt_used & ~self.gt_dc)
                   if self.r[g, d] >= AREA_RECALL]
            if not gts or _rounded_sum(self.p[gts, d]) < AREA_PRECISION:
                continue
            if self.overlaps_of_det[d] >= 2:
                if len(gts) == 1:
                    self._credit(gts, [int(d)], 3, ONE_TO_ONE_CREDIT, ONE_TO_ONE_CREDIT)
                else:
                    self._credit(gts, [int(d)], 3, MANY_TO_ONE_CREDIT * len(gts),
                                 MANY_TO_ONE_CREDIT)


def deteval_image(gt: Sequence[Word], det: Sequence[Word], geometry: ImageGeometry | None = None,
                  *, official: bool = False) -> DetEvalImage:
    """Match one image with the DetEval rules; indices refer to lines of the given lists."""
    geo = geometry or ImageGeometry(gt, det)
    gt_keep = geo.gt_simple if official else np.ones(len(gt), dtype=bool)
    det_keep = geo.det_simple if official else np.ones(len(det), dtype=bool)
    gt_dc = dont_care_mask(gt) & gt_keep
    det_dc = dont_care_detections(geo, gt_dc, AREA_PRECISION) & det_keep
    num_gt_care = int((gt_keep & ~gt_dc).sum())
    num_det_care = int((det_keep & ~det_dc).sum())
    dc_list = tuple(int(d) for d in np.flatnonzero(det_dc))
    if not det_keep.any():
        return DetEvalImage((), dc_list, 0.0, 0.0, num_gt_care, num_det_care)
    with np.errstate(divide="ignore", invalid="ignore"):
        recall = np.where(geo.gt_area[:, None] > 0, geo.inter / geo.gt_area[:, None], 0.0)
        precision = np.where(geo.det_area[None, :] > 0, geo.inter / geo.det_area[None, :], 0.0)
    # a dropped quad takes part in nothing: no overlap, never a candidate
    recall[~gt_keep, :] = 0
    recall[:, ~det_keep] = 0
    precision[~gt_keep, :] = 0
    precision[:, ~det_keep] = 0
    stages = _Stages(recall, precision, gt_dc | ~gt_keep, det_dc | ~det_keep, geo.gt_quads,
                     geo.det_quads)
    stages.one_to_one()
    stages.one_to_many()
    stages.many_to_one()
    return DetEvalImage(tuple(stages.matches), dc_list, stages.recall_accum,
                        stages.precision_accum, num_gt_care, num_det_care)


@dataclass(frozen=True)
class DetEvalResult:
    """Dataset scores with the credits and care counts behind them, and per-image results."""

    rates: Rates
    recall_accum: float
    precision_accum: float
    num_gt_care: int
    num_det_care: int
    per_image: dict[str, DetEvalImage]

    def as_dict(self) -> dict:
        return {**self.rates.as_dict(), "recall_accum": self.recall_accum,
                "precision_accum": self.precision_accum, "num_gt_care": self.num_gt_care,
                "num_det_care": self.num_det_care}


def evaluate_deteval(images: Sequence[TextImage], *, official: bool = False) -> DetEvalResult:
    """DetEval over a dataset (see the module doc for ``official``)."""
    per_image = {im.name: deteval_image(im.gt, im.det, im.geometry, official=official)
                 for im in images}
    recall_sum = precision_sum = 0.0
    for r in per_image.values():
        recall_sum += r.recall_accum
        precision_sum += r.precision_accum
    gt_care = sum(r.num_gt_care for r in per_image.values())
    det_care = sum(r.num_det_care for r in per_image.values())
    return DetEvalResult(Rates.from_counts(recall_sum, gt_care, precision_sum, det_care),
                         recall_sum, precision_sum, gt_care, det_care, per_image)
