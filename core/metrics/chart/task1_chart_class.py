"""Task 1, chart classification: average per-class recall, precision and F-measure.

Classes are the lower-cased, stripped GT chart types. Single-series bar charts listed in the
ambiguity file may be predicted as grouped or stacked: both sides of such a chart have their
first word rewritten to ``grouped`` (the prediction only when it says grouped or stacked).
Per GT class: R = |GT ∩ P| / |GT|, P = |GT ∩ P| / |P|, F = 2RP / (R + P); the scores are the
plain means over the GT classes. A predicted class that no GT chart has only costs recall.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...errors import InputError
from .common import (
    ChartEvaluation,
    chart_id,
    crash,
    describe_exception,
    dotless_id,
    json_files,
    mode_name,
    nothing_scored,
    read_json,
    unusable_prediction,
)

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".tif", ".tiff", ".gif", ".bmp", ".json")


def read_ambiguous_ids(path: Path, official: int | None) -> set[str]:
    """Chart ids of the ambiguity file (one ``<id>.png`` per line).

    The scripts keep the text before the first dot, so a dotted id never matches; the
    default keeps the whole line less a known image/JSON suffix.
    """
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read the ambiguous ids file ({exc})") from exc
    if official is not None:
        return {line.strip().split(".")[0] for line in lines}
    ids = set()
    for line in lines:
        name = line.strip()
        if name.lower().endswith(IMAGE_SUFFIXES):
            name = name.rsplit(".", 1)[0]
        if name:
            ids.add(name)
    return ids


def read_class_mapping(path: Path) -> dict[str, str]:
    """The synonym -> class JSON object of ``--class-mapping``."""
    mapping = read_json(Path(path))
    if not isinstance(mapping, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in mapping.items()):
        raise InputError(f"{path} must be a JSON object of strings (synonym -> class)")
    return mapping


def _grouped(label: str) -> str:
    return " ".join(["grouped", *label.split(" ")[1:]])


def parse_prediction(doc: Any, official: int | None) -> str:
    """The predicted label of a prediction file, lower-cased and stripped.

    2020 and default accept ``task1.output.chart_type`` (a string, or a list: its first
    element), ``task1.output`` as a string and ``task1`` as a string; 2019 only the first
    and the second. Raises KeyError/TypeError/AttributeError/IndexError when unusable.
    """
    if official == 2019:
        pred = doc["task1"]["output"]
        if "chart_type" in pred:  # a substring test when output is a string, as in 2019
            pred = doc["task1"]["output"]["chart_type"]
        return pred.lower().strip()
    pred = doc["task1"]
    if isinstance(pred, dict):
        pred = pred["output"]
        if isinstance(pred, dict):
            pred = pred["chart_type"]
    if isinstance(pred, list):
        pred = pred[0]
    return pred.lower().strip()


def evaluate_task1(gt_dir: Path, pred_dir: Path, *, official: int | None = None,
                   ambiguous: Path | None = None,
                   class_mapping: Path | None = None) -> ChartEvaluation:
    """Score chart classification of ``pred_dir`` against ``gt_dir`` (one JSON per chart)."""
    if official == 2019 and class_mapping is not None:
        raise InputError("the 2019 task 1 script takes no class mapping; drop --class-mapping")
    ambiguous_ids = read_ambiguous_ids(ambiguous, official) if ambiguous else set()
    mapping = read_class_mapping(class_mapping) if class_mapping else {}
    if official is None:
        mapping = {k.lower().strip(): v.lower().strip() for k, v in mapping.items()}
    ev = ChartEvaluation(task="1", mode=mode_name(official), result={})
    key_of = dotless_id if official else (lambda name: chart_id(Path(name)))

    truth: dict[str, str] = {}
    shown_id: dict[str, str] = {}
    for path in json_files(gt_dir, "GT"):
        key = key_of(path.name)
        try:
            doc = read_json(path)
            label = doc["task1"]["output"]["chart_type"].lower().strip()
        except InputError as exc:
            if official:
                raise
            ev.problems.append((chart_id(path), str(exc)))
            continue
        except (KeyError, TypeError, AttributeError) as exc:
            if official:
                raise crash(official, "1", chart_id(path), describe_exception(exc)) from exc
            ev.problems.append((chart_id(path), "GT without a task1.output.chart_type "
                                                "string; chart left out"))
            continue
        if key in ambiguous_ids:
            label = _grouped(label)
        truth[key] = label
        shown_id[key] = chart_id(path)
    if not truth:
        raise nothing_scored(ev)

    predicted: dict[str, str] = {}
    for path in json_files(pred_dir, "prediction"):
        key = key_of(path.name)
        try:
            doc = read_json(path)
        except InputError as exc:
            if official:
                raise crash(official, "1", chart_id(path), "unreadable JSON") from exc
            ev.problems.append((chart_id(path), str(exc)))
            continue
        try:
            label = parse_prediction(doc, official)
        except (KeyError, TypeError, AttributeError, IndexError) as exc:
            if official is None:
                unusable_prediction(ev, chart_id(path), f"no task1 chart type: "
                                                        f"{describe_exception(exc)}")
            else:
                ev.notes.append(f"{chart_id(path)}: prediction skipped, no usable chart type "
                                f"({describe_exception(exc)})")
            continue
        if key in ambiguous_ids and ("grouped" in label or "stacked" in label):
            label = _grouped(label)
        if official != 2019:
            label = mapping.get(label, label)
        if key not in truth:
            if official:
                raise crash(official, "1", chart_id(path), f"KeyError: {key!r}, no GT file")
            ev.problems.append((chart_id(path), "prediction without a GT file; ignored"))
            continue
        predicted[key] = label

    _score(ev, truth, predicted, official)
    for key, label in truth.items():
        pred = predicted.get(key)
        ev.per_chart[shown_id[key]] = {"correct": float(pred == label), "gt": label,
                                       "predicted": pred}
    ev.charts_without_prediction = sorted(shown_id[k] for k in truth if k not in predicted)
    return ev


def _score(ev: ChartEvaluation, truth: dict[str, str], predicted: dict[str, str],
           official: int | None) -> None:
    classes = list(dict.fromkeys(truth.values()))
    per_class = {}
    for label in classes:
        gt_ids = {k for k, v in truth.items() if v == label}
        pred_ids = {k for k, v in predicted.items() if v == label}
        if not pred_ids and official:
            raise crash(official, "1", None, f"KeyError: {label!r}, a GT class that no file "
                        "predicts")
        hits = len(gt_ids & pred_ids)
        recall = hits / float(len(gt_ids))
        precision = hits / float(len(pred_ids)) if pred_ids else 0.0
        f_measure = 0.0 if recall == 0 and precision == 0 else (
            2 * recall * precision / (recall + precision))
        per_class[label] = {"recall": recall, "precision": precision, "f_measure": f_measure}
    n = len(classes)
    ev.result = {
        "per_class": dict(sorted(per_class.items())),
        "average_recall": sum(c["recall"] for c in per_class.values()) / n,
        "average_precision": sum(c["precision"] for c in per_class.values()) / n,
        "average_f_measure": sum(c["f_measure"] for c in per_class.values()) / n,
        "n_classes": n,
    }
    outside = sorted(set(predicted.values()) - set(classes))
    if official == 2019 and outside:
        ev.notes.append(f"the 2019 script prints these scores, then crashes while building "
                        f"its confusion matrix (KeyError: {outside[0]!r}, a predicted class "
                        f"that no GT chart has)")
