"""The default (corrected) CHART metrics on small hand-made cases, against the official modes.

Every expected value below is worked out by hand from the metric's definition (see the
comments); each test shows one documented difference between the default and the scripts.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from PIL import Image

from core.errors import InputError
from core.metrics.chart import ScriptCrashError, evaluate


def write_case(root: Path, gt: dict[str, dict], pred: dict[str, dict],
               sizes: dict[str, tuple[int, int]] | None = None) -> tuple[Path, Path, Path]:
    """gt/, pred/ and images/ folders under ``root``; returns (gt, pred, images)."""
    dirs = [root / "gt", root / "pred", root / "images"]
    for d in dirs:
        d.mkdir(parents=True, exist_ok=True)
    for cid, doc in gt.items():
        (dirs[0] / f"{cid}.json").write_text(json.dumps(doc))
    for cid, doc in pred.items():
        (dirs[1] / f"{cid}.json").write_text(json.dumps(doc))
    for cid, (w, h) in (sizes or {}).items():
        Image.new("1", (w, h)).save(dirs[2] / f"{cid}.png")
    return dirs[0], dirs[1], dirs[2]


def t1(label: str) -> dict:
    return {"task1": {"output": {"chart_type": label}}}


# ---- task 1 ---------------------------------------------------------------------------

def test_task1_class_never_predicted(tmp_path):
    # line: R 1, P 1/2, F 2/3; scatter: never predicted, R = P = F = 0 -> mean F 1/3.
    gt, pred, _ = write_case(tmp_path, {"a": t1("Line"), "b": t1("Scatter")},
                             {"a": t1("Line"), "b": t1("Line")})
    ev = evaluate("1", gt, pred)
    assert ev.result["per_class"]["line"]["precision"] == pytest.approx(0.5)
    assert ev.result["per_class"]["scatter"] == {"recall": 0.0, "precision": 0.0,
                                                 "f_measure": 0.0}
    assert ev.result["average_f_measure"] == pytest.approx(1 / 3)
    with pytest.raises(ScriptCrashError, match="scatter"):
        evaluate("1", gt, pred, official=2020)


def test_task1_dotted_id_in_ambiguity_file(tmp_path):
    # The whole id "x.1" is ambiguous: stacked and grouped both become grouped -> all right.
    gt, pred, _ = write_case(tmp_path, {"x.1": t1("Stacked vertical bar"), "b": t1("Line")},
                             {"x.1": t1("Grouped vertical bar"), "b": t1("Line")})
    amb = tmp_path / "ambiguous.txt"
    amb.write_text("x.1.png\n")
    assert evaluate("1", gt, pred, ambiguous=amb).result["average_f_measure"] == 1.0
    # The scripts keep "x" (text before the first dot): no rewrite, so the GT class
    # "stacked vertical bar" is never predicted and they crash.
    with pytest.raises(ScriptCrashError):
        evaluate("1", gt, pred, official=2020, ambiguous=amb)


def test_task1_prediction_without_gt_is_reported(tmp_path):
    gt, pred, _ = write_case(tmp_path, {"a": t1("Line")}, {"a": t1("Line"), "z": t1("Pie")})
    ev = evaluate("1", gt, pred)
    assert ev.result["average_f_measure"] == 1.0
    assert [c for c, _ in ev.problems] == ["z"]
    with pytest.raises(ScriptCrashError):
        evaluate("1", gt, pred, official=2019)


# ---- task 2 ---------------------------------------------------------------------------

def t2(blocks: list[tuple[tuple[int, int, int, int], str]]) -> dict:
    return {"task2": {"output": {"text_blocks": [
        {"bb": {"x0": x, "y0": y, "width": w, "height": h}, "text": text}
        for (x, y, w, h), text in blocks]}}}


def test_task2_best_match_and_false_positives_in_ocr(tmp_path):
    # GT "abc" at (0,0,10,10). Predictions: a box of IoU 0.8 with wrong text, then the exact
    # box. Scripts (2020): first match -> IoU 0.8/2 = 0.4, OCR (1 - 3/3)/1 = 0.
    # Default: the exact box -> IoU 1/2; OCR 1 over 1 matched + 1 false positive = 0.5.
    gt, pred, _ = write_case(tmp_path, {"a": t2([((0, 0, 10, 10), "abc")])},
                             {"a": t2([((0, 0, 10, 8), "xyz"), ((0, 0, 10, 10), "abc")])})
    ev = evaluate("2", gt, pred)
    assert ev.result == pytest.approx({"iou": 0.5, "ocr": 0.5, "hmean": 0.5})
    official = evaluate("2", gt, pred, official=2020)
    assert official.result == pytest.approx({"iou": 0.4, "ocr": 0.0, "hmean": 0.0})


def test_task2_chart_without_text_and_double_underscore(tmp_path):
    # Chart "e" has no GT text and no prediction: 1 (scripts: ZeroDivisionError).
    # Chart "u": GT "a__b" predicted exactly: kept by the default (1), dropped officially.
    gt, pred, _ = write_case(tmp_path, {"e": t2([]), "u": t2([((0, 0, 20, 10), "a__b")])},
                             {"e": t2([]), "u": t2([((0, 0, 20, 10), "a__b")])})
    assert evaluate("2", gt, pred).result == pytest.approx({"iou": 1, "ocr": 1, "hmean": 1})
    with pytest.raises(ScriptCrashError, match="ZeroDivisionError"):
        evaluate("2", gt, pred, official=2020)


def test_task2_bad_gt_file_is_left_out(tmp_path):
    # "ok" is exact (1); "bad" has no task2 key: reported, left out of the averages. The
    # scripts never read a GT file without prediction: it just counts 0 -> 0.5.
    gt, pred, _ = write_case(tmp_path, {"ok": t2([((0, 0, 10, 10), "a")]), "bad": t1("Line")},
                             {"ok": t2([((0, 0, 10, 10), "a")])})
    ev = evaluate("2", gt, pred)
    assert ev.result["hmean"] == 1.0
    assert [c for c, _ in ev.problems] == ["bad"]
    assert evaluate("2", gt, pred, official=2020).result["hmean"] == pytest.approx(0.5)


def test_task2_latex_text_matches_unicode(tmp_path):
    gt, pred, _ = write_case(tmp_path, {"a": t2([((0, 0, 90, 12), "Area (km^{2})")])},
                             {"a": t2([((0, 0, 90, 12), "AREA (km²)")])})
    assert evaluate("2", gt, pred).result["ocr"] == 1.0


# ---- task 3 ---------------------------------------------------------------------------

def t3(roles: list[tuple[int, str]]) -> dict:
    return {"task3": {"output": {"text_roles": [{"id": i, "role": r} for i, r in roles]}}}


def test_task3_unknown_id_does_not_drop_the_rest(tmp_path):
    # Default: chart_title R 1 P 1; tick_label predicted for ids 9 (unknown) and 1 -> R 1,
    # P 1/2, F 2/3 -> mean F 5/6. Scripts: the unknown id 9 stops the file after counting
    # as a tick_label: both classes F 0.
    gt, pred, _ = write_case(tmp_path, {"a": t3([(0, "chart_title"), (1, "tick_label")])},
                             {"a": t3([(9, "tick_label"), (0, "chart_title"), (1, "tick_label")])})
    assert evaluate("3", gt, pred).result["average_f_measure"] == pytest.approx(5 / 6)
    assert evaluate("3", gt, pred, official=2020).result["average_f_measure"] == 0.0


def test_task3_duplicate_id_keeps_last(tmp_path):
    # id 0 first said axis_title then tick_label: default keeps tick_label -> all right.
    # Scripts count both: axis_title P 1/2 -> F 2/3, mean 5/6.
    gt, pred, _ = write_case(tmp_path, {"a": t3([(0, "tick_label"), (1, "axis_title")])},
                             {"a": t3([(0, "axis_title"), (0, "tick_label"), (1, "axis_title")])})
    assert evaluate("3", gt, pred).result["average_f_measure"] == 1.0
    assert evaluate("3", gt, pred, official=2020).result["average_f_measure"] == pytest.approx(
        5 / 6)


# ---- task 4 ---------------------------------------------------------------------------

def t4(x: list[tuple[int, float, float]], y: list[tuple[int, float, float]]) -> dict:
    def ticks(lst):
        return [{"id": i, "tick_pt": {"x": px, "y": py}} for i, px, py in lst]
    return {"task4": {"output": {"axes": {"x-axis": ticks(x), "y-axis": ticks(y)}}}}


def test_task4_typo_and_per_axis_f(tmp_path):
    # "pie": no GT axes, a predicted y tick. Default: x axis empty/empty F 1; y axis R 1,
    # P 0, F 0 -> chart F 1/2. Scripts: the typo zeroes P_x too -> P 0, R 1, F 0.
    # "line": x exact (F 1), y predicted empty (R 0, P 1, F 0). Default chart F 1/2; the
    # scripts: R 1/2, P 1 -> F 2/3.
    gt_docs = {"pie": t4([], []), "line": t4([(1, 10, 90), (2, 50, 90)], [(3, 5, 50)])}
    pred_docs = {"pie": t4([], [(7, 3, 3)]), "line": t4([(1, 10, 90), (2, 50, 90)], [])}
    gt, pred, images = write_case(tmp_path, gt_docs, pred_docs,
                                  {"pie": (100, 100), "line": (100, 100)})
    ev = evaluate("4", gt, pred, images=images)
    assert ev.per_chart["pie"]["f_measure"] == pytest.approx(0.5)
    assert ev.per_chart["line"]["f_measure"] == pytest.approx(0.5)
    assert ev.result["f_measure"] == pytest.approx(0.5)
    official = evaluate("4", gt, pred, images=images, official=2020)
    assert official.per_chart["pie"]["precision"] == 0.0
    assert official.per_chart["line"]["f_measure"] == pytest.approx(2 / 3)


def test_task4_distance_uses_the_image_diagonal(tmp_path):
    # 300 x 400 image: diagonal 500, close 5 px, far 10 px. A tick 7.5 px off scores 0.5.
    gt, pred, images = write_case(tmp_path, {"a": t4([(1, 100, 200)], [])},
                                  {"a": t4([(1, 100, 207.5)], [])}, {"a": (300, 400)})
    ev = evaluate("4", gt, pred, images=images)
    assert ev.per_chart["a"]["recall_x"] == pytest.approx(0.5)


def test_task4_needs_images(tmp_path):
    gt, pred, _ = write_case(tmp_path, {"a": t4([], [])}, {"a": t4([], [])})
    with pytest.raises(InputError, match="--images"):
        evaluate("4", gt, pred)


# ---- task 5 ---------------------------------------------------------------------------

def t5(pairs: list[tuple[int, tuple[float, float, float, float]]]) -> dict:
    return {"task5": {"output": {"legend_pairs": [
        {"id": i, "bb": {"x0": x, "y0": y, "width": w, "height": h}}
        for i, (x, y, w, h) in pairs]}}}


def test_task5_zero_height_mark_and_best_duplicate(tmp_path):
    # "line": a 0 px high mark predicted exactly: default 1 (widened to 1 px); 2019 IoU 0;
    # 2020 divides by its zero area.
    # "dup": id 1 predicted twice, far then exact: default takes the exact one, 1/max(1,2);
    # the scripts take the first (IoU 0).
    gt, pred, _ = write_case(
        tmp_path, {"line": t5([(3, (10, 20, 30, 0))]), "dup": t5([(1, (0, 0, 10, 10))])},
        {"line": t5([(3, (10, 20, 30, 0))]), "dup": t5([(1, (50, 50, 10, 10)),
                                                       (1, (0, 0, 10, 10))])})
    ev = evaluate("5", gt, pred)
    assert ev.per_chart["line"]["iou_score"] == 1.0
    assert ev.per_chart["dup"]["iou_score"] == pytest.approx(0.5)
    assert evaluate("5", gt, pred, official=2019).result["score"] == 0.0
    with pytest.raises(ScriptCrashError, match="ZeroDivisionError"):
        evaluate("5", gt, pred, official=2020)


def test_task5_missing_prediction_counts(tmp_path):
    # "b" has no prediction file: the default scores it as empty (0, it has a legend);
    # the scripts do not count it.
    pairs = t5([(1, (0, 0, 10, 10))])
    gt, pred, _ = write_case(tmp_path, {"a": pairs, "b": pairs}, {"a": pairs})
    assert evaluate("5", gt, pred).result["iou_score"] == pytest.approx(0.5)
    assert evaluate("5", gt, pred, official=2020).result["iou_score"] == 1.0


# ---- task 6a --------------------------------------------------------------------------

def t6a(kind: str, elements: list, chart_type: str) -> dict:
    ve = {"bars": [], "boxplots": [], "lines": [], "scatter points": []}
    ve[kind] = elements
    return {"task1": {"output": {"chart_type": chart_type}},
            "task6": {"output": {"visual elements": ve}}}


def bar(x0, y0, w, h):
    return {"x0": x0, "y0": y0, "width": w, "height": h}


def test_task6a_bars_best_pairing_and_image_size(tmp_path):
    # "exact": one exact bar: default 1, the scripts' inverted assignment 0.
    # "shift": a bar 6 px right: L1 = 12 px; default scale 5% of 200 px = 10 -> cost 1 -> 0;
    # the scripts use 48 px: cost 0.25, and their inverted assignment scores it 0.25.
    gt_docs = {c: t6a("bars", [bar(100, 50, 20, 80)], "Vertical bar") for c in ("exact", "shift")}
    pred_docs = {"exact": t6a("bars", [bar(100, 50, 20, 80)], "Vertical bar"),
                 "shift": t6a("bars", [bar(106, 50, 20, 80)], "Vertical bar")}
    gt, pred, images = write_case(tmp_path, gt_docs, pred_docs,
                                  {"exact": (400, 200), "shift": (400, 200)})
    ev = evaluate("6a", gt, pred, images=images)
    assert ev.per_chart == {"exact": {"score": 1.0}, "shift": {"score": 0.0}}
    official = evaluate("6a", gt, pred, official=2020)
    assert official.per_chart["exact"]["score"] == 0.0
    assert official.per_chart["shift"]["score"] == pytest.approx(0.25)
    # 2000 x 1000 image: scale 50 px, cost 12/50 = 0.24 -> 0.76
    Image.new("1", (2000, 1000)).save(images / "shift.png")
    assert evaluate("6a", gt, pred, images=images).per_chart["shift"]["score"] == pytest.approx(
        0.76)


def test_task6a_box_key_order_does_not_matter(tmp_path):
    # The same exact box, its stats written in sorted order ("same") or shuffled ("shuffled").
    # Default: 1 for both. Scripts: the vector follows the dict order, so the shuffled box
    # looks far (cost 1) and the inverted assignment scores it 1, the exact one 0.
    stats = {"min": 400, "first_quartile": 350, "median": 300, "third_quartile": 250, "max": 200}
    box = {k: {"x": 150, "y": v} for k, v in sorted(stats.items())}
    shuffled = {k: box[k] for k in ("median", "min", "max", "first_quartile", "third_quartile")}
    gt_doc = t6a("boxplots", [box], "Vertical box")
    gt, pred, images = write_case(
        tmp_path, {"same": gt_doc, "shuffled": gt_doc},
        {"same": gt_doc, "shuffled": t6a("boxplots", [shuffled], "Vertical box")},
        {"same": (640, 480), "shuffled": (640, 480)})
    assert evaluate("6a", gt, pred, images=images).per_chart == {
        "same": {"score": 1.0}, "shuffled": {"score": 1.0}}
    assert evaluate("6a", gt, pred, official=2020).per_chart == {
        "same": {"score": 0.0}, "shuffled": {"score": 1.0}}


def test_task6a_extra_line_costs_and_extrapolation(tmp_path):
    # "extra": the GT line predicted exactly plus a second line: 2020 divides by #GT (1.0);
    # the default by max(#GT, #pred) = 2 -> 0.5.
    # "short": GT y = x + 10 on x = 0, 10, 20; prediction stops at x = 10. The default
    # extrapolates (recall 1, precision 1); the 2020 script clamps (recall < 1).
    line = [{"x": 0.0, "y": 10.0}, {"x": 10.0, "y": 20.0}, {"x": 20.0, "y": 30.0}]
    other = [{"x": 0.0, "y": 100.0}, {"x": 20.0, "y": 300.0}]
    gt, pred, images = write_case(
        tmp_path, {"extra": t6a("lines", [line], "Line"), "short": t6a("lines", [line], "Line")},
        {"extra": t6a("lines", [line, other], "Line"),
         "short": t6a("lines", [line[:2]], "Line")},
        {"extra": (640, 480), "short": (640, 480)})
    ev = evaluate("6a", gt, pred, images=images)
    assert ev.per_chart["extra"]["score"] == pytest.approx(0.5)
    assert ev.per_chart["short"]["score"] == pytest.approx(1.0)
    official = evaluate("6a", gt, pred, official=2020)
    assert official.per_chart["extra"]["score"] == pytest.approx(1.0)
    assert official.per_chart["short"]["score"] < 0.99


def test_task6a_line_epsilon_from_the_gt_line(tmp_path):
    # GT flat at y = 10, prediction rises to 12 at x = 10. Default ε = max(range/100,
    # mean|y|/100) of the GT = 0.1: R = 1 - (2/10.1)/2, P = 1 - (2/12.1)/2. The 2020 script
    # takes ε from the predicted line, range 2 -> 0.02: R = 1 - (2/10.02)/2, P = 1 - (2/12.02)/2.
    gt_line = [{"x": 0.0, "y": 10.0}, {"x": 10.0, "y": 10.0}]
    pred_line = [{"x": 0.0, "y": 10.0}, {"x": 10.0, "y": 12.0}]
    gt, pred, images = write_case(tmp_path, {"a": t6a("lines", [gt_line], "Line")},
                                  {"a": t6a("lines", [pred_line], "Line")}, {"a": (640, 480)})

    def f1(eps):
        r, p = 1 - (2 / (10 + eps)) / 2, 1 - (2 / (12 + eps)) / 2
        return 2 * r * p / (r + p)
    assert evaluate("6a", gt, pred, images=images).result["score"] == pytest.approx(f1(0.1))
    assert evaluate("6a", gt, pred, official=2020).result["score"] == pytest.approx(f1(0.02))


# ---- task 6b --------------------------------------------------------------------------

def t6b(series: list[tuple[str, object]], chart_type: str) -> dict:
    return {"task1": {"output": {"chart_type": chart_type}},
            "task6": {"output": {"data series": [{"name": n, "data": d} for n, d in series]}}}


def pts(*xy):
    return [{"x": x, "y": y} for x, y in xy]


def test_task6b_unnamed_gt_series_ignores_names(tmp_path):
    # GT series without a name, predicted exactly as "Series 1". Default: names ignored -> 1.
    # 2020: NED("Series 1", "") = 1 -> cost 0.25 -> 0.75, name_score 0.
    data = pts(("a", 1.0), ("b", 2.0))
    gt, pred, _ = write_case(tmp_path, {"c": t6b([("", data)], "Vertical bar")},
                             {"c": t6b([("Series 1", data)], "Vertical bar")})
    assert evaluate("6b", gt, pred).result["score"] == 1.0
    official = evaluate("6b", gt, pred, official=2020).result
    assert official["score"] == pytest.approx(0.75)
    assert official["name_score"] == 0.0


def test_task6b_discrete_wrong_label(tmp_path):
    # GT a=10, b=20; prediction a=10, c=20. Default (product form): the wrong label costs 1
    # whatever the value -> 1 - 1/2 = 0.5. 2020 (weighted sum): 0.25 -> 1 - 0.25/2 = 0.875.
    gt, pred, _ = write_case(tmp_path,
                             {"c": t6b([("s", pts(("a", 10.0), ("b", 20.0)))], "Vertical bar")},
                             {"c": t6b([("s", pts(("a", 10.0), ("c", 20.0)))], "Vertical bar")})
    assert evaluate("6b", gt, pred).result["data_score"] == pytest.approx(0.5)
    assert evaluate("6b", gt, pred, official=2020).result["data_score"] == pytest.approx(0.875)


def test_task6b_box_stats_by_name(tmp_path):
    # min and max swapped. Default matches stats by name: σ = std(1..5) = √2, both errors
    # capped at 1 -> box 1 - 2/5 = 0.6; series cost 1 - max(0.6/2, 0.6) -> score 0.6.
    # 2020 ignores the stat names (assignment on values): a perfect 1.
    box = {"min": 1.0, "first_quartile": 2.0, "median": 3.0, "third_quartile": 4.0, "max": 5.0}
    swapped = dict(box, min=5.0, max=1.0)
    gt, pred, _ = write_case(tmp_path, {"c": t6b([("Mon", box)], "Vertical box")},
                             {"c": t6b([("Mon", swapped)], "Vertical box")})
    assert evaluate("6b", gt, pred).result["score"] == pytest.approx(0.6)
    assert evaluate("6b", gt, pred, official=2020).result["score"] == 1.0


def test_task6b_collinear_scatter(tmp_path):
    # GT on y = x: the covariance is singular. Default: correlation dropped, unit variances
    # -> Mahalanobis = Euclidean; each prediction 0.5 off in x costs 0.5 -> score 0.5.
    # 2020 falls back to VI = [[400, 0], [0, 400/mean_y]]: d = sqrt(0.25 * 400) = 10 -> data
    # score 0, chart score 1 - (0.25 * 0 + 0.75 * 1) = 0.25.
    g = pts((1.0, 1.0), (2.0, 2.0), (3.0, 3.0))
    p = pts((1.5, 1.0), (2.5, 2.0), (3.5, 3.0))
    gt, pred, _ = write_case(tmp_path, {"c": t6b([("", g)], "Scatter")},
                             {"c": t6b([("", p)], "Scatter")})
    assert evaluate("6b", gt, pred).result["score"] == pytest.approx(0.5)
    official = evaluate("6b", gt, pred, official=2020).result
    assert official["data_score"] == 0.0
    assert official["score"] == pytest.approx(0.25)


def test_task6b_numeric_categories_and_task7(tmp_path):
    # Bar categories that look numeric: 2019 raises "Odd Case"; the default scores them.
    data = pts(("1998", 3.0), ("1999", 4.0))
    gt, pred, _ = write_case(tmp_path, {"c": t6b([("s", data)], "Vertical bar")},
                             {"c": t6b([("s", data)], "Vertical bar")})
    assert evaluate("7", gt, pred).result["score"] == 1.0
    assert evaluate("7", gt, pred).task == "7"
    with pytest.raises(ScriptCrashError, match="Odd Case"):
        evaluate("6b", gt, pred, official=2019)


def test_task6b_missing_and_unreadable_predictions(tmp_path):
    data = pts((1.0, 1.0), (2.0, 3.0))
    gt, pred, _ = write_case(tmp_path, {"a": t6b([("", data)], "Line"),
                                        "b": t6b([("", data)], "Line"),
                                        "c": t6b([("", data)], "Line")},
                             {"a": t6b([("", data)], "Line")})
    (pred / "c.json").write_text("{not json")
    ev = evaluate("6b", gt, pred)
    # a: 1; b: no file, empty -> 0; c: unreadable -> reported, scored as empty -> 0
    assert ev.result["score"] == pytest.approx(1 / 3)
    assert [c for c, _ in ev.problems] == ["c"]
    assert ev.charts_without_prediction == ["b"]
    with pytest.raises(ScriptCrashError):
        evaluate("6b", gt, pred, official=2020)
    assert math.isclose(ev.per_chart["a"]["score"], 1.0)


# ---- fixture cases whose predictions are exact -------------------------------------------

def _images_for(case_dir: Path, out: Path) -> Path:
    """Blank PNGs of the sizes of ``case.json`` (the fixture ships images for task 4 only)."""
    out.mkdir()
    for chart in json.loads((case_dir / "case.json").read_text())["charts"]:
        Image.new("1", (chart["width"], chart["height"])).save(out / f"{chart['id']}.png")
    return out


@pytest.mark.parametrize(("task", "case", "charts"), [
    ("6a", "c03_lines_perfect", None),            # 2019 scores perfect lines 0.5
    ("6a", "c08_box_key_order", None),            # 2020 0.5: key order and inversion
    ("6a", "c01_bars_inverted_showcase", ["01_gvbar", "03_svbar"]),  # exact bars: 2020 0 / 1
    ("5", "c08_zero_height_line_legend", None),   # 2019 0.5, 2020 crash
    ("6b", "c01_perfect", None),
    ("6b", "c10_formats_2020", None),
])
def test_default_scores_exact_predictions_1(shared, tmp_path, task, case, charts):
    d = shared / "fixtures" / "chart" / f"task{task}" / case
    images = _images_for(d, tmp_path / "images") if task == "6a" else None
    ev = evaluate(task, d / "gt", d / "pred", images=images)
    for cid in charts or ev.per_chart:
        head = "iou_score" if task == "5" else "score"
        assert ev.per_chart[cid][head] == pytest.approx(1.0), cid
