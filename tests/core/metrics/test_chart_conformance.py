"""Conformance: every case of ../shared/fixtures/chart/expected.json, per reference script.

Each case is run in the matching official mode with the arguments the reference was run
with (ambiguity file, class mapping, ignore file, images) and every number of the reference
is compared: floats to 1e-9, printed ``%f`` strings to their 6 decimals. A reference that
crashed without a result must raise ScriptCrashError.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest

from core.metrics.chart import ScriptCrashError, evaluate

REPO = Path(__file__).resolve().parents[3]
FIXTURES = Path(os.environ.get("GRATICULE_SHARED", REPO.parent / "shared")) / "fixtures" / "chart"
EXPECTED_PATH = FIXTURES / "expected.json"
EXPECTED = json.loads(EXPECTED_PATH.read_text()) if EXPECTED_PATH.is_file() else {}
HEADLINES = ("average_f_measure", "hmean", "f_measure", "iou_score", "score")
REFS = {"ref2020": 2020, "ref2019": 2019}

RUNS = [(key, ref, variant)
        for key, case in EXPECTED.items() if key != "_meta"
        for ref in REFS
        for variant in (None, *case[ref].get("variants", {}))]


def test_fixtures_present(shared):
    assert (shared / "fixtures" / "chart" / "expected.json").is_file()
    assert len(RUNS) >= 140


def _run(key: str, official: int, variant: str | None):
    task, case = key.split("/")
    d = FIXTURES / task / case
    kwargs = {}
    if task == "task1":
        if variant != "no_ambiguous_file":
            kwargs["ambiguous"] = d / "ambiguous_ids.txt"
        if official == 2020 and (d / "class_mapping.json").is_file():
            kwargs["class_mapping"] = d / "class_mapping.json"
    if task == "task3" and official == 2020 and (d / "ignore.txt").is_file():
        kwargs["ignore_roles"] = d / "ignore.txt"
    if task == "task4":
        kwargs["images"] = d / "images"
    return evaluate(task[len("task"):], d / "gt", d / "pred", official=official, **kwargs)


def _printed_matches(value: float, printed: str) -> bool:
    """``'%f' % value == printed``, or value on a rounding tie of it (a 1-ulp sum order)."""
    if f"{value:f}" == printed:
        return True
    tie = float(printed) - 5e-7 if value < float(printed) else float(printed) + 5e-7
    return abs(value - tie) < 1e-12


def _compare(expected, got, path: str, errors: list[str]) -> None:
    if isinstance(expected, dict):
        if not isinstance(got, dict):
            errors.append(f"{path}: expected an object, got {got!r}")
            return
        for k, v in expected.items():
            if k not in got:
                errors.append(f"{path}.{k}: missing")
            else:
                _compare(v, got[k], f"{path}.{k}", errors)
    elif isinstance(expected, str):
        if not isinstance(got, int | float) or not _printed_matches(got, expected):
            errors.append(f"{path}: printed {expected}, got {got!r}")
    elif isinstance(expected, int | float):
        ok = isinstance(got, int | float) and (
            abs(expected - got) <= 1e-9 or (math.isnan(expected) and math.isnan(got)))
        if not ok:
            errors.append(f"{path}: expected {expected!r}, got {got!r}")


@pytest.mark.parametrize(("key", "ref", "variant"), RUNS,
                         ids=[f"{k}-{r}" + (f"-{v}" if v else "") for k, r, v in RUNS])
def test_official_mode_reproduces_reference(key, ref, variant):
    run = EXPECTED[key][ref]
    if variant is not None:
        run = run["variants"][variant]
    crashed = run.get("error") and not any(h in run.get("result", {}) for h in HEADLINES)
    if crashed:
        with pytest.raises(ScriptCrashError, match="crashes"):
            _run(key, REFS[ref], variant)
        return
    ev = _run(key, REFS[ref], variant)
    errors: list[str] = []
    _compare(run["result"], ev.result, "result", errors)
    if variant is None:
        for chart, scores in run.get("per_chart", {}).items():
            if "error" not in scores:
                _compare(scores, ev.per_chart.get(chart), f"per_chart.{chart}", errors)
        if "mean_of_per_chart" in run:
            _compare(run["mean_of_per_chart"], ev.result, "mean_of_per_chart", errors)
        cross = run.get("cross_check_metric4_pmc", {}).get("per_chart", {})
        for chart, scores in cross.items():
            _compare(scores, ev.per_chart.get(chart), f"metric4_pmc.{chart}", errors)
        for chart, printed in run.get("per_chart_printed", {}).items():
            printed = {k: v for k, v in printed.items() if k != "chart_type"}
            _compare(printed, ev.per_chart.get(chart), f"printed.{chart}", errors)
    assert not errors, "\n".join(errors)


def test_official_without_prediction_folder_order_dependence():
    """Charts without a prediction file are reported, and not averaged by task 5 officially."""
    key = "task5/c09_pred_subset"
    if key not in EXPECTED:
        pytest.skip("fixture not present")
    ev = _run(key, 2020, None)
    assert set(ev.per_chart) == set(EXPECTED[key]["ref2020"]["per_chart"])
    assert ev.charts_without_prediction == sorted(EXPECTED[key]["charts_without_prediction"])
