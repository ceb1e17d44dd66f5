"""The held-out validation style of core.synth and the training styles never reaching it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from core.errors import InputError
from core.synth import generate_sheet, make_params, sheet_seed
from core.synth.decorations import draw_river, make_river
from core.synth.organic import organic_street_network
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
    for name in ("heldout", "heldout-organic"):
        assert is_heldout({"style": name}) and is_heldout(STYLES[name])
    seen_water, seen_fonts, qualities = set(), set(), []
    for seed in range(400):
        style = random_style(seed)
        assert not is_heldout(style)
        for key, value in HELDOUT_MARKERS.items():
            assert style.get(key) != value
        make_params(seed, 1000, **style)             # every drawn style is valid
        seen_water.add(style["water_style"])
        seen_fonts.add(style["lettering_font"])
        qualities.append(style["jpeg_quality"])
    assert seen_water == {"banks", "horizontal", "cross", "stipple", "none"}
    assert seen_fonts == {"liberation", "dejavu", "sans", "condensed"}
    assert min(qualities) < 35 and max(qualities) > 90


def _edge_angles(cells):
    """Directions (degrees, 0-180) of the cells' sides, weighted by length."""
    angles, lengths = [], []
    for c in cells:
        d = np.roll(c, -1, axis=0) - c
        angles.append(np.degrees(np.arctan2(d[:, 1], d[:, 0])) % 180.0)
        lengths.append(np.hypot(d[:, 0], d[:, 1]))
    return np.concatenate(angles), np.concatenate(lengths)


def test_organic_layout_has_irregular_blocks_apart_from_each_other():
    from shapely.geometry import Polygon

    cells, streets = organic_street_network(np.random.default_rng(3), (0, 0, 3000, 3000), 1.0)
    polys = [Polygon(c) for c in cells]
    assert len(polys) > 60 and all(p.is_valid for p in polys)
    # blocks are set back from one another: no two overlap or touch
    for i, p in enumerate(polys):
        for q in polys[i + 1:]:
            assert p.distance(q) > 5.0
    # sides go every way, unlike the planned grid's mostly square streets
    angles, lengths = _edge_angles(cells)
    hist, _ = np.histogram(angles, bins=6, range=(0, 180), weights=lengths)
    assert hist.min() > 0.08 * hist.sum()
    assert any(s.level == 0 and s.width >= 45.0 for s in streets)       # boulevards
    assert sum(s.level == 3 for s in streets) > len(cells)              # lanes between blocks


def test_heldout_organic_style_draws_another_layout_with_its_truth():
    grid = generate_sheet(4, 1500, difficulty=0.2)
    organic = generate_sheet(4, 1500, difficulty=0.2, style="heldout-organic")
    assert organic.params["street_layout"] == "organic" and organic.params["water_style"] == "wavy"
    assert grid.params["street_layout"] == "grid"
    a, b = grid.blocks_mask, organic.blocks_mask
    assert b.mean() > 0.2 and (a & b).sum() / (a | b).sum() < 0.8   # other blocks, truth drawn
    assert np.array_equal(grid.map_mask, organic.map_mask)         # same sheet otherwise
    # the ink of the sheet follows its truth: block outlines are dark in the picture
    gray = cv2.cvtColor(organic.image, cv2.COLOR_RGB2GRAY)
    dark = gray < np.percentile(gray[organic.map_mask], 90) - 50
    ring = (cv2.dilate(b.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0) & ~b
    assert dark[ring].mean() > 0.7
