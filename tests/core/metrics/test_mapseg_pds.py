"""MapSeg task 3 (PDS of point detection): conformance with icdar21-mapseg-eval 1.0.4."""

from __future__ import annotations

import numpy as np
import pytest

from core.errors import InputError
from core.metrics.point_detection import EXTRA, MATCH, TOO_FAR, pds

off = pytest.importorskip("icdar21_mapseg_eval.point_detection")

N_CASES = 240


def make_case(i: int, rng) -> tuple[str, np.ndarray, np.ndarray]:
    kinds = ["jitter", "jitter-float", "duplicates-pred", "duplicates-ref", "coincident",
             "far", "on-the-limit", "equidistant", "single", "empty-pred", "empty-ref",
             "extra-and-missing", "dense"]
    kind = kinds[i % len(kinds)]
    n = int(rng.integers(1, 40))
    ref = rng.integers(0, 2000, (n, 2)).astype(np.float64)
    pred = ref + rng.integers(-30, 31, ref.shape)
    if kind == "jitter-float":
        pred = ref + rng.normal(0, 15, ref.shape)
    elif kind == "duplicates-pred":
        pred = np.vstack((pred, pred[: int(rng.integers(1, n + 1))]))
    elif kind == "duplicates-ref":
        ref = np.vstack((ref, ref[: int(rng.integers(1, n + 1))]))
    elif kind == "coincident":
        pred = ref.copy()
    elif kind == "far":
        pred = pred + rng.choice([0, 45, 60, 500], pred.shape)
    elif kind == "on-the-limit":  # exactly 50 px away: counts as within
        pred = ref + rng.choice([[30.0, 40.0], [50.0, 0.0], [0.0, 50.000001], [0.0, 49.9]],
                                n)
    elif kind == "equidistant":  # prediction half-way between two references
        ref = np.array([[0.0, 0.0], [20.0, 0.0], [10.0, 30.0]])
        pred = np.array([[10.0, 0.0], [10.0, 0.0], [10.0, 15.0]])
    elif kind == "single":
        ref, pred = ref[:1], pred[:1] + rng.integers(-60, 61, (1, 2))
    elif kind == "empty-pred":
        pred = np.zeros((0, 2))
    elif kind == "empty-ref":
        ref = np.zeros((0, 2))
    elif kind == "extra-and-missing":
        pred = np.vstack((pred[: n // 2], rng.integers(0, 2000, (int(rng.integers(0, 9)), 2))))
    elif kind == "dense":
        ref = rng.integers(0, 120, (n, 2)).astype(np.float64)
        pred = rng.integers(0, 120, (int(rng.integers(1, 60)), 2)).astype(np.float64)
    return kind, ref, pred[rng.permutation(len(pred))]


def test_random_suite_matches_official():
    rng = np.random.default_rng(20210907)
    for i in range(N_CASES):
        kind, ref, pred = make_case(i, rng)
        name = f"case {i} ({kind})"
        area, df, dbg = off.eval_pt_detect(ref, pred, 50, beta=0.5)
        res = pds(ref, pred)
        assert res.score == area, name  # bit for bit; within 1e-9 is implied
        assert pds(ref, pred, official=True).score == area, name
        assert np.array_equal(res.distance, df.index.to_numpy()), name
        assert np.array_equal(res.error_type, df["Error type"].to_numpy()), name
        assert np.array_equal(res.true_positives, df["True Positives"].to_numpy()), name
        assert np.array_equal(res.fbeta, df["F-beta"].to_numpy()), name
        assert np.array_equal(res.pred_points[:, 0], df["Prediction x"].to_numpy()), name
        assert np.array_equal(res.curve_distance, dbg["Normalized distance"].to_numpy()), name
        assert np.array_equal(res.curve_fbeta, dbg["F-beta"].to_numpy()), name


def test_known_value_one_point_half_the_radius_away():
    res = pds(np.array([[0.0, 0.0]]), np.array([[30.0, 40.0]]), radius=100)
    # one match at x = 0.5 with F = 1: triangle 0.25 + rectangle 0.5
    assert res.score == 0.75
    assert list(res.curve_distance) == [0.0, 0.5, 1.0]


def test_limit_duplicates_and_ties():
    ref = np.array([[0.0, 0.0], [100.0, 0.0]])
    pred = np.array([[50.0, 0.0], [50.0, 0.0], [100.0, 50.000001]])
    res = pds(ref, pred)
    # both predictions at 50 px are nearest to reference 0 (lowest index on ties)
    assert list(res.nearest_ref) == [0, 0, 1]
    assert list(res.error_type) == [MATCH, EXTRA, TOO_FAR]
    assert list(res.true_positives) == [1, 1, 1]


def test_empty_sets_score_zero():
    pts = np.array([[1.0, 2.0], [30.0, 4.0]])
    assert pds(pts, np.zeros((0, 2))).score == 0.0
    assert pds(np.zeros((0, 2)), pts).score == 0.0
    assert list(pds(np.zeros((0, 2)), pts).error_type) == [TOO_FAR, TOO_FAR]
    assert pds(np.zeros((0, 2)), np.zeros((0, 2))).score == 0.0


def test_bad_points_are_input_errors():
    with pytest.raises(InputError, match=r"\(N, 2\)"):
        pds(np.zeros((3, 3)), np.zeros((3, 2)))
    with pytest.raises(InputError, match="non-finite"):
        pds(np.array([[np.nan, 1.0]]), np.zeros((1, 2)))
