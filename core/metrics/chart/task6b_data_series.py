"""Tasks 6b and 7, data extraction: named data series matched to the GT series.

Each chart is a list of ``{"name", "data"}`` series. Every predicted x GT series pair gets a
data score ``m`` from the series type (series_metrics.py, continuous.py) and a name cost
``L = NED(pred name, GT name)^α``; series are paired by the minimum-cost assignment (padded
with cost 1) and the chart scores ``1 - Σ cost / max(#pred, #GT)``.

- 2020: ``cost = 0.25·L + 0.75·(1 - m)`` (β1 = 0.75), plus ``name_score`` and
  ``data_score`` from the name and data costs on the same assignment; a GT name starting
  with ``[unnamed category #`` costs 0 against an empty or same-prefix name.
- 2019: ``cost = min(1 - m/2, 1 - (1 - L)·m)``, the metric.tex formula with β = 2.
- Default: the metric.tex formula as 2019, with the GT name ignored (L = 0) when the chart
  has no series names (empty or ``[unnamed`` GT name), as the competition says; it also
  reports ``name_score`` and ``data_score`` as 2020 does.

The series type: ``box`` in the chart type -> box statistics; else discrete when a GT x is
not a number; else scatter or line by chart type (2019: exactly ``Scatter`` / ``Line``);
else 2020 and the default score bar charts as discrete and 2019 raises "Odd Case".
Official runs average over the prediction files; the default over every GT chart.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import InputError
from .assignment import pad_square, solve_min
from .common import (
    ChartEvaluation,
    chart_id,
    crash,
    describe_exception,
    is_number_like,
    json_files,
    mode_name,
    nothing_scored,
    read_json,
)
from .continuous import SeriesError, continuous_score
from .series_metrics import (
    box_2019,
    box_2020,
    box_default,
    discrete_2019,
    discrete_2020,
    discrete_default,
    scatter_2019,
    scatter_2020,
    scatter_default,
)
from .strings import normalized_edit_distance

UNNAMED = "[unnamed category #"
ALPHA, GAMMA = 1.0, 1.0
BETA_2019 = 2.0
BETA1_2020 = BETA2_2020 = 0.75


def data_series(doc: Any, official: int | None) -> Any:
    """The ``data series`` list (2020 and default also read a top-level ``task6_output``)."""
    if official != 2019 and "task6_output" in doc:
        return doc["task6_output"]["data series"]
    return doc["task6"]["output"]["data series"]


def preprocess(series: list, gt_type: str, *, strict: bool = True) -> list:
    """2020 input handling (also used by the default), on a copy.

    Box series in the 2020 layout (one series whose data is a list of ``{x, five stats}``)
    become one series per box, named by its ``x`` (else ``y``, else the series name);
    ``y2`` is renamed ``y``;
    points whose y is not a number are dropped (``strict``: a null y raises TypeError, as in
    the script; otherwise it is dropped too).
    """
    series = copy.deepcopy(series)
    if "box" in gt_type.lower() and series and isinstance(series[0]["data"], list):
        boxes = []
        for s in series:
            for element in s["data"]:
                key = next((k for k in ("x", "y") if k in element), None)
                boxes.append({"name": element[key] if key else s["name"],
                              "data": {k: v for k, v in element.items() if k != key}})
        series = boxes
    for s in series:
        if not isinstance(s["data"], list):
            continue
        kept = []
        for point in s["data"]:
            if "y2" in point:
                point["y"] = point.pop("y2")
            try:
                float(point["y"])
            except ValueError:
                continue
            except TypeError:
                if strict:
                    raise
                continue
            kept.append(point)
        s["data"] = kept
    return series


def _is_discrete(gt: list) -> bool:
    return any(not is_number_like(p["x"]) for s in gt for p in s["data"])


def data_comparator(gt: list, gt_type: str, official: int | None):
    """``compare(pred data, GT data) -> score`` for the chart's series type."""
    low = gt_type.lower()
    if "box" in low:
        if official == 2020:
            return lambda p, g: box_2020(p, g, ALPHA, BETA2_2020, GAMMA)
        if official == 2019:
            return lambda p, g: box_2019(p, g, ALPHA, GAMMA)
        return lambda p, g: box_default(p, g, GAMMA)
    discrete = {2020: lambda p, g: discrete_2020(p, g, ALPHA, BETA2_2020, GAMMA),
                2019: lambda p, g: discrete_2019(p, g, ALPHA, GAMMA),
                None: lambda p, g: discrete_default(p, g, ALPHA, GAMMA)}[official]
    if _is_discrete(gt):
        return discrete
    if official == 2019:
        if gt_type == "Scatter":
            return lambda p, g: scatter_2019(p, g, GAMMA)
        if gt_type == "Line":
            return lambda p, g: continuous_score(p, g, "2019")
        raise ValueError("Exception: Odd Case")
    if "scatter" in low if official is None else low == "scatter":
        return {2020: lambda p, g: scatter_2020(p, g, GAMMA),
                None: lambda p, g: scatter_default(p, g, GAMMA)}[official]
    if "line" in low if official is None else low == "line":
        rule = "2020-6b" if official else "default"
        return lambda p, g: continuous_score(p, g, rule)
    if "bar" in low or official is None:
        return discrete
    raise ValueError("Exception: Odd Case")


def _name_cost(pred_name: Any, gt_name: Any, official: int | None) -> float:
    if official == 2019:
        if not (isinstance(pred_name, str) and isinstance(gt_name, str)):
            raise TypeError("a series name is not a string")
        return normalized_edit_distance(pred_name, gt_name) ** ALPHA
    p, g = str(pred_name), str(gt_name)
    if official is None and (not g or g.startswith("[unnamed")):
        return 0.0
    if g.startswith(UNNAMED) and (not p or p.startswith(UNNAMED)):
        return 0.0
    return normalized_edit_distance(p, g) ** ALPHA


def score_chart(pred: list, gt: list, gt_type: str, official: int | None) -> dict[str, float]:
    """``{"score", "name_score", "data_score"}`` (2019: ``{"score"}``) of one chart."""
    if official is None and not gt:
        return {"score": float(not pred), "name_score": float(not pred),
                "data_score": float(not pred)}
    compare = data_comparator(gt, gt_type, official)
    data = np.array([[compare(p["data"], g["data"]) for g in gt] for p in pred],
                    dtype=float).reshape(len(pred), len(gt))
    names = np.array([[_name_cost(p["name"], g["name"], official) for g in gt] for p in pred],
                     dtype=float).reshape(len(pred), len(gt))
    if official == 2020:
        cost = (1 - BETA1_2020) * names + BETA1_2020 * (1 - data)
    else:
        cost = np.minimum(1 - data / BETA_2019, 1 - (1 - names) * data)
    square = pad_square(cost)
    k = square.shape[0]
    rows, cols = solve_min(square)
    with np.errstate(invalid="ignore", divide="ignore"):
        score = float(1 - np.float64(square[rows, cols].sum()) / k)
        if official == 2019:
            return {"score": score}
        name_score = float(1 - np.float64(pad_square(names)[rows, cols].sum()) / k)
        data_score = float(1 - np.float64(pad_square(1 - data)[rows, cols].sum()) / k)
    return {"score": score, "name_score": name_score, "data_score": data_score}


def evaluate_task6b(gt_dir: Path, pred_dir: Path, *,
                    official: int | None = None) -> ChartEvaluation:
    """Score data series of ``pred_dir`` against ``gt_dir``."""
    ev = ChartEvaluation(task="6b", mode=mode_name(official), result={})
    gt_paths = {chart_id(p): p for p in json_files(gt_dir, "GT")}
    pred_paths = {chart_id(p): p for p in json_files(pred_dir, "prediction")}
    ev.charts_without_prediction = sorted(set(gt_paths) - set(pred_paths))
    types: dict[str, str] = {}
    for cid in sorted(pred_paths) if official else sorted(gt_paths):
        if cid not in gt_paths:
            raise crash(official, "6b", cid, "FileNotFoundError: no GT file")
        try:
            ev.per_chart[cid], types[cid] = _score_files(gt_paths[cid], pred_paths.get(cid),
                                                         official, ev)
        except InputError as exc:
            if official:
                raise
            ev.problems.append((cid, str(exc)))
    if official is None:
        ev.problems += [(cid, "prediction without a GT file; ignored")
                        for cid in sorted(set(pred_paths) - set(gt_paths))]
    if not ev.per_chart:
        if official:
            raise crash(official, "6b", None, "ZeroDivisionError: no prediction file")
        raise nothing_scored(ev)
    keys = ["score"] if official == 2019 else ["score", "name_score", "data_score"]
    charts = list(ev.per_chart.values())
    ev.result = {k: sum(c[k] for c in charts) / len(charts) for k in keys}
    if official != 2019:
        by_type: dict[str, list[dict]] = {}
        for cid, t in types.items():
            by_type.setdefault(t, []).append(ev.per_chart[cid])
        ev.result["score_by_type"] = {
            t: {k: sum(c[k] for c in v) / len(v) for k in keys} for t, v in sorted(by_type.items())}
    return ev


def _score_files(gt_path: Path, pred_path: Path | None, official: int | None,
                 ev: ChartEvaluation) -> tuple[dict[str, float], str]:
    cid = chart_id(gt_path)
    gt_doc = read_json(gt_path)
    try:
        gt_type = gt_doc["task1"]["output"]["chart_type"]
        gt = data_series(gt_doc, official)
        if official != 2019:
            gt = preprocess(gt, gt_type, strict=bool(official))
    except (KeyError, TypeError, AttributeError) as exc:
        if official:
            raise crash(official, "6b", cid, f"GT: {describe_exception(exc)}") from exc
        raise InputError(f"{gt_path}: no usable chart type or task6 data series "
                         f"({describe_exception(exc)})") from exc
    pred: list = []
    if pred_path is not None:
        try:
            pred = data_series(read_json(pred_path), official)
            if official != 2019:
                pred = preprocess(pred, gt_type, strict=bool(official))
            if official is None:
                _check_series(pred)
        except (InputError, KeyError, TypeError, AttributeError) as exc:
            if official:
                raise crash(official, "6b", cid, describe_exception(exc)) from exc
            ev.problems.append((cid, f"prediction unusable, scored as empty "
                                     f"({describe_exception(exc)})"))
            pred = []
    try:
        return score_chart(pred, gt, gt_type, official), gt_type
    except (KeyError, TypeError, ValueError, IndexError, AttributeError,
            np.linalg.LinAlgError, SeriesError) as exc:
        if official:
            raise crash(official, "6b", cid, describe_exception(exc)) from exc
        raise InputError(f"{cid}: unusable data series ({describe_exception(exc)})") from exc


def _check_series(series: Any) -> None:
    """Default mode: a prediction must be a list of ``{"name", "data"}`` objects."""
    if not isinstance(series, list) or not all(
            isinstance(s, dict) and "data" in s for s in series):
        raise TypeError("data series must be a list of {name, data} objects")
    for s in series:
        s.setdefault("name", "")
        if isinstance(s["data"], list) and not all(
                isinstance(p, dict) and "x" in p and "y" in p for p in s["data"]):
            raise TypeError("every data point must be an object with x and y")
