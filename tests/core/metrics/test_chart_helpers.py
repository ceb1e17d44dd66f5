"""Building blocks of the CHART metrics: text normalisation, edit distance, line metric."""

from __future__ import annotations

import numpy as np
import pytest

from core.metrics.chart.assignment import padded_min_cost_score
from core.metrics.chart.boxes import quad_iou_matrix, rect_iou_matrix
from core.metrics.chart.continuous import SeriesError, continuous_score
from core.metrics.chart.latex import normalize_text
from core.metrics.chart.strings import levenshtein, normalized_edit_distance


@pytest.mark.parametrize(("raw", "expected"), [
    ("Concentration (\\mu g/ml)", "concentration (μg/ml)"),
    ("Area (km^{2})", "area (km²)"),
    ("Emissions (CO_{2} t)", "emissions (co₂ t)"),
    ("  Two\nLines\r ", "two lines"),
    ("\\Delta T (\\circ C)", "δt (∘c)"),     # lower-cased first: \Delta arrives as \delta
    ("m^{-1}", "m⁻¹"),
    ("\\log x", "łog x"),                     # unicodeit has no word boundary: \l is ł
    ("\\hat{a}", "a\u0302"),                  # a combining circumflex after the a
    ("n_{cd}", "n_{cd}"),                     # c and d have no subscript: the group stays
])
def test_normalize_text(raw, expected):
    assert normalize_text(raw) == expected


def test_levenshtein():
    assert levenshtein("kitten", "sitting") == 3
    assert levenshtein("", "abc") == 3
    assert levenshtein("μg", "ug") == 1
    assert normalized_edit_distance("1997", "197") == 0.25
    assert normalized_edit_distance("", "") == 0.0


def test_padded_min_cost_score():
    # 2 GT x 3 predictions: best pairing 0.1 + 0.2, the extra prediction costs 1 -> 1 - 1.3/3
    cost = np.array([[0.1, 0.9, 0.5], [0.8, 0.2, 0.7]])
    assert padded_min_cost_score(cost) == pytest.approx(1 - 1.3 / 3)


def test_iou_rects_and_quads():
    a = np.array([[0, 0, 10, 10]], dtype=float)
    b = np.array([[5, 0, 15, 10]], dtype=float)
    assert rect_iou_matrix(a, b)[0, 0] == pytest.approx(50 / 150)
    assert rect_iou_matrix(a, b, plus_one=True)[0, 0] == pytest.approx(66 / 176)
    square = [[(0, 0), (10, 0), (10, 10), (0, 10)]]
    diamond = [[(5, 0), (10, 5), (5, 10), (0, 5)]]        # area 50, inside the square
    assert quad_iou_matrix(square, diamond)[0, 0] == pytest.approx(0.5)


def test_continuous_score_rules():
    gt = [{"x": 0, "y": 10.0}, {"x": 10, "y": 20.0}, {"x": 20, "y": 30.0}]
    assert continuous_score(gt, gt, "default") == 1.0
    assert continuous_score([], [], "2020-6a") == 1.0
    assert continuous_score([], gt, "default") == 0.0
    # one predicted point: the default extrapolates a constant, weight 1 for a single point
    single = [{"x": 10, "y": 20.0}]
    assert 0 < continuous_score(single, gt, "default") < 1
    with pytest.raises(SeriesError):
        continuous_score(single, gt, "2019")
