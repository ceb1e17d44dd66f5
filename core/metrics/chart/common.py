"""Shared types of the CHART-Infographics metrics: modes, results, crashes, JSON access.

A *mode* is ``None`` (the metric as the competition describes it, with the scripts' bugs
fixed) or ``2019`` / ``2020`` (reproduce that year's official script, bugs included).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import InputError

OFFICIAL_YEARS = (2019, 2020)
TASKS = ("1", "2", "3", "4", "5", "6a", "6b", "7")


class ScriptCrashError(InputError):
    """The official script would stop with an exception here: no score exists to reproduce."""


def mode_name(official: int | None) -> str:
    """``"default"`` or ``"official-2019"`` / ``"official-2020"``."""
    return "default" if official is None else f"official-{official}"


def check_official(official: int | None) -> None:
    """Raise InputError unless ``official`` is None, 2019 or 2020."""
    if official is not None and official not in OFFICIAL_YEARS:
        raise InputError(f"--official must be 2019 or 2020, not {official}")


def crash(official: int, task: str, chart: str | None, what: str) -> ScriptCrashError:
    """The one-line error that replaces a crash of an official script."""
    where = f" on chart {chart}" if chart else ""
    return ScriptCrashError(f"the official {official} task {task} script crashes{where} "
                            f"({what}), so it gives no score; fix the input or run without "
                            f"--official")


@dataclass
class ChartEvaluation:
    """Scores of one task on a folder of charts.

    ``result`` holds the task's global keys as in the ``result`` objects of the conformance
    fixture (as numbers). ``per_chart`` maps chart ids (file names without ``.json``) to
    their scores. ``problems`` lists files that could not be read (chart id, message): the
    command line reports them and exits with status 1. ``notes`` are informational.
    """

    task: str
    mode: str
    result: dict[str, Any]
    per_chart: dict[str, dict[str, Any]] = field(default_factory=dict)
    charts_without_prediction: list[str] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The JSON document written by ``--json``: the result keys at the top level."""
        doc: dict[str, Any] = {"task": self.task, "mode": self.mode}
        doc.update(self.result)
        doc["per_chart"] = self.per_chart
        doc["charts_without_prediction"] = self.charts_without_prediction
        doc["problems"] = [{"chart": c, "message": m} for c, m in self.problems]
        doc["notes"] = self.notes
        return doc


def nothing_scored(ev: ChartEvaluation) -> InputError:
    """The error when no chart could be scored, quoting the first problem."""
    if ev.problems:
        cid, message = ev.problems[0]
        return InputError(f"no chart could be scored ({len(ev.problems)} failed; first: "
                          f"{cid}: {message})")
    return InputError("no chart could be scored; check that GT_DIR holds GT .json files of "
                      "a type this task scores")


#: The start of every problem message about a prediction file that cannot be used.
UNUSABLE_PREDICTION = "prediction unusable, scored as empty"


class _NotFiniteError(ValueError):
    pass


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotFiniteError(f"the number {text} is too large")
    return value


def _no_constant(name: str) -> float:
    raise _NotFiniteError(f"{name} is not a JSON number")


def read_json(path: Path) -> Any:
    """Parse a JSON file; raise InputError with the file name when it is unreadable.

    Numbers must be finite: ``NaN``, ``Infinity`` (not JSON, though Python writes them) and
    numbers too large for a float are refused, so no score is computed from them.
    """
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f, parse_float=_finite_float, parse_constant=_no_constant)
    except FileNotFoundError as exc:
        raise InputError(f"{path}: no such file; check the folder") from exc
    except _NotFiniteError as exc:
        raise InputError(f"{path}: {exc}; give finite numbers") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise InputError(f"{path} is not a readable JSON file ({exc}); "
                         f"give a UTF-8 JSON annotation") from exc


def unusable_prediction(ev: ChartEvaluation, cid: str, why: str) -> None:
    """Report a prediction file that cannot be used (default mode): the chart scores as
    with an empty prediction and the command exits with status 1 (2 when no prediction
    file at all could be used)."""
    ev.problems.append((cid, f"{UNUSABLE_PREDICTION} ({why})"))


def all_predictions_unusable(ev: ChartEvaluation, prediction_ids: list[str]) -> bool:
    """True when there were prediction files (``prediction_ids``: their chart ids) and
    none of them could be used."""
    bad = {c for c, m in ev.problems if m.startswith(UNUSABLE_PREDICTION)}
    return bool(prediction_ids) and all(c in bad for c in prediction_ids)


def json_files(folder: Path, what: str) -> list[Path]:
    """The ``*.json`` files of a folder, sorted by name; InputError if it is no folder."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(f"{folder}: no such {what} folder; check the path")
    return sorted(p for p in folder.iterdir() if p.name.endswith(".json") and p.is_file())


def chart_id(path: Path) -> str:
    """The chart id of an annotation file: its name without ``.json`` (dots kept)."""
    return path.name[:-len(".json")] if path.name.endswith(".json") else path.name


def dotless_id(file_name: str) -> str:
    """The scripts' ``''.join(name.split('.')[:-1])``: the extension and every dot removed."""
    return "".join(file_name.split(".")[:-1])


def dotted_id(file_name: str) -> str:
    """The 2020 scripts' ``'.'.join(name.split('.')[:-1])``: only the extension removed."""
    return ".".join(file_name.split(".")[:-1])


def dig(doc: Any, *keys: Any) -> Any:
    """``doc[k1][k2]...``; raise KeyError/TypeError/IndexError exactly as Python would."""
    for k in keys:
        doc = doc[k]
    return doc


def get_path(doc: Any, *keys: str) -> Any:
    """``doc[k1][k2]...`` or None when a key is missing or a level is not a dict."""
    for k in keys:
        if not isinstance(doc, Mapping) or k not in doc:
            return None
        doc = doc[k]
    return doc


def chart_type(gt: Any) -> str:
    """The GT chart type (``task1.output.chart_type``), as written."""
    value = get_path(gt, "task1", "output", "chart_type")
    if not isinstance(value, str):
        raise InputError("GT has no task1.output.chart_type string; give a complete GT file")
    return value


def harmonic_mean(a: float, b: float) -> float:
    """2ab/(a+b), or 0 when a + b is 0."""
    return 2 * a * b / (a + b) if a + b else 0.0


def mean(values: list[float]) -> float:
    """Plain mean; nan for an empty list."""
    return sum(values) / len(values) if values else math.nan


def is_number_like(value: Any) -> bool:
    """True when ``float(value)`` succeeds (numbers and numeric strings), as the scripts test."""
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def describe_exception(exc: BaseException) -> str:
    """``KeyError: 'y'`` style text of an exception."""
    return f"{type(exc).__name__}: {exc}"
