"""Default mode vs --official (each documented difference has a case here) and bad input."""

from __future__ import annotations

import json

import pytest

from core.errors import InputError
from core.metrics.chamfer_ap import Prediction, chamfer_ap, read_challenge

H_LINE = [[-10.0, 0.0, 0.0, 1], [10.0, 0.0, 0.0, 1]]
V_LINE = [[5.0, -10.0, 0.0, 1], [5.0, 10.0, 0.0, 1]]


def gt_file(path, frames, segment="seg"):
    """frames: [(timestamp, annotation dict)] -> the challenge's annotation JSON."""
    data = {segment: [{"segment_id": segment, "timestamp": t, "annotation": a}
                      for t, a in frames]}
    path.write_text(json.dumps(data))
    return path


def pred_file(path, results):
    path.write_text(json.dumps({"meta": {}, "results": results}))
    return path


def annotation(ped=(), divider=(), boundary=()):
    return {"ped_crossing": list(ped), "divider": list(divider), "boundary": list(boundary)}


def entry(*preds):
    """preds: (vector, score, label) -> one token's submission entry."""
    return {"vectors": [p[0] for p in preds], "scores": [p[1] for p in preds],
            "labels": [p[2] for p in preds]}


def score(tmp_path, gt, pred, official):
    inp = read_challenge(gt, pred, official=official)
    return chamfer_ap(inp.gt_frames, inp.pred_frames, classes=inp.classes, official=official)


@pytest.fixture
def files(tmp_path):
    return tmp_path / "gt.json", tmp_path / "pred.json"


def test_class_without_gt_is_left_out_by_default_and_zero_in_official(tmp_path, files):
    gt = gt_file(files[0], [("t1", annotation(divider=[H_LINE]))])
    pred = pred_file(files[1], {"t1": entry(([[-10, 0.1], [10, 0.1]], 0.9, 1),
                                            ([[0, 0], [1, 1]], 0.8, 0))})
    default = score(tmp_path, gt, pred, official=False)
    official = score(tmp_path, gt, pred, official=True)
    assert default.classes["divider"].ap == 1.0 and official.classes["divider"].ap == 1.0
    assert default.classes["ped_crossing"].ap is None  # no GT: undefined
    assert default.classes["ped_crossing"].num_preds == 1
    assert official.classes["ped_crossing"].ap == 0.0
    assert default.mean_ap == 1.0  # over the one class with GT
    assert official.mean_ap == pytest.approx(1 / 3)  # over all three classes
    assert any("ped_crossing" in w and "left out" in w for w in default.warnings)


def test_no_gt_at_all_gives_null_map_by_default(tmp_path, files):
    gt = gt_file(files[0], [("t1", annotation())])
    pred = pred_file(files[1], {"t1": entry(([[0, 0], [1, 1]], 0.8, 2))})
    assert score(tmp_path, gt, pred, official=False).mean_ap is None
    assert score(tmp_path, gt, pred, official=True).mean_ap == 0.0


def test_single_point_polyline_crashes_official_and_is_a_point_by_default(tmp_path, files):
    gt = gt_file(files[0], [("t1", annotation(boundary=[[[3.0, 4.0, 0, 1], [3.0, 4.1, 0, 1]]]))])
    pred = pred_file(files[1], {"t1": entry(([[3.0, 4.0]], 0.9, 2))})
    with pytest.raises(InputError, match="single point.*without --official"):
        score(tmp_path, gt, pred, official=True)
    result = score(tmp_path, gt, pred, official=False)
    # samples (3, 4) twice vs (3, 4), (3, 4.1): CD = (0 + 0.05) / 2 = 0.025
    assert result.classes["boundary"].ap_at == (1.0, 1.0, 1.0)


def test_single_point_gt_line_is_refused_in_official_mode(tmp_path, files):
    gt = gt_file(files[0], [("t1", annotation(divider=[[[3.0, 4.0, 0, 1]]]))])
    pred = pred_file(files[1], {"t1": entry(([[3.0, 4.0], [3.1, 4.0]], 0.9, 1))})
    with pytest.raises(InputError, match="GT divider line 0: a single point"):
        score(tmp_path, gt, pred, official=True)
    assert score(tmp_path, gt, pred, official=False).classes["divider"].ap == 1.0


def test_3d_prediction_crashes_official_and_uses_xy_by_default(tmp_path, files):
    gt = gt_file(files[0], [("t1", annotation(divider=[H_LINE]))])
    pred = pred_file(files[1], {"t1": entry(([[-10, 0.6, 7.0], [10, 0.6, 7.0]], 0.9, 1))})
    with pytest.raises(InputError, match="3 coordinates"):
        score(tmp_path, gt, pred, official=True)
    ap = score(tmp_path, gt, pred, official=False).classes["divider"].ap_at
    assert ap == (0.0, 1.0, 1.0)  # CD 0.6 from the x, y line


def test_repeated_timestamp_is_an_error_by_default_and_replaces_in_official(tmp_path, files):
    gt = gt_file(files[0], [("t1", annotation(divider=[H_LINE])),
                            ("t1", annotation(divider=[V_LINE]))])
    pred = pred_file(files[1], {"t1": entry(([[-10, 0], [10, 0]], 0.9, 1))})
    with pytest.raises(InputError, match="appears twice"):
        score(tmp_path, gt, pred, official=False)
    official = score(tmp_path, gt, pred, official=True)
    assert official.classes["divider"].num_gts == 1  # only the later frame (V_LINE) is kept
    assert official.classes["divider"].ap == 0.0


def test_repeated_json_key_is_an_error_by_default(tmp_path, files):
    files[0].write_text('{"s": [{"timestamp": "t1", "annotation": {"ped_crossing": [], '
                        '"divider": [], "boundary": []}}], "s": []}')
    pred = pred_file(files[1], {})
    with pytest.raises(InputError, match="key 's' appears twice"):
        score(tmp_path, files[0], pred, official=False)
    assert score(tmp_path, files[0], pred, official=True).stats["frames"] == 0


def test_missing_category_key_is_empty_by_default_and_refused_in_official(tmp_path, files):
    gt = gt_file(files[0], [("t1", {"divider": [H_LINE]})])
    pred = pred_file(files[1], {"t1": entry(([[-10, 0], [10, 0]], 0.9, 1))})
    with pytest.raises(InputError, match="no 'ped_crossing' key"):
        score(tmp_path, gt, pred, official=True)
    assert score(tmp_path, gt, pred, official=False).mean_ap == 1.0


def test_integer_timestamp_matches_by_default_never_in_official(tmp_path, files):
    gt = gt_file(files[0], [(1234, annotation(divider=[H_LINE]))])
    pred = pred_file(files[1], {"1234": entry(([[-10, 0], [10, 0]], 0.9, 1))})
    assert score(tmp_path, gt, pred, official=False).classes["divider"].ap == 1.0
    official = score(tmp_path, gt, pred, official=True)
    assert official.classes["divider"].ap == 0.0
    assert official.stats["missing_tokens"] == ["1234"]


def test_extra_and_missing_tokens_are_reported(tmp_path, files):
    gt = gt_file(files[0], [("t1", annotation(divider=[H_LINE])),
                            ("t2", annotation(divider=[V_LINE]))])
    pred = pred_file(files[1], {"t1": entry(([[-10, 0], [10, 0]], 0.9, 1)),
                                "zz": entry(([[5, -10], [5, 10]], 0.9, 1))})
    result = score(tmp_path, gt, pred, official=False)
    assert result.stats["missing_tokens"] == ["t2"] and result.stats["extra_tokens"] == ["zz"]
    assert result.classes["divider"].ap_at == (0.5, 0.5, 0.5)  # the copy under zz is ignored
    assert any("not in the GT" in w for w in result.warnings)


def test_custom_thresholds_and_library_api_with_any_classes():
    gt = {"sheet1": {"graticule": [[[0, 0], [100, 0]], [[0, 50], [100, 50]]]}}
    preds = {"sheet1": [Prediction([[0, 2], [100, 2]], 0.9, "graticule"),
                        Prediction([[0, 56], [100, 56]], 0.8, "graticule")]}
    result = chamfer_ap(gt, preds, thresholds=(2, 5, 10), sample_dist=1.0)
    assert result.classes["graticule"].ap_at == (0.5, 0.5, 1.0)
    assert list(result.to_dict()["graticule"]) == ["num_gts", "num_preds", "AP@2.0", "AP@5.0",
                                                   "AP@10.0", "AP"]
    assert result.to_dict()["num_tp"]["graticule"] == {"2.0": 1, "5.0": 1, "10.0": 2}


def test_tied_scores_rank_in_input_order_and_are_counted():
    gt = {"f": {"a": [[[0, 0], [10, 0]]]}}
    preds = {"f": [Prediction([[0, 5], [10, 5]], 0.5, "a"), Prediction([[0, 0], [10, 0]], 0.5,
                                                                       "a")]}
    result = chamfer_ap(gt, preds)
    # stable order: the far copy first (FP), then the exact one (TP): precision 1/2 at recall 1
    assert result.classes["a"].ap_at == (0.5, 0.5, 0.5)
    assert result.stats["tie_groups"] == 1 and result.stats["mixed_tie_groups"] == 1
    assert any("equal scores" in w for w in result.warnings)


@pytest.mark.parametrize(("gt_text", "pred_text", "message"), [
    ('{"s": [', '{"results": {}}', "not valid JSON"),
    ('[1, 2]', '{"results": {}}', "challenge annotation format"),
    ('{"s": [{"annotation": {}}]}', '{"results": {}}', "needs 'timestamp'"),
    ('{"s": [{"timestamp": "t", "annotation": {"divider": [[]]}}]}', '{"results": {}}',
     "empty polyline"),
    ('{"s": [{"timestamp": "t", "annotation": {"divider": [[[0, "a"], [1, 1]]]}}]}',
     '{"results": {}}', "numbers"),
    ('{"s": [{"timestamp": "t", "annotation": {"divider": [[[0, NaN], [1, 1]]]}}]}',
     '{"results": {}}', "finite"),
    ('{"s": []}', '{"res": {}}', "submission format"),
    ('{"s": []}', '{"results": {"t": {"vectors": [[[0, 0], [1, 1]]], "scores": [], '
     '"labels": [1]}}}', "1 vectors, 0 scores and 1 labels"),
    ('{"s": [{"timestamp": "t", "annotation": {}}]}', '{"results": {"t": {"vectors": '
     '[[[0, 0], [1, 1]]], "scores": [0.5], "labels": [3]}}}', "label must be 0"),
    ('{"s": [{"timestamp": "t", "annotation": {}}]}', '{"results": {"t": {"vectors": '
     '[[[0, 0], [1, 1]]], "scores": ["high"], "labels": [1]}}}', "score must be a number"),
])
def test_bad_input_is_a_one_line_input_error(tmp_path, files, gt_text, pred_text, message):
    files[0].write_text(gt_text)
    files[1].write_text(pred_text)
    with pytest.raises(InputError, match=message) as info:
        score(tmp_path, files[0], files[1], official=False)
    assert "\n" not in str(info.value)


def test_bad_thresholds_and_spacing_are_input_errors():
    gt = {"f": {"a": [[[0, 0], [1, 0]]]}}
    for thresholds in ((), (0.5, 0.5), (-1,), (float("nan"),)):
        with pytest.raises(InputError, match="threshold"):
            chamfer_ap(gt, {}, thresholds=thresholds)
    with pytest.raises(InputError, match="spacing"):
        chamfer_ap(gt, {}, sample_dist=0)
    with pytest.raises(InputError, match="reserved"):
        chamfer_ap({"f": {"stats": []}}, {})


def test_listed_classes_set_the_order_and_progress_is_reported():
    gt = {"f": {"b": [[[0, 0], [10, 0]]], "ignored": [[[0, 0], [1, 0]]]}}
    preds = {"f": [Prediction([[0, 0.2], [10, 0.2]], 0.9, "b")]}
    calls = []
    result = chamfer_ap(gt, preds, classes=("a", "b"), official=True,
                        progress=lambda f, m: calls.append(f))
    assert list(result.classes) == ["a", "b"]
    assert result.classes["b"].ap == 1.0 and result.classes["a"].ap == 0.0
    assert result.mean_ap == 0.5  # official: the class without GT counts
    assert calls[-1] == 1.0 and calls == sorted(calls)
    with pytest.raises(InputError, match="class 'b', not one of 'a'"):
        chamfer_ap(gt, preds, classes=("a",))
