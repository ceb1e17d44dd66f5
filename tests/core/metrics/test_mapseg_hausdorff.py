"""MapSeg task 2 (95% Hausdorff distance): conformance with icdar21-mapseg-eval 1.0.4."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from core.errors import InputError
from core.metrics import hausdorff as hd
from core.metrics.hausdorff import hausdorff95, hausdorff95_details, mask_boundary
from core.metrics.mapseg_errors import OfficialToolFailure

off = pytest.importorskip("icdar21_mapseg_eval.haussdorff")

N_CASES = 280


def official(a: np.ndarray, b: np.ndarray):
    try:
        return float(off.hausdorff(a, b))
    except Exception as exc:  # percentile of an empty boundary
        return exc


def _polygon_mask(rng, h, w):
    m = np.zeros((h, w), np.uint8)
    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    angles = np.sort(rng.uniform(0, 2 * np.pi, int(rng.integers(3, 12))))
    radii = rng.uniform(3, max(h, w) * 0.7, len(angles))
    pts = np.column_stack((cx + radii * np.cos(angles), cy + radii * np.sin(angles)))
    cv2.fillPoly(m, [np.round(pts).astype(np.int32)], 255)
    return m


def make_case(i: int, rng) -> tuple[str, np.ndarray, np.ndarray]:
    h, w = int(rng.integers(8, 72)), int(rng.integers(8, 72))
    kinds = ["polygon", "polygon", "shifted", "holes", "full-vs-part", "single-pixels",
             "thin-lines", "noise", "far-apart", "identical", "empty-pred", "empty-ref",
             "both-empty", "border"]
    kind = kinds[i % len(kinds)]
    a, b = _polygon_mask(rng, h, w), _polygon_mask(rng, h, w)
    if kind == "shifted":
        b = np.roll(a, (int(rng.integers(-4, 5)), int(rng.integers(-4, 5))), axis=(0, 1))
    elif kind == "holes":
        a[rng.random((h, w)) < 0.05] = 0
        b = cv2.erode(a, np.ones((3, 3), np.uint8))
    elif kind == "full-vs-part":
        a[:] = 255
    elif kind == "single-pixels":
        a, b = np.zeros((h, w), np.uint8), np.zeros((h, w), np.uint8)
        a[rng.integers(h), rng.integers(w)] = 255
        b[rng.integers(h, size=3), rng.integers(w, size=3)] = 255
    elif kind == "thin-lines":
        a, b = np.zeros((h, w), np.uint8), np.zeros((h, w), np.uint8)
        cv2.line(a, (0, int(rng.integers(h))), (w - 1, int(rng.integers(h))), 255, 1)
        cv2.line(b, (int(rng.integers(w)), 0), (int(rng.integers(w)), h - 1), 255, 1)
    elif kind == "noise":
        b = np.where(rng.random((h, w)) < 0.4, 255, 0).astype(np.uint8)
    elif kind == "far-apart":
        a, b = np.zeros((h, w), np.uint8), np.zeros((h, w), np.uint8)
        a[:2, :2] = 255
        b[-2:, -2:] = 255
    elif kind == "identical":
        b = a.copy()
    elif kind == "empty-pred":
        b[:] = 0
    elif kind == "empty-ref":
        a[:] = 0
    elif kind == "both-empty":
        a[:], b[:] = 0, 0
    elif kind == "border":
        a[:, :2] = 255
        b[-3:, :] = 255
    return kind, a, b


def test_random_suite_matches_official():
    rng = np.random.default_rng(20210906)
    compared, crashes = 0, 0
    for i in range(N_CASES):
        kind, a, b = make_case(i, rng)
        name = f"case {i} ({kind})"
        want = official(a, b)
        if isinstance(want, Exception):
            crashes += 1
            with pytest.raises(OfficialToolFailure):
                hausdorff95(a, b, official=True)
            ours = hausdorff95(a, b)
            empty_a, empty_b = not a.any(), not b.any()
            assert empty_a or empty_b, name
            assert ours == (0.0 if empty_a and empty_b else math.hypot(*a.shape)), name
            continue
        assert hausdorff95(a, b, official=True) == want, name  # bit for bit
        assert abs(hausdorff95(a, b) - want) <= 1e-9, name
        compared += 1
    assert compared >= 200 and crashes >= 40, (compared, crashes)


def test_scipy_transform_fallback_gives_the_same_values(monkeypatch):
    rng = np.random.default_rng(11)
    cases = [make_case(i, rng)[1:] for i in range(40)]
    cases = [(a, b) for a, b in cases if a.any() and b.any()]
    kd = [hausdorff95_details(a, b) for a, b in cases]
    monkeypatch.setattr(hd, "KDTREE_MAX_POINTS", 0)
    edt = [hausdorff95_details(a, b) for a, b in cases]
    for x, y in zip(kd, edt, strict=True):
        assert x.hd95 == y.hd95
        assert np.array_equal(x.ref_distances, y.ref_distances)
        assert np.array_equal(x.pred_distances, y.pred_distances)


def test_known_values():
    a, b = np.zeros((10, 10), np.uint8), np.zeros((10, 10), np.uint8)
    a[0, 0], b[3, 4] = 255, 255
    assert hausdorff95(a, b) == 5.0
    a[:, :] = 255
    res = hausdorff95_details(a, b)  # b inside a: 0 one way; a's 36 border pixels to (3, 4)
    assert res.pred_to_ref == 0.0
    rows, cols = mask_boundary(a > 0)
    assert len(rows) == 36
    expected = np.percentile(np.hypot(rows - 3, cols - 4), 95)
    assert res.ref_to_pred == pytest.approx(expected) and res.hd95 == res.ref_to_pred


def test_empty_masks_conventions():
    a, empty = np.zeros((30, 40), np.uint8), np.zeros((30, 40), np.uint8)
    a[5:10, 5:10] = 255
    assert hausdorff95(empty, empty) == 0.0
    assert hausdorff95(a, empty) == hausdorff95(empty, a) == 50.0
    with pytest.raises(OfficialToolFailure, match="empty prediction"):
        hausdorff95(a, empty, official=True)


def test_masks_are_thresholded_at_128_unless_official():
    a = np.zeros((20, 20), np.uint8)
    a[5:10, 5:10] = 255
    b = a.copy()
    b[18, 18] = 100  # dark stray pixel: outside the mask, but nonzero for the official tool
    assert hausdorff95(a, b) == 0.0
    assert hausdorff95(a, b, official=True) == official(a, b) > 0


@pytest.mark.parametrize(("a", "b", "message"), [
    (np.zeros((5, 5), np.float64), np.zeros((5, 5), np.uint8), "float64"),
    (np.zeros((5, 5), np.uint16), np.zeros((5, 5), np.uint8), "8-bit"),
    (np.zeros((5, 5), np.uint8), np.zeros((6, 5), np.uint8), "one size"),
    (np.zeros((5, 5, 3), np.uint8), np.zeros((5, 5), np.uint8), "single-channel"),
])
def test_bad_masks_are_input_errors(a, b, message):
    with pytest.raises(InputError, match=message):
        hausdorff95(a, b)
