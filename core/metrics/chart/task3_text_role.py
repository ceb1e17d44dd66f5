"""Task 3, text role classification: average per-class recall, precision and F-measure.

Items are the GT text blocks, keyed ``(chart, text block id)``; classes are the lower-cased,
stripped GT roles. Per GT class: R = |GT ∩ P| / |GT|, P = |GT ∩ P| / |P| (0 with no
prediction), F = 2RP / (R + P); the scores are means over the GT classes. GT roles listed
in the ignore file are skipped, with the predictions for those blocks.

Official quirks kept: 2019 keeps only chart_title, axis_title, tick_label and legend_label
and crashes on a GT class that nothing predicts; an id that is not in the GT counts as a
prediction of its role and silently drops the rest of its file; a duplicated id counts once
per role. The default counts an unknown id as a false positive of its role and goes on,
and keeps the last entry of a duplicated id.
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

SYNTHETIC_ROLES = ("chart_title", "axis_title", "tick_label", "legend_label")


def read_ignored_roles(path: Path, official: int | None) -> set[str]:
    """Roles of the ignore file, one per line (stripped; the default also lower-cases)."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read the ignored roles file ({exc})") from exc
    if official:
        return {line.strip() for line in lines}
    return {line.strip().lower() for line in lines if line.strip()}


def _prediction_entries(doc: Any, official: int | None) -> Any:
    task = doc["task3"] if official == 2019 or "task3" in doc else doc["task1.3"]
    output = task["output"]
    return output["text_roles"] if "text_roles" in output else output["text_blocks"]


def evaluate_task3(gt_dir: Path, pred_dir: Path, *, official: int | None = None,
                   ignore_roles: Path | None = None) -> ChartEvaluation:
    """Score text role classification of ``pred_dir`` against ``gt_dir``."""
    if official == 2019 and ignore_roles is not None:
        raise InputError("the 2019 task 3 script takes no ignore file; drop --ignore-roles")
    ignored_roles = read_ignored_roles(ignore_roles, official) if ignore_roles else set()
    ev = ChartEvaluation(task="3", mode=mode_name(official), result={})
    key_of = dotless_id if official else (lambda name: chart_id(Path(name)))

    truth: dict[tuple[str, Any], str] = {}
    ignored: set[tuple[str, Any]] = set()
    shown_id: dict[str, str] = {}
    for path in json_files(gt_dir, "GT"):
        key = key_of(path.name)
        try:
            entries = read_json(path)["task3"]["output"]["text_roles"]
            roles = [((key, e["id"]), e["role"].lower().strip()) for e in entries]
            hash(tuple(roles))
        except InputError as exc:
            if official:
                raise
            ev.problems.append((chart_id(path), str(exc)))
            continue
        except (KeyError, TypeError, AttributeError) as exc:
            if official:
                raise crash(official, "3", chart_id(path), describe_exception(exc)) from exc
            ev.problems.append((chart_id(path), f"unusable GT text roles "
                                                f"({describe_exception(exc)}); chart left out"))
            continue
        shown_id[key] = chart_id(path)
        for item, role in roles:
            skip = role not in SYNTHETIC_ROLES if official == 2019 else role in ignored_roles
            if skip:
                ignored.add(item)
            else:
                truth[item] = role
    if not truth:
        if official:
            raise crash(official, "3", None, "ZeroDivisionError: no GT role to score")
        raise nothing_scored(ev)

    predicted: dict[str, set] = {}  # role -> items predicted with it
    last_role: dict[tuple[str, Any], str] = {}
    predicted_charts = set()
    for path in json_files(pred_dir, "prediction"):
        key = key_of(path.name)
        try:
            doc = read_json(path)
        except InputError as exc:
            if official:
                raise crash(official, "3", chart_id(path), "unreadable JSON") from exc
            ev.problems.append((chart_id(path), str(exc)))
            continue
        predicted_charts.add(key)
        try:
            for entry in _prediction_entries(doc, official):
                item = (key, entry["id"])
                role = entry["role"].lower().strip()
                if item in ignored:
                    continue
                if official:
                    predicted.setdefault(role, set()).add(item)
                    if item not in truth:
                        raise KeyError(f"{key}__sep__{item[1]}")
                last_role[item] = role
        except (KeyError, TypeError, AttributeError, IndexError) as exc:
            if official:
                ev.notes.append(f"{chart_id(path)}: entries from {describe_exception(exc)} "
                                "on are dropped")
            else:
                unusable_prediction(ev, chart_id(path), describe_exception(exc))
    if official is None:
        for item, role in last_role.items():
            predicted.setdefault(role, set()).add(item)

    _score(ev, truth, predicted, official, len(ignored))
    for key, cid in shown_id.items():
        items = [i for i in truth if i[0] == key]
        if items:
            hits = sum(last_role.get(i) == truth[i] for i in items)
            ev.per_chart[cid] = {"accuracy": hits / len(items), "n_roles": len(items)}
    ev.charts_without_prediction = sorted(shown_id[k] for k in shown_id
                                          if k not in predicted_charts)
    return ev


def _score(ev: ChartEvaluation, truth: dict, predicted: dict[str, set],
           official: int | None, n_ignored: int) -> None:
    classes = list(dict.fromkeys(truth.values()))
    per_class, counts = {}, {}
    for label in classes:
        gt_items = {i for i, r in truth.items() if r == label}
        if official == 2019 and label not in predicted:
            raise crash(2019, "3", None, f"KeyError: {label!r}, a GT class that nothing "
                        "predicts")
        pred_items = predicted.get(label, set())
        hits = len(gt_items & pred_items)
        recall = hits / float(len(gt_items))
        if official == 2019:
            precision = hits / float(len(pred_items))
        else:
            precision = hits / float(len(pred_items)) if hits and pred_items else 0.0
        f_measure = 0.0 if recall == 0 and precision == 0 else (
            2 * recall * precision / (recall + precision))
        per_class[label] = {"recall": recall, "precision": precision, "f_measure": f_measure}
        counts[label] = {"n_gt": len(gt_items), "n_pred": len(pred_items), "n_correct": hits}
    n = len(classes)
    ev.result = {
        "per_class": dict(sorted(per_class.items())),
        "average_recall": sum(c["recall"] for c in per_class.values()) / n,
        "average_precision": sum(c["precision"] for c in per_class.values()) / n,
        "average_f_measure": sum(c["f_measure"] for c in per_class.values()) / n,
        "n_classes": n,
        "counts": dict(sorted(counts.items())),
        "n_ignored": n_ignored,
    }
