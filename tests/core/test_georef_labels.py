"""core.georef.grid_labels: anchors, orientation (rotations by 90 degrees, mirrors), snapping."""

from __future__ import annotations

import numpy as np
import pytest

from core.errors import InputError
from core.georef.grid_labels import (
    NORTH_UP,
    Anchor,
    graticule_from_points,
    label_intersections,
    parse_anchor,
    snap_to_grid,
    solve_labelling,
)

SPACING = 1000.0
CELL_PX = 470.0


def _sheet(quarter_turns: int, tilt_deg: float = 3.0, noise: float = 0.5, seed: int = 0):
    """True pixel positions, image-oriented indices and grid coordinates of the nodes of a
    grid drawn north-up, tilted, then turned by quarter_turns x 90 degrees clockwise."""
    t = np.radians(tilt_deg)
    rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    a = CELL_PX / SPACING * rot @ np.diag([1.0, -1.0])  # grid (E, N) -> pixel, north up
    quarter = np.array([[0.0, -1.0], [1.0, 0.0]])  # 90 degrees clockwise on screen
    for _ in range(quarter_turns % 4):
        a = quarter @ a
    e, n = np.meshgrid(np.arange(-2, 4) * SPACING, np.arange(1, 6) * SPACING)
    grid = np.column_stack([e.ravel(), n.ravel()])
    pix = (grid - [-2000.0, 5000.0]) @ a.T
    pix -= pix.min(axis=0) - 300.0
    # image-oriented indices: column grows with x, row with y
    step_e, step_n = a[:, 0] * SPACING, a[:, 1] * SPACING
    colvec = step_e if abs(step_e[0]) > abs(step_n[0]) else step_n
    rowvec = step_n if colvec is step_e else step_e
    col_sign = np.sign(colvec[0])
    row_sign = np.sign(rowvec[1])
    col_of = grid[:, 0] if colvec is step_e else grid[:, 1]
    row_of = grid[:, 1] if colvec is step_e else grid[:, 0]
    index = np.column_stack([np.round(col_sign * col_of / SPACING),
                             np.round(row_sign * row_of / SPACING)]).astype(int)
    index -= index.min(axis=0)
    rng = np.random.default_rng(seed)
    noisy = pix + rng.normal(0, noise, pix.shape)
    size = tuple(int(v) for v in pix.max(axis=0) + 300)
    return noisy, index, grid, size


def test_parse_anchor_forms_and_errors():
    a = parse_anchor(" 2276.1, 1667.5 = -1000,2e3 ")
    assert a.pixel_xy == (2276.1, 1667.5) and a.grid_xy == (-1000.0, 2000.0)
    for bad in ["2276,1667", "2276,1667=-1000", "a,b=c,d", "1,2,3=4,5"]:
        with pytest.raises(InputError, match="X,Y=E,N"):
            parse_anchor(bad)


def test_one_anchor_means_north_up_and_exact_grid():
    pix, index, grid, size = _sheet(0)
    res = graticule_from_points(pix, index, size)
    k = 7
    anchor = Anchor(tuple(pix[k] + [60.0, -45.0]), tuple(grid[k]))  # rough click, same node
    labelled, lab = label_intersections(res, [anchor], SPACING)
    assert np.array_equal(labelled, grid)
    assert np.array_equal(lab.orientation, NORTH_UP) and lab.north_in_image == "up"
    assert not lab.mirrored and any("north-up" in w for w in lab.warnings)


@pytest.mark.parametrize(("turns", "north"), [(1, "right"), (2, "down"), (3, "left")])
def test_two_anchors_fix_any_quarter_rotation(turns, north):
    pix, index, grid, size = _sheet(turns)
    res = graticule_from_points(pix, index, size)
    anchors = [Anchor(tuple(pix[i]), tuple(grid[i]), f"a{i}") for i in (0, 8)]
    labelled, lab = label_intersections(res, anchors, SPACING)
    assert np.array_equal(labelled, grid)  # never shifted by a cell, never mirrored
    assert lab.north_in_image == north and not lab.mirrored
    assert round(abs(np.linalg.det(lab.orientation))) == 1


def test_two_anchors_on_one_grid_line_prefer_the_unmirrored_grid():
    pix, index, grid, size = _sheet(1)
    res = graticule_from_points(pix, index, size)
    same_row = [i for i in range(len(grid)) if grid[i, 1] == grid[0, 1]][:2]
    labelled, lab = label_intersections(
        res, [Anchor(tuple(pix[i]), tuple(grid[i])) for i in same_row], SPACING)
    assert np.array_equal(labelled, grid) and not lab.mirrored


def test_mirror_only_when_the_anchors_demand_it():
    pix, index, grid, size = _sheet(0)
    res = graticule_from_points(pix, index, size)
    mirrored = grid * [-1.0, 1.0]  # easting runs right to left
    anchors = [Anchor(tuple(pix[i]), tuple(mirrored[i])) for i in (0, 8, 20)]
    labelled, lab = label_intersections(res, anchors, SPACING)
    assert lab.mirrored and any("mirrored" in w for w in lab.warnings)
    assert np.array_equal(labelled, mirrored)


def test_a_wrong_anchor_is_outvoted_and_reported():
    pix, index, grid, size = _sheet(2)
    res = graticule_from_points(pix, index, size)
    anchors = [Anchor(tuple(pix[i]), tuple(grid[i]), f"anchor {i}") for i in (0, 9, 23)]
    anchors[1] = Anchor(anchors[1].pixel_xy, (grid[9, 0] + 1000.0, grid[9, 1]), "anchor 9")
    labelled, lab = label_intersections(res, anchors, SPACING)
    assert np.array_equal(labelled, grid)
    assert lab.rejected_anchors == [1] and "anchor 9 disagrees" in " ".join(lab.warnings)


def test_disagreeing_or_missing_anchors_are_input_errors():
    with pytest.raises(InputError, match="--anchor X,Y=E,N .* or --gcps FILE.points"):
        solve_labelling(np.zeros((0, 2)), np.zeros((0, 2)), SPACING)
    idx = np.array([[0, 0], [1, 0]])
    with pytest.raises(InputError, match="anchors disagree.*--spacing"):
        solve_labelling(idx, np.array([[0.0, 0.0], [2500.0, 700.0]]), SPACING)
    with pytest.raises(InputError, match="anchors disagree"):  # same node, two names
        solve_labelling(np.array([[1, 1], [1, 1]]), np.array([[0.0, 0.0], [1000.0, 0.0]]),
                        SPACING)


def test_snapping_follows_the_line_families_even_with_other_numbering():
    pix, index, grid, size = _sheet(0, tilt_deg=8.0)
    shifted = index + np.array([5, -2])  # a detector numbering from elsewhere
    res = graticule_from_points(pix, shifted, size)
    assert np.array_equal(snap_to_grid(res, pix + np.array([100.0, -120.0])), shifted)
    assert res.columns.normal_angle_deg == pytest.approx(8.0, abs=0.1)
    assert res.rows.normal_angle_deg == pytest.approx(98.0, abs=0.1)
    assert res.columns.spacing_px == pytest.approx(CELL_PX, rel=1e-3)


def test_graticule_from_points_needs_two_directions():
    with pytest.raises(InputError, match="three intersections"):
        graticule_from_points(np.array([[0.0, 0.0], [10.0, 0.0], [20.0, 0.0]]),
                              np.array([[0, 0], [1, 0], [2, 0]]), (100, 100))
