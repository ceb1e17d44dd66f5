"""core.gridlabels.strips: characters grouped into words, groups of linked items, long strokes
removed from a strip."""
from __future__ import annotations

import cv2
import numpy as np

from core.gridlabels.strips import find_words, group_boxes, linked_groups, strip_ink


def _ink(size: tuple[int, int], texts: list[tuple[str, tuple[int, int], float]]) -> np.ndarray:
    img = np.zeros(size, np.uint8)
    for text, at, scale in texts:
        cv2.putText(img, text, at, cv2.FONT_HERSHEY_SIMPLEX, scale, 255, 2)
    return img


def test_grouped_digits_are_one_word_and_a_number_further_on_another():
    ink = _ink((80, 700), [("6 862 000", (10, 50), 1.2), ("75", (560, 50), 1.2)])
    words = sorted(find_words(ink, 5, 60), key=lambda w: w[0][0])
    assert len(words) == 2
    (box, chars, main), (box2, chars2, _) = words
    assert chars == 7 and chars2 == 2
    assert box[0] < 20 and 200 < box[2] < 240 and box2[0] > 550
    assert np.array_equal(box, main)            # all figures at full height


def test_small_raised_zeros_join_the_value_they_follow():
    # 652 and a small 000 level with the top of the big figures, a figure's gap after
    (w, big), _ = cv2.getTextSize("652", cv2.FONT_HERSHEY_SIMPLEX, 1.5, 2)
    small = cv2.getTextSize("000", cv2.FONT_HERSHEY_SIMPLEX, 0.8, 2)[0][1]
    ink = _ink((80, 400), [("652", (10, 60), 1.5), ("000", (10 + w + 8, 60 - big + small), 0.8)])
    words = find_words(ink, 5, 60)
    assert len(words) == 1
    box, chars, main = words[0]
    assert chars == 6
    assert box[2] > 10 + w + 40 and main[2] <= 10 + w + 2   # the full-height figures: 652


def test_linked_items_form_groups_numbered_by_their_first_item():
    linked = np.zeros((6, 6), bool)
    linked[0, 2] = linked[2, 4] = True          # 0-2-4 through 2; one half of the matrix
    linked[5, 1] = True
    group, order, starts = linked_groups(linked)
    assert group.tolist() == [0, 1, 0, 2, 0, 1]
    assert order.tolist() == [0, 2, 4, 1, 5, 3] and starts.tolist() == [0, 3, 5]
    box = np.array([[0, 0, 1, 1], [5, 5, 6, 6], [2, -1, 3, 0], [9, 9, 10, 10],
                    [1, 3, 4, 4], [4, 6, 5, 8]], float)
    assert group_boxes(box, order, starts).tolist() == [[0, -1, 4, 4], [4, 5, 6, 8],
                                                          [9, 9, 10, 10]]


def test_a_line_drawn_through_figures_is_removed_and_the_figures_kept_whole():
    # a strip: paper, "808" with a thin frame line through its middle, a long tick upright
    # through the gap between its first two figures (touching neither) and one through
    # its last figure
    strip = np.full((90, 300), 230, np.uint8)
    for i, figure in enumerate("808"):
        cv2.putText(strip, figure, (90 + 30 * i, 60), cv2.FONT_HERSHEY_SIMPLEX, 1.2, 40, 2)
    (w, h), _ = cv2.getTextSize("808", cv2.FONT_HERSHEY_SIMPLEX, 1.2, 2)
    mid = 60 - h // 2
    cols = np.flatnonzero((strip < 150).any(axis=0))
    ends = cols[np.flatnonzero(np.diff(cols) > 1)]        # the last column of each figure
    between = int(ends[0]) + 3                           # paper between the first two
    through = (int(ends[1]) + 2 + int(cols[-1])) // 2    # the last figure's middle
    cv2.line(strip, (0, mid), (299, mid), 40, 2)
    cv2.line(strip, (between, 0), (between, 89), 40, 1)
    cv2.line(strip, (through, 0), (through, 89), 40, 1)
    kept, dark = strip_ink(strip, 60)
    assert not kept[:, :80].any() and not kept[:, 220:].any()   # the lines are gone
    assert not kept[:mid - h, between].any()        # the tick between figures too
    n, lab, stats, _ = cv2.connectedComponentsWithStats(kept, connectivity=8)
    tall = stats[1:, cv2.CC_STAT_HEIGHT]
    # every figure is one piece across the line, not a top and a bottom half
    assert (tall >= 0.8 * h).sum() == 3 and (n - 1) == 3
    assert dark[mid, cols[0]:cols[-1]].max() > 0     # its darkness under the line is kept


def test_small_figures_a_pixel_apart_are_kept_and_the_frame_removed():
    """A label of 7 px figures a pixel or two apart (a 4000 px sheet) beside the frame:
    strokes sought at half size took the row of figures for one (the gaps close there)."""
    strip = np.full((60, 200), 230, np.uint8)
    cv2.line(strip, (0, 10), (199, 10), 40, 2)
    cv2.putText(strip, "6550000", (20, 40), cv2.FONT_HERSHEY_PLAIN, 0.75, 30, 1, cv2.LINE_8)
    ink, _ = strip_ink(strip, 24)
    figures = strip[28:45, 15:120] < 128
    assert (ink[28:45, 15:120] > 0)[figures].mean() > 0.95
    assert not (ink[8:13] > 0).any()


def test_a_row_of_touching_small_figures_is_one_group():
    """Figures 8 px high touching in a row are one component five times wider than high;
    it is a group of figures, not dropped as too big (a thin stroke beside it is)."""
    from core.gridlabels.words import _figure_groups

    ink = np.zeros((40, 120), np.uint8)
    for i, figure in enumerate("6550000"):
        cv2.putText(ink, figure, (10 + 5 * i, 25), cv2.FONT_HERSHEY_PLAIN, 0.8, 255, 1,
                    cv2.LINE_8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    assert n == 2                              # the figures touch: one component
    cv2.line(ink, (0, 36), (119, 36), 255, 1)  # a thin stroke below: not a figure row
    groups = _figure_groups(ink, max_h=12)
    x, y, w, h = stats[1, :4].tolist()
    assert [g.tolist() for g in groups] == [[x, y, x + w, y + h]]
