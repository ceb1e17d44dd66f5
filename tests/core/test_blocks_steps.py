"""core.blocks steps on small drawn cases: lettering, hatching, line ends, regions."""

from __future__ import annotations

import cv2
import numpy as np

from core.blocks import BlockSettings, regions
from core.blocks.gaps import extend_ends
from core.blocks.lettering import erase_lettering
from core.blocks.texture import hatch_areas
from core.blocks.thinning import end_points


def test_lettering_across_an_outline_is_erased_but_the_outline_stays():
    ink = np.zeros((200, 400), np.uint8)
    cv2.line(ink, (200, 10), (200, 190), 1, 3)                   # an outline
    cv2.putText(ink, "Rue", (160, 110), cv2.FONT_HERSHEY_SIMPLEX, 1.2, 1, 3)  # across it
    out = erase_lettering(ink, BlockSettings())
    assert out[10:190, 199:202].all()                            # the outline is whole
    beside = np.ones(ink.shape, bool)
    beside[:, 197:204] = False
    assert out[beside].sum() < 0.1 * ink[beside].sum()           # the word is gone


def test_hatched_building_is_found_but_a_word_is_not():
    ink = np.zeros((300, 400), np.uint8)
    cv2.rectangle(ink, (40, 40), (200, 240), 1, 3)
    hatch = np.zeros_like(ink)
    for k in range(-300, 300, 5):                                # 45 degree strokes
        cv2.line(hatch, (40 + k, 40), (40 + k + 300, 340), 1, 1)
    ink[42:239, 42:199] |= hatch[42:239, 42:199]
    cv2.putText(ink, "Rue", (250, 150), cv2.FONT_HERSHEY_SIMPLEX, 1.5, 1, 4)
    area = hatch_areas(ink, np.ones(ink.shape, bool), BlockSettings())
    assert area[60:220, 60:180].mean() > 0.9                     # the hatched interior
    assert not area[110:160, 250:350].any()                      # the word


def test_diagonal_line_ends_are_found():
    skeleton = np.zeros((50, 50), np.uint8)
    for k in range(10, 40):                                      # a 4-connected staircase
        skeleton[k, k] = skeleton[k, k + 1] = 1
    ys, xs = np.nonzero(end_points(skeleton))
    assert sorted(zip(xs.tolist(), ys.tolist(), strict=False)) == [(10, 10), (40, 39)]


def test_line_ends_are_extended_to_a_facing_end_only():
    skeleton = np.zeros((100, 300), np.uint8)
    skeleton[50, 10:100] = 1
    skeleton[50, 160:290] = 1                                    # 60 px gap, facing ends
    skeleton[10:40, 200] = 1                                     # an end facing nothing
    out, drawn = extend_ends(skeleton, 100, to_ends_only=True)
    assert drawn == 1 and out[50, 10:290].all()
    assert not out[41:50, 200].any()


def test_outline_stopping_short_of_the_map_edge_still_closes():
    lines = np.zeros((100, 100), np.uint8)
    lines[0:97, 50] = 1                                          # stops 3 px from the edge
    mask = np.zeros((100, 100), bool)
    mask[:, :] = True
    _, n_open = regions.partition(lines, mask)
    _, n_sealed = regions.partition(lines, mask, edge_seal=4)
    assert n_open - 1 == 1 and n_sealed - 1 == 2


def test_thin_strips_are_not_shapes():
    labels = np.zeros((200, 300), np.int32)
    labels[10:110, 10:110] = 1                                   # a building
    labels[150:158, 10:290] = 2                                  # an 8 px strip
    street = np.zeros(3, bool)
    s = BlockSettings.for_level("shapes", min_shape_area=100)
    shapes, n = regions.shapes(labels, street, s)
    assert n == 1 and shapes[50, 50] == 1 and not shapes[154].any()
    shapes, n = regions.shapes(labels, street, s.with_changes(min_shape_radius=0))
    assert n == 2


def test_street_pieces_are_neighbours_across_a_tangle_of_small_regions():
    labels = np.zeros((60, 200), np.int32)
    labels[10:50, 0:90] = 1
    labels[10:50, 104:200] = 2                                   # 14 px apart ...
    labels[20:30, 92:102] = 3                                    # ... a small region between
    big = np.array([False, True, True, False])
    assert [1, 2] in regions.reach_adjacency(labels, big, 8).tolist()
    assert len(regions.reach_adjacency(labels, big, 3)) == 0


def _zhang_suen_reference(binary: np.ndarray, max_iterations: int) -> np.ndarray:
    """Textbook Zhang-Suen on the whole image at every pass (the slow reference)."""
    img = np.pad(binary.astype(np.uint8), 1)
    for _ in range(max_iterations):
        changed = False
        for first in (True, False):
            p = [np.roll(img, shift, axis=(0, 1)) for shift in
                 ((1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1), (0, 1), (1, 1))]
            count = sum(q.astype(int) for q in p)                # N, NE, E, SE, S, SW, W, NW
            turns = sum((p[i] == 0) & (p[(i + 1) % 8] == 1) for i in range(8))
            n, e, s, w = p[0], p[2], p[4], p[6]
            if first:
                side = (n * e * s == 0) & (e * s * w == 0)
            else:
                side = (n * e * w == 0) & (n * s * w == 0)
            delete = (img == 1) & (count >= 2) & (count <= 6) & (turns == 1) & side
            if delete.any():
                img[delete] = 0
                changed = True
        if not changed:
            break
    return img[1:-1, 1:-1]


def test_thinning_and_spur_pruning_match_whole_image_passes():
    from core.blocks.thinning import nonzero_yx, prune_spurs, thin

    ink = np.zeros((240, 320), np.uint8)
    cv2.rectangle(ink, (20, 20), (300, 220), 1, 5)               # thick outline
    cv2.circle(ink, (160, 120), 60, 1, 9)
    cv2.rectangle(ink, (60, 150), (100, 200), 1, -1)             # a solid blob
    cv2.putText(ink, "Rue 12", (110, 205), cv2.FONT_HERSHEY_SIMPLEX, 1.0, 1, 3)
    for iterations in (2, 8):
        assert np.array_equal(thin(ink, iterations), _zhang_suen_reference(ink, iterations))
    skeleton = np.zeros((60, 120), np.uint8)
    cv2.line(skeleton, (10, 30), (110, 30), 1, 1)                # a line with two free ends
    cv2.line(skeleton, (60, 30), (60, 22), 1, 1)                 # an 8 px spur
    cv2.line(skeleton, (30, 30), (30, 55), 1, 1)                 # a 25 px branch
    pruned = prune_spurs(skeleton, 10)
    assert pruned[30, 10:111].all()                              # the line keeps its ends
    assert not pruned[22:29, 60].any()                           # the spur is gone
    assert pruned[31:56, 30].all()                               # the long branch stays
    mask = thin(ink, 8)
    assert all(np.array_equal(a, b) for a, b in zip(nonzero_yx(mask), np.nonzero(mask),
                                                     strict=True))


def test_a_loose_line_inside_a_region_does_not_make_it_narrow():
    lines = np.zeros((220, 420), np.uint8)
    cv2.rectangle(lines, (10, 10), (410, 210), 1, 1)             # a 400 x 200 block
    cv2.line(lines, (120, 110), (300, 110), 1, 1)                # a stray stroke inside it
    cv2.line(lines, (210, 10), (210, 60), 1, 1)                  # a wall piece from its outline
    mask = np.ones(lines.shape, bool)
    labels, n = regions.partition(lines, mask)
    block = np.array([labels[50, 50]])
    assert regions.region_widths(labels, block, False)[0][0] < 70   # narrowed by it
    radius = regions.region_widths(labels, block, False, lines=lines)[0][0]
    assert 95 <= radius <= 101                                   # half the block's height
    street = np.array([labels[0, 0]])                            # outside: next to the block
    assert regions.region_widths(labels, street, False, lines=lines)[0][0] <= 11
