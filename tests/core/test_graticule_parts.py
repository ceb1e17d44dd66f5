"""Building blocks of graticule detection on drawn test images with known geometry."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from core.graticule.angles import angle_difference, normalise_angle
from core.graticule.coarse import ridge_image
from core.graticule.intersections import refine_crossing
from core.graticule.linetrack import robust_polyfit, track_line


def _paper(h=800, w=800, seed=0):
    rng = np.random.default_rng(seed)
    return np.clip(rng.normal(225, 3, (h, w)), 0, 255).astype(np.uint8)


def _draw_line(img, p0, p1, value=150, width=1, shift=4):
    """Antialiased line with sub-pixel end points (pixel centres at integers)."""
    f = 1 << shift
    a = tuple(round(v * f) for v in p0)
    b = tuple(round(v * f) for v in p1)
    cv2.line(img, a, b, value, width, cv2.LINE_AA, shift)


def test_angles_wrap_into_the_detection_range():
    assert normalise_angle(170.0, 5.0) == (-10.0, -5.0)
    assert normalise_angle(-60.0, 5.0) == (120.0, -5.0)
    assert angle_difference(179.0, -1.0) == pytest.approx(0.0)
    assert angle_difference(10.0, 100.0) == pytest.approx(-90.0)


def test_ridge_image_keeps_thin_lines_and_drops_edges_and_areas():
    img = _paper()
    img[:, 400:] = 120                      # an edge and a wide dark area
    _draw_line(img, (200, 0), (200, 799))   # a thin vertical line
    r = ridge_image(img, 2)
    assert r[400, 200] > 40                 # the line
    assert r[400, 399] < 10 and r[400, 600] < 10   # the edge and the area
    assert r[400, 100] < 10                 # paper


def test_robust_polyfit_ignores_outliers():
    rng = np.random.default_rng(1)
    t = np.linspace(0, 9000, 300)
    u = 2e-7 * t**2 - 1e-3 * t + 3 + rng.normal(0, 0.2, t.size)
    u[::3] = rng.uniform(-20, 20, 100)      # a third are clutter
    coef, inl = robust_polyfit(t, u, 2, tol=1.0)
    np.testing.assert_allclose(coef, [2e-7, -1e-3, 3], rtol=0.05, atol=0.2)
    assert 190 <= inl.sum() <= 210


def test_track_line_finds_a_faint_tilted_line_among_clutter_to_a_tenth_of_a_pixel():
    img = _paper(1200, 1200)
    rng = np.random.default_rng(3)
    for _ in range(60):                      # black strokes in every direction
        p = rng.uniform(0, 1200, 2)
        d = rng.normal(size=2)
        _draw_line(img, p, p + 80 * d / np.hypot(*d), value=40, width=2)
    p0, p1 = np.array([100.3, 0.0]), np.array([140.7, 1199.0])   # 1.9 degrees from vertical
    _draw_line(img, p0, p1, value=195)       # faint: 30 grey levels
    d = (p1 - p0) / np.hypot(*(p1 - p0))
    guess = p0 + np.array([3.0, 0.0])        # 3 px off
    track = track_line(img, guess, d, 0, 1199, search_px=8)
    assert track.coverage > 0.7
    for t in (200.0, 600.0, 1000.0):
        true = p0 + t * d
        got = track.point_at((true - guess) @ d)
        assert np.hypot(*(got - true)) < 0.15


def test_refine_crossing_is_sub_pixel():
    img = _paper()
    a0, a1 = np.array([401.25, 0.0]), np.array([395.75, 799.0])
    b0, b1 = np.array([0.0, 300.6]), np.array([799.0, 309.4])
    _draw_line(img, a0, a1, 170, 2)
    _draw_line(img, b0, b1, 170, 1)
    da, db = (a1 - a0) / np.hypot(*(a1 - a0)), (b1 - b0) / np.hypot(*(b1 - b0))
    m = np.column_stack([da, -db])
    s, _ = np.linalg.solve(m, b0 - a0)
    truth = a0 + s * da
    p, la, lb = refine_crossing(img, truth + np.array([4.0, -3.0]), da, db, min_strength=6,
                                search_px=(12.0, 12.0))
    assert np.hypot(*(p - truth)) < 0.15
    assert la.support > 0.8 and lb.support > 0.8


@pytest.mark.parametrize(("seed", "orientation"), [(21, "tilted"), (22, "rot90"), (23, "axis")])
def test_generated_sheets_are_found_to_a_fraction_of_a_pixel(seed, orientation):
    from core.graticule import detect_graticule
    from core.metrics.point_detection import pds
    from core.synth import generate_sheet

    sheet = generate_sheet(seed, 2500, spacing_px=700.0, difficulty=0.4,
                           orientation=orientation)
    result = detect_graticule(sheet.image, sheet.map_mask).visible_only()
    found = result.points
    assert pds(sheet.intersections, found).score > 0.95
    errors = [np.hypot(*(sheet.intersections - p).T).min() for p in found]
    assert np.median(errors) < 0.3
    # every intersection carries the grid index of its lines: one step is one grid cell
    grid = {tuple(i): g for i, g in zip(result.index, _grid_of(sheet, result.points), strict=True)}
    steps = {(a, b) for a in grid for b in grid if abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1}
    assert steps
    for a, b in steps:
        assert np.isclose(np.hypot(*(np.subtract(grid[a], grid[b]))), 1000.0)


def _grid_of(sheet, points):
    """Grid coordinates of the true intersections nearest the found points."""
    j = [int(np.argmin(np.hypot(*(sheet.intersections - p).T))) for p in points]
    return sheet.grid_xy[j]
