"""Each metric's rules on small hand-made images, with hand-computed expectations.

Boxes are axis-aligned, ``box(x0, y0, x1, y1)`` listing the corners clockwise on screen from
the top-left (y down), so every area below is width x height in px².
"""

from __future__ import annotations

import numpy as np
import pytest

from core.metrics.textdet import (
    TextImage,
    Word,
    cleval_image,
    deteval_image,
    evaluate_cleval,
    evaluate_deteval,
    evaluate_iou,
    evaluate_tiou,
    iou_image,
    tiou_image,
)
from core.metrics.textdet.cleval import pseudo_character_centres
from core.metrics.textdet.cleval_e2e import longest_common_subsequence, order_by_first_pcc
from core.metrics.textdet.geometry import points_in_quads


def box(x0: int, y0: int, x1: int, y1: int, text: str | None = "w") -> Word:
    return Word((x0, y0, x1, y0, x1, y1, x0, y1), text)


def image(gt: list[Word], det: list[Word]) -> list[TextImage]:
    return [TextImage("img_1", tuple(gt), tuple(det), "gt_img_1.txt", "res_img_1.txt")]


# --- ICDAR 2015 IoU -------------------------------------------------------------------------

def test_iou_must_exceed_one_half():
    gt = [box(0, 0, 100, 20)]  # 2000 px²
    assert iou_image(gt, [box(0, 0, 100, 40)]).pairs == ()  # 2000 / 4000 = 0.5
    assert iou_image(gt, [box(0, 0, 100, 39)]).pairs == ((0, 0),)  # 2000 / 3900


def test_iou_matching_is_greedy_first_fit_in_file_order():
    gt = [box(0, 0, 100, 20), box(50, 0, 150, 20)]
    straddling = box(25, 0, 125, 20)  # IoU 1500/2500 = 0.6 with both GTs
    exact = box(0, 0, 100, 20)  # IoU 1 with GT 0, 1000/3000 with GT 1
    assert iou_image(gt, [straddling, exact]).pairs == ((0, 0),)
    assert iou_image(gt, [exact, straddling]).pairs == ((0, 0), (1, 1))


def test_iou_dont_care_detection_needs_more_than_half_inside():
    gt = [box(0, 0, 100, 20, "###")]
    result = evaluate_iou(image(gt, [box(50, 0, 150, 20), box(49, 0, 149, 20)]))
    assert result.per_image["img_1"].det_dontcare == (1,)
    assert (result.num_gt_care, result.num_det_care, result.matched) == (0, 1, 0)
    assert (result.rates.recall, result.rates.precision) == (0, 0)


# --- TIoU ------------------------------------------------------------------------------------

def test_tiou_cut_penalty_with_one_percent_tolerance():
    gt = [box(0, 0, 100, 20)]
    cut = tiou_image(gt, [box(0, 0, 90, 20)]).pairs[0]  # I 1800, U 2000, 10 % cut off
    assert cut.recall == pytest.approx(1800 * 0.9 / 2000)
    assert cut.precision == pytest.approx(0.9)
    tolerated = tiou_image(gt, [box(0, 0, 99, 20)]).pairs[0]  # 1 % cut off: no penalty
    assert tolerated.recall == pytest.approx(0.99)


@pytest.mark.parametrize(("neighbour", "default_precision"), [
    ("###", 2000 / 2200),  # a don't-care region is not outlier area by default
    ("word", 2000 / 2200 * (1 - 200 / 2200)),  # a care word always is
])
def test_tiou_outlier_area_and_dont_care_regions(neighbour, default_precision):
    gt = [box(0, 0, 100, 20), box(100, 0, 150, 20, neighbour)]
    det = [box(0, 0, 110, 20)]  # 2200 px², 200 of them on the neighbour
    official = evaluate_tiou(image(gt, det), official=True)
    default = evaluate_tiou(image(gt, det))
    assert official.per_image["img_1"].pairs[0].precision == pytest.approx(
        2000 / 2200 * (1 - 200 / 2200))
    assert default.per_image["img_1"].pairs[0].precision == pytest.approx(default_precision)
    assert default.per_image["img_1"].pairs[0].recall == pytest.approx(2000 / 2200)


def test_tiou_with_an_image_without_care_gt_first():
    images = [TextImage("img_1", (box(0, 0, 10, 10, "###"),), (box(50, 50, 60, 60),)),
              TextImage("img_2", (box(0, 0, 100, 20),), (box(0, 0, 100, 20),))]
    result = evaluate_tiou(images)
    assert result.rates.recall == 1.0 and result.rates.precision == 0.5
    assert result.per_image["img_1"].rates.recall == 1.0  # the scripts' per-image rule


# --- DetEval ---------------------------------------------------------------------------------

def test_deteval_one_to_one_at_the_exact_thresholds():
    gt = [box(0, 0, 100, 20)]
    assert deteval_image(gt, [box(0, 0, 80, 20)]).recall_accum == 1.0  # R = 0.8, P = 1
    assert deteval_image(gt, [box(0, 0, 100, 50)]).recall_accum == 1.0  # R = 1, P = 0.4
    assert deteval_image(gt, [box(0, 0, 79, 20)]).matches == ()  # R = 0.79


def test_deteval_one_to_many_and_many_to_one_credits():
    split = deteval_image([box(0, 0, 200, 20)], [box(0, 0, 80, 20), box(80, 0, 160, 20)])
    assert [m.as_list() for m in split.matches] == [[0, [0, 1], "OM"]]
    assert (split.recall_accum, split.precision_accum) == (0.8, 1.6)  # R 0.4 + 0.4 = 0.8
    merged = deteval_image([box(0, 0, 100, 20), box(110, 0, 200, 20)], [box(0, 0, 200, 20)])
    assert [m.as_list() for m in merged.matches] == [[[0, 1], 0, "MO"]]
    assert (merged.recall_accum, merged.precision_accum) == (2.0, 1.0)


def test_deteval_drops_self_intersecting_quads_only_in_official_mode():
    gt = [box(0, 0, 100, 20)]
    bow_tie = Word((300, 0, 400, 20, 400, 0, 300, 20), "x")
    images = image(gt, [box(0, 0, 100, 20), bow_tie])
    assert evaluate_deteval(images, official=True).rates.precision == 1.0
    assert evaluate_deteval(images).rates.precision == 0.5  # a false positive by default


# --- CLEval ----------------------------------------------------------------------------------

def test_point_in_quad_counts_min_edges_inside_and_max_edges_outside():
    quad = np.array([[[0, 0], [10, 0], [10, 10], [0, 10]]], dtype=float)
    points = np.array([[0, 5], [10, 5], [5, 0], [5, 10], [5, 5], [-1, 5]], dtype=float)
    assert points_in_quads(quad, points).tolist() == [[True, False, True, False, True, False]]


def test_pseudo_character_centres_run_bottom_up_on_vertical_boxes():
    horizontal = pseudo_character_centres(box(0, 0, 40, 10).points, 4, 4.0)
    assert horizontal.tolist() == [[5, 5], [15, 5], [25, 5], [35, 5]]
    vertical = pseudo_character_centres(box(0, 0, 10, 30).points, 3, 10 / 30)
    assert vertical.tolist() == [[5, 25], [5, 15], [5, 5]]


def test_unmatched_detection_character_count():
    """A 90 x 20 false positive (ar 4.5): CLEval counts round(0.5 + 1/4.5) = 1 character,
    the default round(0.5 + 4.5) -> 5, like a don't-care box of that shape."""
    gt = [box(0, 0, 50, 10, "ABCDE")]
    det = [box(0, 0, 50, 10, "ABCDE"), box(200, 0, 290, 20, "fp")]
    official = cleval_image(gt, det, official=True).det
    default = cleval_image(gt, det).det
    assert (official.num_char_tp, official.num_char_fp, official.num_char_det) == (5, 1, 6)
    assert (default.num_char_tp, default.num_char_fp, default.num_char_det) == (5, 5, 10)
    assert default.precision == 0.5 and official.precision == pytest.approx(5 / 6)


def test_cleval_e2e_gt_visiting_order():
    """GT 6 ("AB", x 100-200) is split into D (x 60-140, also over GT 8's "B") and E; GT 8
    ("AB", x 0-100) is merged into D. Both detections read "AB". Visiting GT 6 first (default,
    ascending) uses D's "AB" for GT 6 and leaves nothing for GT 8: TP 2. The reference visits
    set(range(10)) - {0..5} as 8, 9, 6, 7, so GT 8 takes D and GT 6 takes E: TP 4."""
    far = [box(60 * k, 500, 60 * k + 50, 520, "###") for k in range(6)]
    gt = [*far, box(100, 0, 200, 20, "AB"), box(0, 300, 50, 320, "X"), box(0, 0, 100, 20, "AB"),
          box(100, 300, 150, 320, "Y")]
    det = [box(60, 0, 140, 20, "AB"), box(150, 0, 200, 20, "AB")]
    default = cleval_image(gt, det)
    official = cleval_image(gt, det, official=True)
    relations = {(m.gts, m.dets, m.relation) for m in default.matches}
    assert relations == {((6,), (0, 1), "one-to-many"), ((6, 8), (0,), "many-to-one")}
    assert (default.e2e.num_char_tp, official.e2e.num_char_tp) == (2, 4)
    assert default.det == official.det  # detection credit does not depend on the order


def test_cleval_e2e_needs_transcriptions():
    result = evaluate_cleval(image([box(0, 0, 50, 10, "ABCDE")], [box(0, 0, 50, 10, None)]))
    assert result.det.num_char_tp == 5 and result.e2e is None
    assert "error" in result.as_dict()["e2e"]


def test_lcs_tie_break_and_ordering_rules():
    assert longest_common_subsequence("ab", "ba") == "b"  # upper cell only if longer
    assert len(longest_common_subsequence("VERTIC", "TICVER")) == 3
    inside = np.array([[True], [True], [True]])  # three detections over the only PCC
    assert order_by_first_pcc([0, 1, 2], inside) == [0, 1]  # only the first leftover
