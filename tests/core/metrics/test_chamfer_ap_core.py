"""Building blocks of the chamfer-distance AP: resampling, distances, matching, VOC AP."""

from __future__ import annotations

import json

import numpy as np
import pytest
import shapely
from shapely.geometry import LineString

from core.metrics.chamfer_ap.ap import voc_area_ap
from core.metrics.chamfer_ap.distance import chamfer_distance, chamfer_matrix
from core.metrics.chamfer_ap.matching import match_frame
from core.metrics.chamfer_ap.resample import resample_polyline, resample_polylines, sample_count


def shapely_resample(lines, spacing=0.3):
    """The reference's resampling with shapely/GEOS: ``interpolate`` at [0] + arange(s, L, s)
    + [L] of each line (vectorized: the same GEOS function as ``LineString.interpolate``)."""
    out = []
    for geom in (LineString(line) for line in lines):
        distances = [0.0, *np.arange(spacing, geom.length, spacing), geom.length]
        points = shapely.line_interpolate_point(geom, distances)
        out.append(shapely.get_coordinates(points))
    return out


@pytest.mark.parametrize(("x0", "x1", "count"), [
    (0.0, 0.9, 5), (0.0, 3.0, 12), (0.0, 1.2, 5), (0.0, 30.0, 101), (-19.85, -15.65, 16),
    (-20.0, -15.8, 15), (0.0, 0.3, 2), (0.0, 0.1, 2)])
def test_sample_counts_keep_the_arange_near_duplicate(x0, x1, count):
    """Counts from the fixture README: numpy's arange makes a near-duplicate last sample."""
    samples = resample_polyline(np.array([[x0, 1.0], [x1, 1.0]]))
    assert len(samples) == count == sample_count(x1 - x0)
    if x1 == 0.9:
        assert samples[:, 0].tolist() == [0.0, 0.3, 0.6, 0.8999999999999999, 0.9]


def test_resampling_equals_shapely_bit_for_bit_on_every_fixture_line(shared):
    lines = []
    for case in sorted((shared / "fixtures" / "chamfer_ap").glob("c[0-9][0-9]_*")):
        gt = json.loads((case / "gt.json").read_text())
        for frames in gt.values():
            for frame in frames:
                for vectors in frame["annotation"].values():
                    lines += [np.array(v, dtype=float)[:, :2] for v in vectors]
        pred = json.loads((case / "pred.json").read_text())
        for entry in pred["results"].values():
            lines += [np.array(v, dtype=float) for v in entry["vectors"]]
    rng = np.random.default_rng(5)
    for _ in range(150):  # random polylines with repeated vertices and rounded coordinates
        pts = np.round(rng.normal(size=(int(rng.integers(2, 9)), 2)) * 8, 3)
        pts[int(rng.integers(0, len(pts)))] = pts[0]
        lines.append(pts)
    samples, offsets = resample_polylines(lines)
    assert len(lines) == 1267 + 1769 + 150
    for k, want in enumerate(shapely_resample(lines)):
        np.testing.assert_array_equal(samples[offsets[k]:offsets[k + 1]], want,
                                      err_msg=f"line {k}")


def test_sample_counts_equal_numpy_arange_for_many_lengths():
    rng = np.random.default_rng(3)
    lengths = np.r_[np.round(np.arange(0.0, 60.0, 0.1), 1), rng.uniform(0, 90, 500)]
    lines = [np.array([[0.0, 0.0], [length, 0.0]]) for length in lengths]
    _, offsets = resample_polylines(lines)
    want = [len(np.arange(0.3, float(length), 0.3)) + 2 for length in lengths]
    assert np.diff(offsets).tolist() == want


def test_zero_length_and_single_point_lines_give_their_point_twice():
    samples, offsets = resample_polylines([np.array([[1.0, 2.0]]),
                                           np.array([[3.0, 4.0], [3.0, 4.0], [3.0, 4.0]])])
    assert offsets.tolist() == [0, 2, 4]
    assert samples.tolist() == [[1.0, 2.0], [1.0, 2.0], [3.0, 4.0], [3.0, 4.0]]


def test_chamfer_matrix_equals_the_pairwise_formula_and_pruning_keeps_near_pairs():
    rng = np.random.default_rng(11)
    base = [np.cumsum(rng.normal(size=(6, 2)), axis=0) * 3 for _ in range(5)]
    preds = [b + rng.normal(0, 0.4, b.shape) for b in base[:3]] + [base[4] + 40.0]
    p_samples, p_off = resample_polylines(preds)
    g_samples, g_off = resample_polylines(base)
    full = chamfer_matrix(p_samples, p_off, g_samples, g_off)
    for i in range(len(preds)):
        for j in range(len(base)):
            want = chamfer_distance(p_samples[p_off[i]:p_off[i + 1]],
                                    g_samples[g_off[j]:g_off[j + 1]])
            assert full[i, j] == want  # the same pairwise sums: bit for bit
    pruned = chamfer_matrix(p_samples, p_off, g_samples, g_off, max_cd=1.5)
    near = full <= 1.5
    assert near.any() and (~near).any()
    np.testing.assert_array_equal(pruned[near], full[near])
    assert np.all(pruned[~near] >= full[~near])  # skipped pairs are inf
    assert np.isinf(pruned[3]).all()  # the far prediction is compared with nothing


def test_chamfer_matrix_in_row_blocks_equals_one_block():
    rng = np.random.default_rng(2)
    lines = [np.cumsum(rng.normal(size=(5, 2)), axis=0) * 4 for _ in range(6)]
    samples, off = resample_polylines(lines)
    one = chamfer_matrix(samples[:off[3]], off[:4], samples[off[3]:], off[3:] - off[3])
    blocks = chamfer_matrix(samples[:off[3]], off[:4], samples[off[3]:], off[3:] - off[3],
                            max_block=97)
    np.testing.assert_array_equal(one, blocks)


def test_shifted_axis_aligned_copy_has_cd_exactly_the_shift():
    gt = resample_polyline(np.array([[-10.0, 2.0], [20.0, 2.0]]))
    for shift in (0.5, 1.0, 1.5):
        pred = resample_polyline(np.array([[-10.0, 2.0 + shift], [20.0, 2.0 + shift]]))
        assert chamfer_distance(pred, gt) == shift


def test_matching_uses_the_nearest_gt_only_in_score_order():
    # prediction 0 (score 0.9) is nearest to GT 0; prediction 1 (0.8) is also nearest to GT 0
    # although GT 1 is within every threshold: no fallback, so it is a FP.
    cd = np.array([[0.2, 3.0], [0.4, 0.5], [2.0, 1.2]])
    match = match_frame(cd, np.array([0.9, 0.8, 0.7]), (0.5, 1.0, 1.5))
    assert match.nearest_gt.tolist() == [0, 0, 1]
    assert match.tp.tolist() == [[True, False, False], [True, False, False],
                                 [True, False, True]]


def test_matching_higher_score_takes_the_gt_even_when_worse():
    cd = np.array([[0.8], [0.0]])
    match = match_frame(cd, np.array([0.9, 0.5]), (0.5, 1.0))
    assert match.tp.tolist() == [[False, True], [True, False]]  # TP sets are not nested


def test_matching_ties_keep_input_order_and_no_gt_means_all_fp():
    match = match_frame(np.array([[0.1], [0.1]]), np.array([0.5, 0.5]), (0.5,))
    assert match.tp.tolist() == [[True, False]]
    empty = match_frame(np.zeros((2, 0)), np.array([0.5, 0.4]), (0.5,))
    assert empty.tp.tolist() == [[False, False]] and empty.nearest_gt.tolist() == [-1, -1]


def test_voc_area_ap_by_hand():
    # recall 0.5, 0.5, 1.0; precision 1, 1/2, 2/3 -> envelope 1, 2/3, 2/3
    assert voc_area_ap(np.array([True, False, True]), 2) == pytest.approx(0.5 + 0.5 * 2 / 3)
    assert voc_area_ap(np.array([False, True]), 1) == pytest.approx(0.5)
    assert voc_area_ap(np.array([False, False]), 0) == 0.0  # no GT: recall 0 / eps = 0
    assert voc_area_ap(np.zeros(0, dtype=bool), 3) == 0.0  # no prediction
