"""The chamfer-distance AP of the CVPR 2023 Online HD Map Construction challenge.

Steps (as the reference, Tsinghua-MARS-Lab/Online-HD-Map-Construction-CVPR2023
``vector_eval.py``): align predictions to GT frames by token (extra tokens ignored, missing
ones have no predictions); resample every line at ``sample_dist``; chamfer distance of every
(prediction, GT) pair of a frame and class; greedy matching by score to the nearest GT; AP per
class and threshold over all frames (VOC area); class AP = mean over thresholds; mAP = mean
over classes. ``official=False`` (the default) differs from the reference only where the
reference is wrong or crashes: see :func:`chamfer_ap` and docs/metrics-chamfer-ap.md.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...errors import InputError
from ...progress import ProgressCallback, report
from .ap import average_precisions
from .distance import chamfer_matrix
from .matching import FrameMatch, match_frame
from .model import (
    DEFAULT_THRESHOLDS,
    RESERVED_KEYS,
    ChamferApResult,
    ClassResult,
    GtFrames,
    PredFrames,
)
from .resample import SAMPLE_DIST, SampleLimitError, resample_polylines


def chamfer_ap(gt_frames: GtFrames, pred_frames: PredFrames,
               thresholds: Sequence[float] = DEFAULT_THRESHOLDS, *, official: bool = False,
               classes: Sequence[str] | None = None, sample_dist: float = SAMPLE_DIST,
               per_frame: bool = False,
               progress: ProgressCallback | None = None) -> ChamferApResult:
    """Chamfer-distance AP per class and threshold, and the mAP.

    Args:
        gt_frames: ``{token: {class: [(N, 2) polyline, ...]}}`` in frame order.
        pred_frames: ``{token: [Prediction, ...]}``; tokens not in ``gt_frames`` are ignored.
        thresholds: chamfer-distance thresholds (coordinate units), inclusive (``<=``).
        official: reproduce the reference exactly, including where it is wrong: a class
            without GT scores AP 0 and counts in the mAP; 1-point polylines and predictions
            with more than 2 coordinates are refused (the reference crashes on them).
            The default leaves a class without GT out (AP None, as COCO and mmdet's
            ``eval_map`` do), scores a 1-point polyline as a zero-length line and uses x, y of
            3-D predictions.
        classes: the classes to score, in order (the mAP is over all of them in official
            mode); default: GT classes in order of appearance, then prediction-only classes.
            GT classes not listed are ignored; a prediction of another class is an error.
        sample_dist: resampling spacing (coordinate units); the challenge's is 0.3 m.
        per_frame: also return per-frame matching details (``result.per_frame``).
        progress: called with the fraction done.
    """
    thresholds = _check_thresholds(thresholds)
    if not (math.isfinite(sample_dist) and sample_dist > 0):
        raise InputError(f"sample spacing must be a positive number, not {sample_dist}")
    class_names = _class_names(gt_frames, pred_frames, classes)
    data = _collect(gt_frames, pred_frames, class_names, official)
    try:
        samples, offsets = resample_polylines(data.lines, sample_dist)
    except SampleLimitError as exc:
        raise InputError(str(exc)) from None
    report(progress, 0.05, "resampled")

    pooled_scores: dict[str, list[np.ndarray]] = {name: [] for name in class_names}
    pooled_tp: dict[str, list[np.ndarray]] = {name: [] for name in class_names}
    details: dict[str, Any] | None = {} if per_frame else None
    for g, group in enumerate(data.groups):
        gt_off = offsets[group.first:group.first + group.n_gt + 1]
        pred_off = offsets[group.first + group.n_gt:group.first + group.n_gt + group.n_pred + 1]
        # per-frame details need every distance; the scores only those <= the max threshold
        cd = chamfer_matrix(samples[pred_off[0]:pred_off[-1]], pred_off - pred_off[0],
                            samples[gt_off[0]:gt_off[-1]], gt_off - gt_off[0],
                            max_cd=None if per_frame else max(thresholds))
        match = match_frame(cd, group.scores, thresholds)
        pooled_scores[group.name].append(group.scores)
        pooled_tp[group.name].append(match.tp)
        if details is not None:
            details.setdefault(str(group.token), {})[group.name] = _frame_details(
                match, thresholds, group.pred_index, np.diff(gt_off), np.diff(pred_off))
        if g % 64 == 0:
            report(progress, 0.05 + 0.9 * g / len(data.groups), "matching")

    results: dict[str, ClassResult] = {}
    for name in class_names:
        scores = np.concatenate(pooled_scores[name]) if pooled_scores[name] else np.zeros(0)
        tp = (np.concatenate(pooled_tp[name], axis=1) if pooled_tp[name]
              else np.zeros((len(thresholds), 0), dtype=bool))
        data.stats.add_ties(scores, tp)
        results[name] = _class_result(scores, tp, data.num_gts[name], data.num_preds[name],
                                      official)
    report(progress, 1.0, "done")

    scored = [r.ap for r in results.values() if r.ap is not None]
    mean_ap = None
    if scored:  # all classes in official mode; those with GT otherwise
        total = 0.0
        for ap in scored:
            total += ap
        mean_ap = total / len(scored)
    warnings = data.stats.warnings(results, official)
    return ChamferApResult(mean_ap, results, thresholds, official, float(sample_dist),
                           data.stats.as_dict(), tuple(warnings), details)


@dataclass
class _Group:
    """The GT lines and predictions of one frame and class: ``lines[first:first + n_gt]``
    are the GT, the next ``n_pred`` the predictions (``pred_index``: their index in the
    frame's predictions)."""

    token: Any
    name: str
    first: int
    n_gt: int
    n_pred: int
    pred_index: list[int]
    scores: np.ndarray


@dataclass
class _Collected:
    lines: list[np.ndarray]
    groups: list[_Group]
    num_gts: dict[str, int]
    num_preds: dict[str, int]
    stats: _Stats


def _collect(gt_frames: GtFrames, pred_frames: PredFrames, class_names: tuple[str, ...],
             official: bool) -> _Collected:
    """Validate every line and score; group them by frame (GT order) and class."""
    data = _Collected([], [], dict.fromkeys(class_names, 0), dict.fromkeys(class_names, 0),
                      _Stats(class_names))
    for token, gt in gt_frames.items():
        if not isinstance(gt, Mapping):
            raise InputError(f"frame {token}: GT must map class names to lists of lines")
        preds = list(pred_frames.get(token, ()))
        by_class: dict[str, list[int]] = {name: [] for name in class_names}
        for index, pred in enumerate(preds):
            if pred.label not in by_class:
                raise InputError(f"frame {token}: prediction {index} has class {pred.label!r}, "
                                 f"not one of {', '.join(map(repr, class_names))}")
            by_class[pred.label].append(index)
        frame_gt: dict[str, list[np.ndarray]] = {}
        for name in class_names:
            gt_lines = [_polyline(line, official, f"frame {token}: GT {name} line {k}", pred=False)
                        for k, line in enumerate(gt.get(name, ()))]
            pred_lines = [_polyline(preds[i].points, official,
                                    f"frame {token}: prediction {i}", pred=True)
                          for i in by_class[name]]
            scores = np.array([_score(preds[i].score, token, i) for i in by_class[name]],
                              dtype=np.float64)
            data.groups.append(_Group(token, name, len(data.lines), len(gt_lines),
                                      len(pred_lines), by_class[name], scores))
            data.lines.extend(gt_lines)
            data.lines.extend(pred_lines)
            data.num_gts[name] += len(gt_lines)
            data.num_preds[name] += len(pred_lines)
            frame_gt[name] = gt_lines
        data.stats.add_frame(frame_gt, sum(len(v) for v in by_class.values()))
    data.stats.finish_tokens(list(gt_frames), pred_frames)
    return data


def _class_result(scores: np.ndarray, tp: np.ndarray, num_gts: int, num_preds: int,
                  official: bool) -> ClassResult:
    """AP at each threshold and the class AP from pooled scores and ``(T, N)`` TP flags."""
    num_tp = tuple(int(n) for n in tp.sum(axis=1))
    if num_gts == 0 and not official:  # recall 0/0: undefined
        return ClassResult(0, num_preds, (None,) * len(tp), None, num_tp)
    aps = average_precisions(scores, tp, num_gts)
    total = 0.0
    for ap in aps:  # summed in threshold order, as the reference
        total += ap
    return ClassResult(num_gts, num_preds, tuple(aps), total / len(aps), num_tp)


def _check_thresholds(thresholds: Sequence[float]) -> tuple[float, ...]:
    try:
        values = tuple(float(t) for t in thresholds)
    except (TypeError, ValueError):
        raise InputError(f"thresholds must be numbers, not {thresholds!r}") from None
    if not values:
        raise InputError("give at least one threshold")
    if any(not (math.isfinite(t) and t >= 0) for t in values):
        raise InputError(f"thresholds must be finite and >= 0, not {list(values)}")
    if len(set(values)) != len(values):
        raise InputError(f"thresholds must be distinct, not {list(values)}")
    return values


def _class_names(gt_frames: GtFrames, pred_frames: PredFrames,
                 classes: Sequence[str] | None) -> tuple[str, ...]:
    if classes is None:
        seen: dict[str, None] = {}
        for gt in gt_frames.values():
            seen.update(dict.fromkeys(gt))
        for preds in pred_frames.values():
            seen.update((p.label, None) for p in preds)
        names = tuple(seen)
    else:
        names = tuple(classes)
        if len(set(names)) != len(names):
            raise InputError(f"classes must be distinct, not {list(names)}")
    for name in names:
        if not isinstance(name, str) or not name:
            raise InputError(f"class names must be non-empty strings, not {name!r}")
        if name in RESERVED_KEYS:
            raise InputError(f"class name {name!r} is reserved for the result's "
                             f"{name!r} entry; rename that class")
    return names


def _polyline(points: Any, official: bool, what: str, *, pred: bool) -> np.ndarray:
    """An ``(N, 2)`` float64 C-contiguous polyline, or an InputError saying what is wrong."""
    try:
        arr = np.asarray(points, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{what}: points must be [[x, y], ...] numbers") from None
    if arr.ndim != 2 or arr.shape[1] < 2:
        if arr.size == 0:
            raise InputError(f"{what}: empty polyline; remove it or give at least 2 points")
        raise InputError(f"{what}: points must be [[x, y], ...], got shape {arr.shape}")
    if official and pred and arr.shape[1] != 2:
        raise InputError(f"{what}: {arr.shape[1]} coordinates per point; the reference "
                         "crashes on predictions that are not 2-D (run without --official to "
                         "use x, y)")
    if official and len(arr) == 1:
        raise InputError(f"{what}: a single point; the reference crashes on 1-point lines "
                         "(run without --official to score it as a zero-length line)")
    arr = np.ascontiguousarray(arr[:, :2])
    if not np.isfinite(arr).all():
        raise InputError(f"{what}: coordinates must be finite numbers")
    return arr


def _score(score: Any, token: Any, index: int) -> float:
    try:
        value = float(score)
    except (TypeError, ValueError):
        raise InputError(f"frame {token}: prediction {index}: score must be a number, "
                         f"not {score!r}") from None
    if not math.isfinite(value):
        raise InputError(f"frame {token}: prediction {index}: score must be finite")
    return value


def _frame_details(match: FrameMatch, thresholds: tuple[float, ...], pred_index: list[int],
                   gt_samples: np.ndarray, pred_samples: np.ndarray) -> dict[str, Any]:
    no_gt = len(gt_samples) == 0
    out: dict[str, Any] = {
        "gt_samples": gt_samples.tolist(),
        "pred_index": list(pred_index),
        "pred_samples": pred_samples.tolist(),
        "nearest_gt": [None if no_gt else int(i) for i in match.nearest_gt],
        "min_cd": [None if no_gt else float(d) for d in match.min_cd],
    }
    for t, thr in enumerate(thresholds):
        out[f"tp@{thr}"] = match.tp[t].astype(int).tolist()
    return out


class _Stats:
    """Counts reported with the result: frames, lines, tokens, ties."""

    def __init__(self, class_names: tuple[str, ...]) -> None:
        self.class_names = class_names
        self.frames = 0
        self.frames_without_gt = 0
        self.gt_lines = dict.fromkeys(class_names, 0)
        self.gt_points = 0
        self.closed_gt_lines = 0
        self.pred_lines_evaluated = 0
        self.missing_tokens: list[str] = []
        self.extra_tokens: list[str] = []
        self.pred_tokens = 0
        self.pred_lines_in_file = 0
        self.tie_groups = 0
        self.tied_preds = 0
        self.mixed_tie_groups = 0

    def add_frame(self, gt: dict[str, list[np.ndarray]], n_preds: int) -> None:
        self.frames += 1
        for name, lines in gt.items():
            self.gt_lines[name] += len(lines)
            self.gt_points += sum(len(line) for line in lines)
            self.closed_gt_lines += sum(len(line) > 2 and bool((line[0] == line[-1]).all())
                                        for line in lines)
        if not any(gt.values()):
            self.frames_without_gt += 1
        self.pred_lines_evaluated += n_preds

    def finish_tokens(self, tokens: list[Any], pred_frames: PredFrames) -> None:
        gt_set = set(tokens)
        self.missing_tokens = [str(t) for t in tokens if t not in pred_frames]
        self.extra_tokens = [str(t) for t in pred_frames if t not in gt_set]
        self.pred_tokens = len(pred_frames)
        self.pred_lines_in_file = sum(len(p) for p in pred_frames.values())

    def add_ties(self, scores: np.ndarray, tp: np.ndarray) -> None:
        """Count groups of equal scores within a class (their order is arbitrary)."""
        if len(scores) < 2:
            return
        _, inverse, counts = np.unique(scores, return_inverse=True, return_counts=True)
        tied = counts > 1
        self.tie_groups += int(tied.sum())
        self.tied_preds += int(counts[tied].sum())
        # a group is "mixed" when its members differ in TP/FP at some threshold
        order = np.argsort(inverse, kind="stable")
        first_of_group = np.zeros(len(counts), dtype=np.intp)
        np.cumsum(counts[:-1], out=first_of_group[1:])
        leader = order[first_of_group[inverse]]  # first member of each prediction's group
        differs = (tp != tp[:, leader]).any(axis=0)
        self.mixed_tie_groups += len(np.unique(inverse[differs]))

    def as_dict(self) -> dict[str, Any]:
        return {
            "frames": self.frames, "frames_without_gt": self.frames_without_gt,
            "gt_lines": dict(self.gt_lines), "gt_points": self.gt_points,
            "closed_gt_lines": self.closed_gt_lines, "pred_tokens": self.pred_tokens,
            "pred_lines_in_file": self.pred_lines_in_file,
            "pred_lines_evaluated": self.pred_lines_evaluated,
            "missing_tokens": self.missing_tokens, "extra_tokens": self.extra_tokens,
            "tie_groups": self.tie_groups, "tied_preds": self.tied_preds,
            "mixed_tie_groups": self.mixed_tie_groups,
        }

    def warnings(self, results: dict[str, ClassResult], official: bool) -> list[str]:
        out = []
        if self.extra_tokens:
            out.append(f"{len(self.extra_tokens)} prediction token(s) are not in the GT and "
                       f"were ignored: {', '.join(self.extra_tokens[:5])}"
                       + (", ..." if len(self.extra_tokens) > 5 else ""))
        if self.missing_tokens:
            out.append(f"{len(self.missing_tokens)} GT frame(s) have no predictions: "
                       f"{', '.join(self.missing_tokens[:5])}"
                       + (", ..." if len(self.missing_tokens) > 5 else ""))
        for name, res in results.items():
            if res.num_gts == 0:
                out.append(f"class {name!r} has no GT: AP 0, counted in the mAP (reference)"
                           if official else
                           f"class {name!r} has no GT: AP undefined (null), left out of the "
                           "mAP")
        if self.mixed_tie_groups:
            out.append(f"{self.mixed_tie_groups} group(s) of predictions with equal scores "
                       "differ in TP/FP: they are ranked in input order; the reference's order "
                       "of ties depends on its numpy build, so its AP may differ")
        return out
