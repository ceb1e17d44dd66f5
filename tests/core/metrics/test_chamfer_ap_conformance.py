"""Chamfer-distance AP against the reference's results on the 35 shared fixture cases."""

from __future__ import annotations

import json
import math

import pytest

from core.metrics.chamfer_ap import chamfer_ap, read_challenge

TOL = 1e-9
AP_KEYS = ("AP@0.5", "AP@1.0", "AP@1.5", "AP")


@pytest.fixture(scope="module")
def fixtures(shared):
    root = shared / "fixtures" / "chamfer_ap"
    return root, json.loads((root / "expected.json").read_text())


def _cases(shared_root):
    return sorted(p.name for p in shared_root.glob("c[0-9][0-9]_*") if p.is_dir())


def test_all_35_cases_are_present(fixtures):
    root, expected = fixtures
    assert _cases(root) == sorted(expected)
    assert len(expected) == 35


@pytest.mark.parametrize("index", range(35))
def test_official_mode_reproduces_the_reference(fixtures, index):
    root, expected = fixtures
    case = sorted(expected)[index]
    exp = expected[case]
    inp = read_challenge(root / case / "gt.json", root / case / "pred.json", official=True)
    detailed = chamfer_ap(inp.gt_frames, inp.pred_frames, classes=inp.classes, official=True,
                          per_frame=True).to_dict()
    pruned = chamfer_ap(inp.gt_frames, inp.pred_frames, classes=inp.classes,
                        official=True).to_dict()
    for out in (detailed, pruned):
        assert out["mAP"] == pytest.approx(exp["mAP"], abs=TOL)
        for cls in inp.classes:
            assert out[cls]["num_gts"] == exp[cls]["num_gts"]
            assert out[cls]["num_preds"] == exp[cls]["num_preds"]
            for key in AP_KEYS:
                assert out[cls][key] == pytest.approx(exp[cls][key], abs=TOL), (cls, key)
        assert out["num_tp"] == exp["num_tp"]
        stats = {k: v for k, v in out["stats"].items() if k != "mixed_tie_groups"}
        assert {"segments": inp.segments, **stats} == exp["stats"]

    # per-frame debugging data: the same samples, nearest GT, distances and decisions
    assert list(detailed["per_frame"]) == list(exp["per_frame"])
    for token, classes in exp["per_frame"].items():
        for cls, want in classes.items():
            got = detailed["per_frame"][token][cls]
            for key in ("gt_samples", "pred_index", "pred_samples", "nearest_gt",
                        "tp@0.5", "tp@1.0", "tp@1.5"):
                assert got[key] == want[key], (token, cls, key)
            assert got["min_cd"] == pytest.approx(want["min_cd"], abs=1e-12)


@pytest.mark.parametrize("index", range(35))
def test_default_mode_differs_only_for_classes_without_gt(fixtures, index):
    """Default = reference, except a class without GT: AP null and left out of the mAP."""
    root, expected = fixtures
    case = sorted(expected)[index]
    exp = expected[case]
    inp = read_challenge(root / case / "gt.json", root / case / "pred.json")
    out = chamfer_ap(inp.gt_frames, inp.pred_frames, classes=inp.classes).to_dict()
    with_gt = [cls for cls in inp.classes if exp[cls]["num_gts"] > 0]
    for cls in inp.classes:
        for key in AP_KEYS:
            if cls in with_gt:
                assert out[cls][key] == pytest.approx(exp[cls][key], abs=TOL)
            else:
                assert out[cls][key] is None
    if with_gt:
        mean = math.fsum(exp[cls]["AP"] for cls in with_gt) / len(with_gt)
        assert out["mAP"] == pytest.approx(mean, abs=TOL)
    else:
        assert out["mAP"] is None
    if len(with_gt) == 3:
        assert out["mAP"] == pytest.approx(exp["mAP"], abs=TOL)
