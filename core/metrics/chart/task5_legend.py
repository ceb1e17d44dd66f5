"""Task 5, legend analysis: IoU of the predicted legend marks, per chart then averaged.

GT and predicted legend pairs are matched by text-block id. Per chart, ``iou_score`` is
Σ IoU(matched marks) / max(#GT, #pred) and ``recall_score`` the same with intersection / GT
area (2020); a chart without legend scores 1 for an empty prediction and 0 otherwise.

Official: each GT pair takes the first unused prediction with its id; IoU has no +1 and a
zero union gives 0, so a 0 px high line mark scores 0 even when exact, and the 2020 recall
divides by its zero area (crash); only charts with a prediction file are averaged (the
scripts walk the prediction folder). Default: same-id pairs are matched to maximise the
summed IoU, a mark thinner than 1 px is widened to 1 px around its centre line, and every GT
chart is averaged (no prediction file = an empty prediction).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ...errors import InputError
from .assignment import max_sum_pairs
from .boxes import legend_box_overlap
from .common import (
    ChartEvaluation,
    chart_id,
    crash,
    describe_exception,
    json_files,
    mode_name,
    read_json,
)


def legend_pairs(doc: Any, official: int | None, *, gt: bool) -> list:
    """The ``legend_pairs`` list (2020 and default also read a ``task1.5`` key)."""
    task = doc["task5"] if gt or official == 2019 or "task5" in doc else doc["task1.5"]
    pairs = task["output"]["legend_pairs"]
    if not isinstance(pairs, list):
        raise TypeError("legend_pairs is not a list")
    return pairs


def score_chart(gt_pairs: list, pred_pairs: list, official: int | None) -> dict[str, float]:
    """``{"score"}`` (2019) or ``{"iou_score", "recall_score"}`` of one chart."""
    if not gt_pairs:
        value = 1 if not pred_pairs else 0
        if official == 2019:
            return {"score": value}
        return {"iou_score": float(value), "recall_score": float(value)}
    if official:
        matches = _first_id_matches(gt_pairs, pred_pairs)
    else:
        matches = _best_id_matches(gt_pairs, pred_pairs)
    iou_sum = recall_sum = 0.0
    for g, r in matches:
        inter, area_gt, union = legend_box_overlap(gt_pairs[g]["bb"], pred_pairs[r]["bb"],
                                                   min_size=0.0 if official else 1.0)
        iou_sum += inter / float(union) if union else 0
        if official != 2019:
            recall_sum += inter / area_gt  # ZeroDivisionError on a 0-area GT mark (2020)
    n = max(len(gt_pairs), len(pred_pairs))
    if official == 2019:
        return {"score": iou_sum / n}
    return {"iou_score": iou_sum / n, "recall_score": recall_sum / n}


def _first_id_matches(gt_pairs: list, pred_pairs: list) -> list[tuple[int, int]]:
    used = [False] * len(pred_pairs)
    matches = []
    for g, gt_pair in enumerate(gt_pairs):
        for r, pred_pair in enumerate(pred_pairs):
            if not used[r] and pred_pair["id"] == gt_pair["id"]:
                used[r] = True
                matches.append((g, r))
                break
    return matches


def _best_id_matches(gt_pairs: list, pred_pairs: list) -> list[tuple[int, int]]:
    if not pred_pairs:
        return []
    iou = np.full((len(gt_pairs), len(pred_pairs)), -1.0)
    for g, gt_pair in enumerate(gt_pairs):
        for r, pred_pair in enumerate(pred_pairs):
            if pred_pair["id"] == gt_pair["id"]:
                inter, _, union = legend_box_overlap(gt_pair["bb"], pred_pair["bb"],
                                                     min_size=1.0)
                iou[g, r] = inter / union if union else 0.0
    rows, cols = max_sum_pairs(iou)
    return [(int(g), int(r)) for g, r in zip(rows, cols, strict=True) if iou[g, r] >= 0]


def evaluate_task5(gt_dir: Path, pred_dir: Path, *,
                   official: int | None = None) -> ChartEvaluation:
    """Score legend marks of ``pred_dir`` against ``gt_dir``."""
    ev = ChartEvaluation(task="5", mode=mode_name(official), result={})
    gt_paths = {chart_id(p): p for p in json_files(gt_dir, "GT")}
    pred_paths = {chart_id(p): p for p in json_files(pred_dir, "prediction")}
    ev.charts_without_prediction = sorted(set(gt_paths) - set(pred_paths))
    charts = sorted(pred_paths) if official else sorted(gt_paths)
    for cid in charts:
        if cid not in gt_paths:
            if official:
                raise crash(official, "5", cid, "FileNotFoundError: no GT file")
            continue
        try:
            ev.per_chart[cid] = _score_files(gt_paths[cid], pred_paths.get(cid), official, ev)
        except InputError as exc:
            if official:
                raise
            ev.problems.append((cid, str(exc)))
    for cid in sorted(set(pred_paths) - set(gt_paths)):
        if official is None:
            ev.problems.append((cid, "prediction without a GT file; ignored"))
    if not ev.per_chart:
        if official:
            raise crash(official, "5", None, "ZeroDivisionError: no prediction file")
        raise InputError(f"{gt_dir} holds no GT .json file to score; check the folder")
    keys = ["score"] if official == 2019 else ["iou_score", "recall_score"]
    scores = list(ev.per_chart.values())
    ev.result = {k: sum(s[k] for s in scores) / len(scores) for k in keys}
    return ev


def _score_files(gt_path: Path, pred_path: Path | None, official: int | None,
                 ev: ChartEvaluation) -> dict[str, float]:
    cid = chart_id(gt_path)
    try:
        gt_pairs = legend_pairs(read_json(gt_path), official, gt=True)
    except (KeyError, TypeError) as exc:
        if official:
            raise crash(official, "5", cid, f"GT: {describe_exception(exc)}") from exc
        raise InputError(f"{gt_path}: unusable task5 legend pairs "
                         f"({describe_exception(exc)})") from exc
    pred_pairs: list = []
    if pred_path is not None:
        try:
            pred_pairs = legend_pairs(read_json(pred_path), official, gt=False)
        except (InputError, KeyError, TypeError) as exc:
            if official:
                raise crash(official, "5", cid, describe_exception(exc)) from exc
            ev.problems.append((cid, f"prediction unusable, scored as empty "
                                     f"({describe_exception(exc)})"))
    try:
        return score_chart(gt_pairs, pred_pairs, official)
    except (KeyError, TypeError, ZeroDivisionError) as exc:
        if official:
            raise crash(official, "5", cid, describe_exception(exc)) from exc
        raise InputError(f"{cid}: unusable legend pair ({describe_exception(exc)})") from exc
