"""The real 1925 crop's crossings do not hinge on the fine edge of its map-area mask.

The crop is a narrow map (9000 x 3000 px): its column lines cross four strips of the
search at most, so which of their strips count as map, and so at which angle each line
scores best, moves with a few pixels of the mask's edge. The crossings must not: with the
map area computed (the command's default without a mask file), with the mask file, and with
either mask's edge moved by a few pixels in or out, the same 3 crossings are found.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from core.formats.mapseg_csv import read_points_csv
from core.graticule import detect_graticule
from core.imageio import read_mask, read_red_channel
from core.maparea import map_area_mask

EDGE_SHIFTS_PX = (-6, -3, 3, 6)   # erosion (in) or dilation (out) of the mask's edge


@pytest.fixture(scope="module")
def crop_gray(real_crop) -> np.ndarray:
    return read_red_channel(real_crop / "INPUT.jpg")


@pytest.fixture(scope="module")
def masks(real_crop, crop_gray) -> dict[str, np.ndarray]:
    """The crop's mask file and the map area core.maparea computes (bool, full size)."""
    return {"file": read_mask(real_crop / "INPUT-MASK.png", crop_gray.shape),
            "computed": map_area_mask(crop_gray)}


@pytest.fixture(scope="module")
def truth(real_crop) -> np.ndarray:
    return read_points_csv(real_crop / "GRATICULE-GT.csv")


def moved_edge(mask: np.ndarray, px: int) -> np.ndarray:
    """``mask`` with its edge moved ``px`` pixels out (> 0) or in (< 0), by a disc."""
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * abs(px) + 1, 2 * abs(px) + 1))
    op = cv2.dilate if px > 0 else cv2.erode
    return op(mask.view(np.uint8), disc) > 0


def visible_crossings(gray: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The visible crossings found, sorted by x (pixels, x right, y down)."""
    points = detect_graticule(gray, mask).visible_only().points
    return points[np.argsort(points[:, 0])]


def test_the_computed_map_area_is_almost_the_mask_file(masks):
    file, computed = masks["file"], masks["computed"]
    iou = (file & computed).sum() / (file | computed).sum()
    assert iou > 0.99, iou


@pytest.mark.parametrize("mask_name", ["file", "computed"])
def test_all_three_crossings_with_either_mask(crop_gray, masks, truth, mask_name):
    found = visible_crossings(crop_gray, masks[mask_name])
    assert len(found) == 3, found
    assert np.abs(found - truth[np.argsort(truth[:, 0])]).max() < 2.0, found


@pytest.mark.parametrize("shift_px", EDGE_SHIFTS_PX)
@pytest.mark.parametrize("mask_name", ["file", "computed"])
def test_moving_the_mask_edge_a_few_pixels_keeps_the_same_crossings(crop_gray, masks, truth,
                                                                     mask_name, shift_px):
    reference = visible_crossings(crop_gray, masks[mask_name])
    found = visible_crossings(crop_gray, moved_edge(masks[mask_name], shift_px))
    assert found.shape == reference.shape == (3, 2), found
    assert np.abs(found - reference).max() < 0.5, found - reference
