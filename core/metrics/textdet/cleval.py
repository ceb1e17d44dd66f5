"""CLEval character-level detection and end-to-end metric, as clovaai/CLEval (0.1.1) computes it.

Each GT word gets one pseudo-character centre (PCC) per character on the line between the
midpoints of its left and right edges (for a box with aspect ratio < 0.5 the corners are
relabelled so that the PCCs run from the bottom edge up). A ``###`` GT gets a pseudo text of
min(round(0.5 + max(ar, 1/ar)), 10) characters and loses the area of the care GTs it overlaps.
Area precision AP[g, d] = |G ∩ D| / |D| is stored as float32 and tested with AP >= 0.3.

A detection is don't-care when a ``###`` GT has AP >= 0.3 with it, or when the APs of the
``###`` GTs whose PCCs it contains sum to >= 0.3. Matches are the union of one-to-one,
one-to-many and many-to-one relations found on the same matrices (not greedy); PCC counts of
unmatched pairs are then dropped.

- det: TP = the PCCs of care GTs covered by a matched detection, each counted once; GT-side
  and detection-side granularity penalties are (number of partners - 1); the detection
  character total adds the PCCs of every matched pair and, for each unmatched detection, an
  estimated character count. R = max(0, TP - Σpenalty_R) / Σ|GT text|, likewise P.
- e2e: TP from LCS elimination (:mod:`.cleval_e2e`); the detection total is the length of
  every care detection's transcription.

Differences from the reference (``official=True`` reproduces it):

- the character count of an unmatched detection is min(round(0.5 + 1/(1e-5 + ar)), 10) in the
  reference: a wide box costs 1 character and a tall one up to 10. The default uses the
  don't-care estimate min(round(0.5 + max(ar, 1/ar)), 10), the same for both orientations;
- the reference visits GTs and detections in the iteration order of Python sets, which is
  not always ascending; the default uses ascending order (it matters in rare e2e cases where
  two GTs share a detection, and in the last bits of float sums).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely

from .cleval_e2e import eliminate, order_by_first_pcc
from .geometry import ImageGeometry, intersection_areas, points_in_quads
from .rrc_format import TextImage, Word
from .scores import hmean

AREA_PRECISION = 0.3
VERTICAL_ASPECT_RATIO = 0.5
MAX_PSEUDO_LENGTH = 10


def aspect_ratio(points: Sequence[float]) -> float:
    """(mean of top and bottom edge lengths + 1e-5) / (mean of left and right + 1e-5)."""
    x, y = points[0::2], points[1::2]

    def edge(i: int, j: int) -> float:
        dx, dy = math.fabs(x[i] - x[j]), math.fabs(y[i] - y[j])
        return math.sqrt(dx * dx + dy * dy)

    horizontal = (edge(0, 1) + edge(2, 3)) / 2
    vertical = (edge(1, 2) + edge(3, 0)) / 2
    return (horizontal + 1e-5) / (vertical + 1e-5)


def pseudo_length(ar: float) -> int:
    """Estimated character count of a box from its aspect ratio (1 to 10)."""
    return min(round(0.5 + max(ar, 1 / ar)), MAX_PSEUDO_LENGTH)


def reference_fp_length(ar: float) -> int:
    """The reference's character count of an unmatched detection (1/ar: wide boxes cost 1)."""
    return min(round(0.5 + 1 / (1e-5 + ar)), MAX_PSEUDO_LENGTH)


def pseudo_character_centres(points: Sequence[float], count: int, ar: float) -> np.ndarray:
    """``count`` points evenly spaced on the left-mid to right-mid line, shape (count, 2)."""
    if count == 0:
        return np.zeros((0, 2))
    p = [(points[2 * k], points[2 * k + 1]) for k in range(4)]
    if ar >= VERTICAL_ASPECT_RATIO:
        left_top, right_top, right_bottom, left_bottom = p
    else:
        right_top, right_bottom, left_bottom, left_top = p
    start = ((left_top[0] + left_bottom[0]) / 2, (left_top[1] + left_bottom[1]) / 2)
    end = ((right_top[0] + right_bottom[0]) / 2, (right_top[1] + right_bottom[1]) / 2)
    step_x = (end[0] - start[0]) / count
    step_y = (end[1] - start[1]) / count
    i = np.arange(count, dtype=np.float64)
    return np.stack([start[0] + step_x / 2 + step_x * i, start[1] + step_y / 2 + step_y * i],
                    axis=1)


@dataclass(frozen=True)
class ClevalStats:
    """Character counts and the scores CLEval derives from them."""

    num_char_gt: int = 0
    num_char_det: int = 0
    num_char_tp: int = 0
    gran_score_recall: float = 0.0
    gran_score_precision: float = 0.0
    num_char_fp: int = 0

    @property
    def recall(self) -> float:
        if self.num_char_gt == 0:
            return 0.0
        return max(0.0, self.num_char_tp - self.gran_score_recall) / self.num_char_gt

    @property
    def precision(self) -> float:
        if self.num_char_det == 0:
            return 0.0
        return max(0.0, self.num_char_tp - self.gran_score_precision) / self.num_char_det

    @property
    def hmean(self) -> float:
        return hmean(self.recall, self.precision)

    def __add__(self, other: ClevalStats) -> ClevalStats:
        return ClevalStats(self.num_char_gt + other.num_char_gt,
                           self.num_char_det + other.num_char_det,
                           self.num_char_tp + other.num_char_tp,
                           self.gran_score_recall + other.gran_score_recall,
                           self.gran_score_precision + other.gran_score_precision,
                           self.num_char_fp + other.num_char_fp)

    def as_dict(self) -> dict:
        return {"recall": self.recall, "precision": self.precision, "hmean": self.hmean,
                "num_char_gt": self.num_char_gt, "num_char_det": self.num_char_det,
                "gran_score_recall": self.gran_score_recall,
                "num_char_tp_recall": self.num_char_tp,
                "gran_score_precision": self.gran_score_precision,
                "num_char_tp_precision": self.num_char_tp, "num_char_fp": self.num_char_fp}


@dataclass(frozen=True)
class ClevalMatch:
    """GT indices, detection indices and the relation."""

    gts: tuple[int, ...]
    dets: tuple[int, ...]
    relation: str  # "one-to-one", "one-to-many" or "many-to-one"

    def as_list(self) -> list:
        return [list(self.gts), list(self.dets), self.relation]


@dataclass(frozen=True)
class ClevalImage:
    """One image: det and e2e counts (e2e None without detection transcriptions), matches."""

    det: ClevalStats
    e2e: ClevalStats | None
    matches: tuple[ClevalMatch, ...]
    num_splitted: int
    num_merged: int
    num_char_overlapped: int

    def as_dict(self) -> dict:
        return {"det": self.det.as_dict(), "e2e": self.e2e.as_dict() if self.e2e else None,
                "matches": [m.as_list() for m in self.matches]}


def _visit_order(n: int, excluded: Sequence[int], official: bool) -> list[int]:
    """Indices 0..n-1 not in ``excluded``: ascending, or (official) in the iteration order of
    the Python set ``set(range(n)) - excluded`` that the reference loops over."""
    if official:
        return list(set(range(n)) - set(excluded))
    dropped = set(excluded)
    return [i for i in range(n) if i not in dropped]


class _Image:
    """The matrices CLEval builds for one image."""

    def __init__(self, gt: Sequence[Word], det: Sequence[Word], geo: ImageGeometry,
                 official: bool):
        n, m = len(gt), len(det)
        self.gt_ar = [aspect_ratio(w.points) for w in gt]
        self.det_ar = [aspect_ratio(w.points) for w in det]
        dc = [g for g in range(n) if gt[g].dont_care]
        self.gt_dc = list(set(dc)) if official else dc
        self.gt_text = ["#" * pseudo_length(self.gt_ar[g]) if gt[g].dont_care else gt[g].text
                        for g in range(n)]
        self.det_text = [None if w.text is None else
                         "#" * pseudo_length(self.det_ar[d]) if w.dont_care else w.text
                         for d, w in enumerate(det)]
        self.pccs = [pseudo_character_centres(w.points, len(self.gt_text[g]), self.gt_ar[g])
                     for g, w in enumerate(gt)]
        # one crossing-number test for all PCCs of the image, then split per GT
        owner = np.repeat(np.arange(n), [len(c) for c in self.pccs])
        inside = points_in_quads(geo.det_quads, np.concatenate([np.zeros((0, 2)), *self.pccs]))
        bounds = np.concatenate([[0], np.cumsum([len(c) for c in self.pccs])]).astype(int)
        self.inside = [inside[:, bounds[g]:bounds[g + 1]] for g in range(n)]
        self.pcc_count = (inside.astype(np.int64) @ (owner[:, None] == np.arange(n))).T
        self.ap = self._area_precision(geo, dc)
        self.ap_ok = self.ap >= AREA_PRECISION
        self.det_dc = self._dont_care_detections(m)
        self.gt_order = _visit_order(n, self.gt_dc, official)
        self.det_order = _visit_order(m, self.det_dc, official)

    def _area_precision(self, geo: ImageGeometry, dc: list[int]) -> np.ndarray:
        """float32 |G ∩ D| / |D|, with each ``###`` GT minus the care GTs it overlaps."""
        inter = geo.inter.copy()
        if dc and len(geo.det_area):
            care = np.flatnonzero(~np.isin(np.arange(len(geo.gt_polys)), dc))
            touching = intersection_areas(geo.gt_polys[dc], geo.gt_polys[care]) > 0
            reduced = []
            for k, g in enumerate(dc):
                poly = geo.gt_polys[g]
                for c in care[touching[k]]:  # in index order, each against the reduced polygon
                    if shapely.area(shapely.intersection(geo.gt_polys[c], poly)) > 0:
                        poly = shapely.difference(poly, geo.gt_polys[c])
                reduced.append(poly)
            inter[dc] = intersection_areas(np.array(reduced, dtype=object), geo.det_polys)
        area = geo.det_area[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            ap = np.where(area > 0, inter / np.where(area > 0, area, 1), 0.0)
        return ap.astype(np.float32)

    def _dont_care_detections(self, m: int) -> list[int]:
        found = []
        if not self.gt_dc:
            return found
        for d in range(m):
            total = np.float32(0)  # float32 sum, as in the reference
            for g in self.gt_dc:
                if self.ap_ok[g, d]:
                    found.append(d)
                    break
                if self.pcc_count[g, d] > 0:
                    total = np.float32(total + self.ap[g, d])
            else:
                if total >= AREA_PRECISION:
                    found.append(d)
        return found

    def matches(self) -> tuple[list[ClevalMatch], np.ndarray]:
        """Every one-to-one, one-to-many and many-to-one relation, and the match matrix."""
        valid = self.ap_ok & (self.pcc_count > 0)
        unique = valid & (valid.sum(axis=1) == 1)[:, None] & (valid.sum(axis=0) == 1)[None, :]
        found = [ClevalMatch((g,), (d,), "one-to-one")
                 for g in self.gt_order for d in self.det_order if unique[g, d]]
        for g in self.gt_order:
            dets = [d for d in self.det_order if valid[g, d]]
            if len(dets) >= 2:
                found.append(ClevalMatch((g,), tuple(dets), "one-to-many"))
        for d in self.det_order:
            gts = [g for g in self.gt_order if self.pcc_count[g, d] > 0]
            total = 0.0
            for g in gts:
                total += float(self.ap[g, d])
            if len(gts) >= 2 and total >= AREA_PRECISION:
                found.append(ClevalMatch(tuple(gts), (d,), "many-to-one"))
        matched = np.zeros(self.pcc_count.shape, dtype=bool)
        for match in found:
            matched[np.ix_(match.gts, match.dets)] = True
        return found, matched


def _granularity(counts: np.ndarray) -> float:
    return float(np.maximum(counts - 1, 0).sum())


def cleval_image(gt: Sequence[Word], det: Sequence[Word], geometry: ImageGeometry | None = None,
                 *, official: bool = False) -> ClevalImage:
    """CLEval det and e2e counts of one image (see the module doc for ``official``)."""
    geo = geometry or ImageGeometry(gt, det)
    im = _Image(gt, det, geo, official)
    found, matched = im.matches()
    inside = [ins & matched[g][:, None] for g, ins in enumerate(im.inside)]
    gt_valid = np.zeros(len(gt), dtype=bool)
    gt_valid[im.gt_order] = True
    det_valid = np.zeros(len(det), dtype=bool)
    det_valid[im.det_order] = True
    dets_per_gt = matched.sum(axis=1)
    gts_per_det = matched.sum(axis=0)

    hits = sum(int(ins.sum()) for ins in inside)
    covered = sum(int(ins.any(axis=0).sum()) for ins in inside)
    unmatched = det_valid & (gts_per_det == 0)
    fp_length = reference_fp_length if official else pseudo_length
    fp_chars = sum(fp_length(im.det_ar[d]) for d in np.flatnonzero(unmatched))
    num_char_gt = sum(len(im.gt_text[g]) for g in np.flatnonzero(gt_valid))
    gran_r = _granularity(dets_per_gt[gt_valid])
    gran_p = _granularity(gts_per_det[det_valid])
    det_stats = ClevalStats(num_char_gt, hits + fp_chars, covered, gran_r, gran_p, fp_chars)

    e2e_stats = None
    if all(t is not None for t in im.det_text):
        texts = [str(t) for t in im.det_text]
        remaining = list(texts)
        for g in im.gt_order:
            dets = [int(d) for d in np.flatnonzero(matched[g])]
            if dets:
                eliminate(im.gt_text[g], order_by_first_pcc(dets, inside[g]), remaining)
        total = sum(len(texts[d]) for d in im.det_order)
        tp = sum(len(texts[d]) - len(remaining[d]) for d in im.det_order)
        e2e_stats = ClevalStats(num_char_gt, total, tp, gran_r, gran_p, total - tp)

    return ClevalImage(det_stats, e2e_stats, tuple(found),
                       int((dets_per_gt[gt_valid] > 1).sum()),
                       int((gts_per_det[det_valid] > 1).sum()), hits - covered)


@dataclass(frozen=True)
class ClevalResult:
    """Dataset counts (sums over images) and scores; ``e2e`` is None when some detection
    line has no transcription."""

    det: ClevalStats
    e2e: ClevalStats | None
    num_splitted: int
    num_merged: int
    num_char_overlapped: int
    per_image: dict[str, ClevalImage]

    def as_dict(self) -> dict:
        e2e = (self.e2e.as_dict() if self.e2e is not None else
               {"error": "e2e needs a transcription on every detection line"})
        return {"det": self.det.as_dict(), "e2e": e2e, "num_splitted": self.num_splitted,
                "num_merged": self.num_merged, "num_char_overlapped": self.num_char_overlapped}


def evaluate_cleval(images: Sequence[TextImage], *, official: bool = False) -> ClevalResult:
    """CLEval det and e2e over a dataset (see the module doc for ``official``)."""
    per_image = {im.name: cleval_image(im.gt, im.det, im.geometry, official=official)
                 for im in images}
    det = ClevalStats()
    e2e: ClevalStats | None = ClevalStats()
    for r in per_image.values():
        det = det + r.det
        e2e = None if e2e is None or r.e2e is None else e2e + r.e2e
    return ClevalResult(det, e2e, sum(r.num_splitted for r in per_image.values()),
                        sum(r.num_merged for r in per_image.values()),
                        sum(r.num_char_overlapped for r in per_image.values()), per_image)
