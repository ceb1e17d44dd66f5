"""Task 4, axis analysis: tick points scored by distance, recall, precision, F-measure.

GT and predicted ticks are paired by text-block id within the same axis (``x-axis`` is the
independent-variable axis). A tick at distance d (pixels) scores 1 if d <= close, 0 if
d >= far, linearly in between; close and far are 1 % and 2 % of the image diagonal. For an
axis: ``score`` = sum over the GT ticks; recall = score/#GT, precision = score/#pred; an
empty GT axis has recall 1, an empty predicted axis precision 1, and two empty axes score 1.

Officially a chart's R and P are the means over its two axes, the totals are means over the
GT charts (no prediction file: 0) and F is the harmonic mean of the two totals; the x-axis
precision is zeroed when the GT x-axis is empty and the *predicted y-axis* is not (a typo),
and 2019 drops the dots of chart ids (dotted ids find no prediction). The default tests the
right axis, and, as the competition describes, averages the F-measure of every axis: a
chart's F is the mean of its two axis F-measures and ``f_measure`` is the mean over all axes.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from ...errors import InputError
from .common import (
    ChartEvaluation,
    chart_id,
    crash,
    describe_exception,
    dotless_id,
    dotted_id,
    harmonic_mean,
    json_files,
    mode_name,
    nothing_scored,
    read_json,
)
from .images import chart_size

CLOSE_FRACTION = 0.01
FAR_FRACTION = 0.02


def tick_points(doc: Any, *, numeric_strings: bool = False) -> tuple[dict, dict]:
    """{id: (x, y)} of the x-axis and y-axis; null ids dropped, a repeated id keeps the last."""
    axes = doc["task4"]["output"]["axes"]
    out = []
    for name in ("x-axis", "y-axis"):
        ticks = {}
        for tick in axes[name]:
            tid, pt = tick["id"], tick["tick_pt"]
            x, y = pt["x"], pt["y"]
            if numeric_strings:
                x, y = float(x), float(y)
            if tid is not None:
                ticks[tid] = (x, y)
        out.append(ticks)
    return out[0], out[1]


def distance_score(d: float, close: float, far: float) -> float:
    """1 up to ``close``, 0 from ``far``, linear in between."""
    if d <= close:
        return 1.0
    if d >= far:
        return 0.0
    return 1.0 - (d - close) / (far - close)


def axis_score(gt: dict, pred: dict, close: float, far: float) -> float:
    """Summed tick scores of one axis (1 when both are empty)."""
    if not gt and not pred:
        return 1.0
    score = 0.0
    for tid, (gx, gy) in gt.items():
        if tid in pred:
            px, py = pred[tid]
            score += distance_score(math.sqrt((gx - px) ** 2 + (gy - py) ** 2), close, far)
    return score


def axis_values(gt: dict, pred: dict, score: float) -> tuple[float, float]:
    """(recall, precision) of one axis before the official typo rule."""
    recall = score / len(gt) if gt else 1.0
    precision = score / len(pred) if pred else 1.0
    return recall, precision


def score_chart(gt_axes: tuple[dict, dict], pred_axes: tuple[dict, dict], width: int,
                height: int, official: int | None) -> dict[str, float]:
    """Per-axis and chart recall/precision/F of one chart of ``width`` x ``height`` px."""
    diag = (height ** 2 + width ** 2) ** 0.5
    close, far = CLOSE_FRACTION * diag, FAR_FRACTION * diag
    (gx, gy), (px, py) = gt_axes, pred_axes
    rx, prx = axis_values(gx, px, axis_score(gx, px, close, far))
    ry, pry = axis_values(gy, py, axis_score(gy, py, close, far))
    # the scripts' typo tests the predicted y-axis for the x precision; the default does not
    prx = 0.0 if not gx and (py if official else px) else prx
    pry = 0.0 if not gy and py else pry
    out = {"recall_x": rx, "recall_y": ry, "precision_x": prx, "precision_y": pry,
           "recall": (rx + ry) / 2.0, "precision": (prx + pry) / 2.0}
    if official:
        out["f_measure"] = harmonic_mean(out["recall"], out["precision"])
    else:
        out["f_measure_x"] = harmonic_mean(rx, prx)
        out["f_measure_y"] = harmonic_mean(ry, pry)
        out["f_measure"] = (out["f_measure_x"] + out["f_measure_y"]) / 2.0
    return out


def evaluate_task4(gt_dir: Path, pred_dir: Path, images: Path | None, *,
                   official: int | None = None) -> ChartEvaluation:
    """Score tick points of ``pred_dir`` against ``gt_dir``; ``images`` gives chart sizes."""
    if images is None:
        raise InputError("task 4 needs the chart images for their size; give --images DIR")
    ev = ChartEvaluation(task="4", mode=mode_name(official), result={})
    gt_paths = json_files(gt_dir, "GT")
    json_files(pred_dir, "prediction")
    if not gt_paths:
        raise InputError(f"{gt_dir} holds no GT .json file; check the folder")
    stem_of = {2019: dotless_id}.get(official, dotted_id)
    zero = {"recall_x": 0.0, "recall_y": 0.0, "precision_x": 0.0, "precision_y": 0.0,
            "recall": 0.0, "precision": 0.0, "f_measure": 0.0}
    for gt_path in gt_paths:
        cid, stem = chart_id(gt_path), stem_of(gt_path.name)
        pred_path = Path(pred_dir) / (stem + ".json")
        if not pred_path.is_file():
            ev.charts_without_prediction.append(cid)
            if official:
                ev.per_chart[cid] = dict(zero)
                continue
        try:
            ev.per_chart[cid] = _score_file(gt_path, pred_path, images, stem, official, ev)
        except InputError as exc:
            if official:
                raise
            ev.problems.append((cid, str(exc)))
    charts = list(ev.per_chart.values())
    if not charts:
        raise nothing_scored(ev)
    recall = sum(c["recall"] for c in charts) / len(gt_paths if official else charts)
    precision = sum(c["precision"] for c in charts) / len(gt_paths if official else charts)
    if official:
        f_measure = harmonic_mean(recall, precision)
    else:
        f_measure = sum(c["f_measure"] for c in charts) / len(charts)
    ev.result = {"recall": recall, "precision": precision, "f_measure": f_measure}
    return ev


def _score_file(gt_path: Path, pred_path: Path, images: Path | None, stem: str,
                official: int | None, ev: ChartEvaluation) -> dict[str, float]:
    cid = chart_id(gt_path)
    try:
        gt_axes = tick_points(read_json(gt_path), numeric_strings=not official)
    except (KeyError, TypeError, ValueError) as exc:
        if official:
            raise crash(official, "4", cid, f"GT: {describe_exception(exc)}") from exc
        raise InputError(f"{gt_path}: unusable task4 axes ({describe_exception(exc)})") from exc
    pred_axes: tuple[dict, dict] = ({}, {})
    if pred_path.is_file():
        try:
            pred_axes = tick_points(read_json(pred_path), numeric_strings=not official)
        except (InputError, KeyError, TypeError, ValueError) as exc:
            if official:
                raise crash(official, "4", cid, describe_exception(exc)) from exc
            ev.problems.append((cid, f"prediction unusable, scored as empty "
                                     f"({describe_exception(exc)})"))
    try:
        width, height = chart_size(images, stem, task="4", official=bool(official))
    except InputError as exc:
        if official:
            raise crash(official, "4", cid, f"no image: {exc}") from exc
        raise
    try:
        return score_chart(gt_axes, pred_axes, width, height, official)
    except TypeError as exc:  # official only: non-numeric coordinates of a paired tick
        raise crash(official, "4", cid, describe_exception(exc)) from exc
