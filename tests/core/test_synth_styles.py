"""The held-out validation style of core.synth and the training styles never reaching it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from core.errors import InputError
from core.synth import generate_sheet, make_params, sheet_seed
from core.synth.decorations import draw_river, make_river
from core.synth.params import HELDOUT_MARKERS, STYLES, is_heldout
from core.synth.styles import random_style


def _water_mask(river, shape, inset):
    mask = np.zeros(shape, np.uint8)
    inner = river.water.buffer(-inset)
    cv2.fillPoly(mask, [np.round(np.asarray(inner.exterior.coords)).astype(np.int32)], 1)
    return mask > 0


def _river_ink(style):
    shape = (1200, 1200)
    river = make_river(np.random.default_rng(5), (0, 0, 1200, 1200), 1.0)
    layer = np.zeros(shape, np.uint8)
    draw_river(layer, river, np.random.default_rng(6), 1.0, 2, style)
    return layer, _water_mask(river, shape, 12)


def test_heldout_water_is_drawn_in_wavy_horizontal_lines_unlike_the_default():
    wavy, water = _river_ink("wavy")
    banks, _ = _river_ink("banks")
    assert water.sum() > 50000
    w, b = wavy[water] > 100, banks[water] > 100
    assert w.mean() > 0.08 and b.mean() > 0.05          # both draw ink in the water
    assert (w & b).sum() / (w | b).sum() < 0.3          # ... not the same pixels
    # wavy horizontal lines: ink changes far more down a column than along a row
    f = wavy.astype(np.float32)
    inner = water[1:, 1:] & water[:-1, 1:] & water[1:, :-1]
    along_rows = np.abs(np.diff(f, axis=1))[1:, :][inner].mean()
    down_cols = np.abs(np.diff(f, axis=0))[:, 1:][inner].mean()
    assert down_cols > 2.5 * along_rows
    # ... and they wave: no single row keeps its ink across the river
    rows = [r for r in range(1200) if water[r].sum() > 200]
    full = [(wavy[r][water[r]] > 100).mean() for r in rows]
    assert max(full) < 0.9


def test_heldout_sheet_differs_in_drawing_with_the_same_exact_truth():
    seed = sheet_seed(0, 2)
    base = generate_sheet(seed, 1400, difficulty=0.3, jpeg_roundtrip=True, river=True)
    held = generate_sheet(seed, 1400, difficulty=0.3, jpeg_roundtrip=True, river=True,
                          style="heldout")
    assert held.params["style"] == "heldout" and held.params["jpeg_quality"] == 60
    assert held.params["water_style"] == "wavy"
    assert all(f.startswith("EBGaramond") for f in held.params["stats"]["fonts_used"])
    assert not any(f.startswith("EBGaramond") for f in base.params["stats"]["fonts_used"])
    # same layout, so the same truth, pixel for pixel
    assert np.array_equal(held.blocks_mask, base.blocks_mask)
    assert np.array_equal(held.map_mask, base.map_mask)
    assert held.params["stats"]["blocks"] == base.params["stats"]["blocks"] > 10
    # drawn differently: paper colour and line work
    diff = np.abs(held.image.astype(np.int16) - base.image.astype(np.int16)).max(axis=2)
    assert (diff[held.map_mask] > 30).mean() > 0.05
    # the truth still lies inside the drawn outlines, small gaps included
    gray = cv2.cvtColor(held.image, cv2.COLOR_RGB2GRAY)
    dark = gray < np.percentile(gray[held.map_mask], 90) - 50
    blocks = held.blocks_mask.astype(np.uint8)
    ring = (cv2.dilate(blocks, np.ones((5, 5), np.uint8)) > 0) & ~held.blocks_mask
    assert dark[ring].mean() > 0.7


def test_style_names_and_style_fields_are_checked():
    with pytest.raises(InputError, match="style"):
        make_params(1, 1000, style="other")
    with pytest.raises(InputError, match="water_style"):
        make_params(1, 1000, water_style="waves")
    with pytest.raises(InputError, match="outline_dash_px"):
        make_params(1, 1000, outline_dash_px=(3.0, 2.0))
    p = make_params(1, 1000, style="heldout", jpeg_quality=80)
    assert p.jpeg_quality == 80 and p.water_style == "wavy"   # explicit overrides win


def test_training_styles_never_yield_the_heldout_style():
    assert is_heldout({"style": "heldout"}) and is_heldout(STYLES["heldout"])
    seen_water, seen_fonts, qualities = set(), set(), []
    for seed in range(400):
        style = random_style(seed)
        assert not is_heldout(style)
        for key, value in HELDOUT_MARKERS.items():
            assert style[key] != value
        make_params(seed, 1000, **style)             # every drawn style is valid
        seen_water.add(style["water_style"])
        seen_fonts.add(style["lettering_font"])
        qualities.append(style["jpeg_quality"])
    assert seen_water == {"banks", "horizontal", "cross", "stipple", "none"}
    assert seen_fonts == {"liberation", "dejavu", "sans", "condensed"}
    assert min(qualities) < 35 and max(qualities) > 90
