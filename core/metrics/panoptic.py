"""MapSeg task 1: COCO panoptic quality (PQ = SQ x RQ) of building-block segmentations.

Each input is a 2-D array, row 0 at the top (pixel x right, y down), in one of two forms:

- a binary mask: ``bool``, or ``uint8`` 0/255 thresholded at 128 (as the MapSeg task says);
  its 4-connected regions are the segments;
- a label map: integers of 16 bits or more (16-bit PNG, TIFF); each nonzero value is one
  segment (connected or not), 0 is background.

A reference segment ``g`` and a predicted segment ``p`` match when ``IoU(g, p) > 0.5``; such a
match is unique (each holds more than half of the other). With ``TP`` matches among ``T``
reference and ``P`` predicted segments: ``SQ`` = mean IoU of the matches, ``RQ`` =
``2 TP / (P + T)`` (the F-score), ``PQ = SQ x RQ``. The curve gives precision, recall and
F-score when the IoU threshold rises from 0.5 to 1.

``official=True`` reproduces ``icdar21-mapseg-eval`` 1.0.4 bit for bit, quirks included (see
docs/metrics-mapseg.md): SQ over *distinct* IoU values, uint8 images with more than two grey
levels read as label maps, absent label values counted as missed segments, segments matched to
the other side's background; where that tool crashes, :class:`OfficialToolFailure` is raised.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from ..errors import InputError
from .mapseg_errors import OfficialToolFailure

MATCH_IOU = 0.5
_CHUNK_PIXELS = 1 << 23  # pixels per slice when counting overlaps: bounds temporary memory
_MAX_LABEL = 2**32 - 1  # the official tool casts labels to uint32
_MAX_OFFICIAL_LABELS = 2**27  # official mode keeps dense per-label arrays
_OFFICIAL_LABEL_TYPES = (np.uint16, np.int16, np.uint32, np.int32, np.uint64, np.int64)


@dataclass(frozen=True)
class PanopticCurve:
    """Scores as a function of the IoU threshold: at ``thresholds[k]`` the matches are the
    pairs whose IoU is ``>= thresholds[k]`` (the distinct matched IoU values, ascending)."""

    thresholds: np.ndarray
    precision: np.ndarray
    recall: np.ndarray
    fscore: np.ndarray


@dataclass(frozen=True)
class SegmentTable:
    """One row per segment of one side: its best partner on the other side (largest
    intersection; 0 = none, or the background in official mode) and their IoU."""

    labels: np.ndarray
    areas: np.ndarray  # pixels
    best_match: np.ndarray
    intersection: np.ndarray  # pixels
    iou: np.ndarray
    matched: np.ndarray  # bool: IoU > 0.5


@dataclass(frozen=True)
class PanopticResult:
    """Panoptic quality of one prediction against one reference."""

    pq: float
    sq: float
    rq: float
    n_ref: int  # T: reference segments
    n_pred: int  # P: predicted segments
    n_matched: int  # TP
    matched_iou: np.ndarray  # IoU of every match, ascending
    curve: PanopticCurve
    ref_segments: SegmentTable
    pred_segments: SegmentTable
    official: bool = False


def label_blocks(mask: np.ndarray) -> np.ndarray:
    """Label the 4-connected regions of a boolean mask: ``int32`` labels 1..N, 0 outside."""
    mask_u8 = np.ascontiguousarray(mask, dtype=bool).view(np.uint8)
    _, labels = cv2.connectedComponents(mask_u8, connectivity=4, ltype=cv2.CV_32S)
    return labels


def segment_labels(image: np.ndarray, *, official: bool = False, what: str = "image"
                   ) -> np.ndarray:
    """The label map of a mask or label-map array (see the module docstring); 0 = background.

    Raises InputError for arrays that are neither (float, colour, int8, negative labels).
    """
    img = np.asarray(image)
    if img.ndim != 2:
        raise InputError(f"{what} must be a single-channel 2-D image, not shape {img.shape}")
    if official:
        return _official_labels(img, what)
    if img.dtype == bool:
        return label_blocks(img)
    if img.dtype == np.uint8:
        return label_blocks(img >= 128)
    if np.issubdtype(img.dtype, np.integer) and img.dtype.itemsize >= 2:
        _check_label_range(img, what)
        return img
    raise InputError(f"{what} has {img.dtype} pixels; give a 0/255 8-bit mask or a label map "
                     "of 16-bit or wider integers")


def _check_label_range(img: np.ndarray, what: str) -> None:
    if img.size and np.issubdtype(img.dtype, np.signedinteger) and img.min() < 0:
        raise InputError(f"{what} has negative labels; labels must be 0 (background) or positive")
    if img.size and img.dtype.itemsize > 4 and img.max() > _MAX_LABEL:
        raise InputError(f"{what} has labels above {_MAX_LABEL}; renumber the segments")


def _official_labels(img: np.ndarray, what: str) -> np.ndarray:
    """The official tool's mode deduction: bool and uint8 with at most 2 grey levels are
    masks (any nonzero pixel is in), wider integers and other uint8 images are label maps."""
    if img.dtype == bool:
        return label_blocks(img)
    if img.dtype == np.uint8:
        hist = cv2.calcHist([np.ascontiguousarray(img)], [0], None, [256], [0, 256]).ravel()
        levels = np.flatnonzero(hist)
        if len(levels) > 2:
            return img  # read as a label map: quirk (d), a stray grey pixel is a segment
        if np.count_nonzero(levels) == 2:  # two nonzero levels: separate regions
            from skimage.measure import label

            return label(img, connectivity=1, background=0)
        return label_blocks(img != 0)
    if img.dtype in _OFFICIAL_LABEL_TYPES:
        if img.size and np.issubdtype(img.dtype, np.signedinteger) and img.min() < 0:
            raise OfficialToolFailure(f"{what} has negative labels")
        _check_label_range(img, what)
        return img
    raise OfficialToolFailure(f"{what} has {img.dtype} pixels, for which it cannot deduce "
                              "a mask or a label map")


def overlap_table(ref: np.ndarray, pred: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sparse contingency table of two label maps of the same shape.

    Returns ``(ref_label, pred_label, pixels)`` int64 arrays, one entry per pair of labels
    that share at least one pixel (background 0 included), sorted by reference then
    prediction label. Works on run lengths of row slices, so memory stays small.
    """
    h, w = ref.shape
    rows = max(1, _CHUNK_PIXELS // max(w, 1))
    runs_r, runs_p, runs_n = [], [], []
    for y0 in range(0, h, rows):
        r = np.ascontiguousarray(ref[y0:y0 + rows]).ravel()
        p = np.ascontiguousarray(pred[y0:y0 + rows]).ravel()
        if r.size == 0:
            continue
        change = r[1:] != r[:-1]
        change |= p[1:] != p[:-1]
        starts = np.empty(np.count_nonzero(change) + 1, dtype=np.int64)
        starts[0] = 0
        starts[1:] = np.flatnonzero(change) + 1
        del change
        runs_r.append(r[starts].astype(np.int64))
        runs_p.append(p[starts].astype(np.int64))
        runs_n.append(np.diff(starts, append=r.size))
    if not runs_r:
        empty = np.zeros(0, np.int64)
        return empty, empty, empty
    r = np.concatenate(runs_r)
    p = np.concatenate(runs_p)
    n = np.concatenate(runs_n)
    order = np.lexsort((p, r))
    r, p, n = r[order], p[order], n[order]
    first = np.ones(len(r), dtype=bool)
    first[1:] = (r[1:] != r[:-1]) | (p[1:] != p[:-1])
    idx = np.flatnonzero(first)
    return r[idx], p[idx], np.add.reduceat(n, idx)


def _group_first(keys: np.ndarray) -> np.ndarray:
    """Indices of the first entry of each run of equal values in a sorted array."""
    first = np.ones(len(keys), dtype=bool)
    first[1:] = keys[1:] != keys[:-1]
    return np.flatnonzero(first)


def _areas(labels: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct labels, pixels of each) from table entries."""
    order = np.argsort(labels, kind="stable")
    sorted_labels = labels[order]
    idx = _group_first(sorted_labels)
    if len(idx) == 0:
        return sorted_labels, counts[:0]
    return sorted_labels[idx], np.add.reduceat(counts[order], idx)


def _best_partner(own: np.ndarray, other: np.ndarray, inter: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each distinct ``own`` label: the ``other`` label of largest intersection (lowest
    label on ties, like numpy's argmax) and that intersection."""
    order = np.lexsort((other, -inter, own))
    own_s = own[order]
    idx = _group_first(own_s)
    return own_s[idx], other[order][idx], inter[order][idx]


def _curve(matched_iou: np.ndarray, n_ref: float, n_pred: float) -> PanopticCurve:
    """Precision, recall and F-score for IoU thresholds at the distinct matched IoU values."""
    values, count = np.unique(matched_iou, return_counts=True)
    tp = np.flipud(np.cumsum(np.flip(count)))
    if len(values) == 0:
        z = np.zeros(0)
        return PanopticCurve(z, z, z, z)
    return PanopticCurve(values, tp / n_pred, tp / n_ref, 2 * tp / (n_pred + n_ref))


def _empty_table() -> SegmentTable:
    z = np.zeros(0, np.int64)
    return SegmentTable(z, z, z, z, np.zeros(0), np.zeros(0, bool))


def panoptic_quality(ref: np.ndarray, pred: np.ndarray, *, official: bool = False
                     ) -> PanopticResult:
    """COCO panoptic quality of ``pred`` against ``ref`` (masks or label maps, same shape).

    An empty prediction or an empty reference scores 0 (PQ, SQ and RQ). ``official=True``
    gives the value of ``icdar21-mapseg-eval`` 1.0.4 (see the module docstring).
    """
    ref_a, pred_a = np.asarray(ref), np.asarray(pred)
    for img, what in ((ref_a, "reference"), (pred_a, "prediction")):
        if img.ndim != 2:
            raise InputError(f"{what} must be a single-channel 2-D image, not shape {img.shape}")
    if ref_a.shape != pred_a.shape:
        raise InputError(f"reference is {ref_a.shape[1]} x {ref_a.shape[0]} px but prediction is "
                         f"{pred_a.shape[1]} x {pred_a.shape[0]} px; give images of one size")
    ref_l = segment_labels(ref_a, official=official, what="reference")
    pred_l = segment_labels(pred_a, official=official, what="prediction")
    table = overlap_table(ref_l, pred_l)
    if official:
        n_ref_labels = int(ref_l.max()) + 1 if ref_l.size else 1
        n_pred_labels = int(pred_l.max()) + 1 if pred_l.size else 1
        del ref_l, pred_l
        return _official_scores(table, n_ref_labels, n_pred_labels)
    del ref_l, pred_l
    return _scores(table)


def _scores(table: tuple[np.ndarray, np.ndarray, np.ndarray]) -> PanopticResult:
    """Correct COCO PQ from the overlap table: background never matches."""
    r, p, n = table
    ref_labels, ref_areas = _areas(r, n)
    pred_labels, pred_areas = _areas(p, n)
    keep_r, keep_p = ref_labels != 0, pred_labels != 0
    ref_labels, ref_areas = ref_labels[keep_r], ref_areas[keep_r]
    pred_labels, pred_areas = pred_labels[keep_p], pred_areas[keep_p]

    fg = (r != 0) & (p != 0)
    r, p, n = r[fg], p[fg], n[fg]
    area_r = ref_areas[np.searchsorted(ref_labels, r)]
    area_p = pred_areas[np.searchsorted(pred_labels, p)]
    iou = n / (area_r + area_p - n)
    matched_iou = np.sort(iou[iou > MATCH_IOU])

    n_ref, n_pred, tp = len(ref_labels), len(pred_labels), len(matched_iou)
    if n_ref == 0 or n_pred == 0:
        curve = _curve(matched_iou[:0], 1.0, 1.0)
        sq = rq = 0.0
    else:
        curve = _curve(matched_iou, float(n_ref), float(n_pred))
        sq = float(matched_iou.mean()) if tp else 0.0
        rq = float(curve.fscore[0]) if tp else 0.0
    return PanopticResult(
        pq=sq * rq, sq=sq, rq=rq, n_ref=n_ref, n_pred=n_pred, n_matched=tp,
        matched_iou=matched_iou, curve=curve,
        ref_segments=_segment_table(ref_labels, ref_areas, r, p, n, iou),
        pred_segments=_segment_table(pred_labels, pred_areas, p, r, n, iou))


def _segment_table(labels, areas, own, other, inter, iou) -> SegmentTable:
    """Best partner of each segment among the other side's segments (never background)."""
    best = np.zeros(len(labels), np.int64)
    best_inter = np.zeros(len(labels), np.int64)
    best_iou = np.zeros(len(labels))
    if len(own):
        order = np.lexsort((other, -inter, own))
        idx = order[_group_first(own[order])]
        at = np.searchsorted(labels, own[idx])
        best[at], best_inter[at], best_iou[at] = other[idx], inter[idx], iou[idx]
    return SegmentTable(labels, areas, best, best_inter, best_iou, best_iou > MATCH_IOU)


def _official_scores(table: tuple[np.ndarray, np.ndarray, np.ndarray], n_ref_labels: int,
                     n_pred_labels: int) -> PanopticResult:
    """``icdar21_mapseg_eval.COCO`` from the sparse table: labels 0..max each count (absent
    ones too), best matches may be the background, SQ averages the distinct IoU values."""
    if max(n_ref_labels, n_pred_labels) > _MAX_OFFICIAL_LABELS:
        raise OfficialToolFailure(f"labels up to {max(n_ref_labels, n_pred_labels) - 1} need "
                                  "a histogram too large for memory")
    r, p, n = table
    areas_gt = np.bincount(r, weights=n, minlength=n_ref_labels).astype(np.int64)
    areas_pred = np.bincount(p, weights=n, minlength=n_pred_labels).astype(np.int64)

    def best(own, other, n_own, other_areas, own_areas):
        labels, partner, inter = _best_partner(own, other, n)
        best_all = np.zeros(n_own, np.int64)
        inter_all = np.zeros(n_own, np.int64)
        best_all[labels], inter_all[labels] = partner, inter
        union = own_areas + other_areas[best_all] - inter_all
        iou = np.zeros(n_own)
        ok = union > 0
        iou[ok] = inter_all[ok] / union[ok]
        return best_all, inter_all, iou

    best_gt, inter_gt, iou_gt = best(r, p, n_ref_labels, areas_pred, areas_gt)
    best_pred, inter_pred, iou_pred = best(p, r, n_pred_labels, areas_gt, areas_pred)

    def side(best_all, inter_all, iou, areas):
        labels = np.arange(1, len(areas), dtype=np.int64)
        return SegmentTable(labels, areas[1:], best_all[1:], inter_all[1:], iou[1:],
                            iou[1:] > MATCH_IOU)

    ref_table = side(best_gt, inter_gt, iou_gt, areas_gt)
    pred_table = side(best_pred, inter_pred, iou_pred, areas_pred)
    a, b = iou_gt[1:], iou_pred[1:]
    result = {"ref_segments": ref_table, "pred_segments": pred_table, "official": True,
              "n_ref": a.size, "n_pred": b.size}
    if b.size == 0:  # "empty prediction": the official tool returns 0 before anything else
        z = np.zeros(0)
        return PanopticResult(pq=0.0, sq=0.0, rq=0.0, n_matched=0, matched_iou=z,
                              curve=PanopticCurve(z, z, z, z), **result)
    if a.size == 0:
        raise OfficialToolFailure("empty reference with a non-empty prediction")
    a1 = np.sort(a)[np.searchsorted(np.sort(a), MATCH_IOU, side="right"):]
    b1 = np.sort(b)[np.searchsorted(np.sort(b), MATCH_IOU, side="right"):]
    try:
        same = np.allclose(a1, b1)
    except ValueError:
        same = False
    if not same:
        raise OfficialToolFailure("a segment's best overlap is the other image's background "
                                  "with IoU > 0.5, which fails its matching assertion")
    curve = _curve(a1, float(a.size), float(b.size))
    sq = float(curve.thresholds.mean()) if len(curve.thresholds) else 0.0
    rq = float(curve.fscore[0]) if len(curve.thresholds) else 0.0
    return PanopticResult(pq=sq * rq, sq=sq, rq=rq, n_matched=len(a1), matched_iou=a1,
                          curve=curve, **result)
