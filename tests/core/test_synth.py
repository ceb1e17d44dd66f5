"""core.synth: ground truth exactness, masks, determinism, files and the command line."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from core.errors import InputError
from core.formats.mapseg_csv import read_points_csv
from core.formats.qgis_points import read_points_file
from core.imageio import read_image, read_mask
from core.synth import (
    PARIS_GRID_CRS,
    SheetGeometry,
    generate_sheet,
    run_difficulty,
    sheet_seed,
    write_sheet,
)
from core.synth.__main__ import main as synth_main
from core.synth.warp import Fold, random_warp

SMALL = 1600
SPACING = 450.0
CLEAN = {"noise_sigma": 0.0, "blur_sigma": 0.0, "ink_fade": 0.0, "grid_fade": 0.0,
         "stains": 0, "foxing": 0, "grid_gap_fraction": 0.0, "distractors_per_line": 0.0}


def _crossing(gray: np.ndarray, sheet, e: float, n: float) -> np.ndarray | None:
    """The crossing of grid lines e and n measured on the image: the centroids of the
    darkness across each line at 8-14 px from the crossing, a straight line fitted through
    them, and the two lines intersected. None when a sample comes near the frame."""
    p0 = sheet.grid_to_pixel(e, n)
    fits = []
    for de, dn in ((1.0, 0.0), (0.0, 1.0)):
        d = sheet.grid_to_pixel(e + 5 * de, n + 5 * dn) - p0
        d /= np.linalg.norm(d)
        nrm = np.array([-d[1], d[0]])
        pts = []
        for s in (-14, -11, -8, 8, 11, 14):
            c = p0 + d * s
            offs = np.arange(-5.0, 5.01, 0.25)
            q = (c[None, :] + offs[:, None] * nrm[None, :]).astype(np.float32)
            if not sheet.map_mask[int(q[:, 1].min()) - 12:int(q[:, 1].max()) + 13,
                                  int(q[:, 0].min()) - 12:int(q[:, 0].max()) + 13].all():
                return None  # too close to the frame line
            v = cv2.remap(gray, q[None, :, 0], q[None, :, 1], cv2.INTER_LINEAR)[0]
            left, right = np.median(v[offs < -3.5]), np.median(v[offs > 3.5])
            paper = left + (right - left) * (offs + 5.0) / 10.0  # paper shade may vary
            w = np.clip(paper - v - 3.0, 0, None)
            pts.append(c + nrm * float(np.sum(w * offs) / np.sum(w)))
        pts = np.array(pts)
        m = pts.mean(axis=0)
        fits.append((m, np.linalg.svd(pts - m)[2][0]))
    (m1, d1), (m2, d2) = fits
    t = np.linalg.solve(np.array([d1, -d2]).T, m2 - m1)
    return m1 + d1 * t[0]


@pytest.mark.parametrize("orientation", ["axis", "tilted", "rot90"])
def test_ground_truth_is_the_drawn_crossing_within_a_tenth_of_a_pixel(orientation):
    sheet = generate_sheet(11, SMALL, difficulty=0.5, spacing_px=SPACING, content="graticule",
                           orientation=orientation, warp_amplitude_px=6.0, fold=True,
                           fold_position=0.5, fold_amplitude_px=2.5, fold_width_px=12.0,
                           **CLEAN)
    gray = cv2.cvtColor(sheet.image, cv2.COLOR_RGB2GRAY).astype(np.float32)
    fold = sheet.geometry.warp.fold
    errors, shifted = [], 0
    for (e, n), xy in zip(sheet.grid_xy, sheet.intersections, strict=True):
        # lines bend across the fold's 12 px wide step: straight fits need to stay clear
        ux = sheet.geometry.output_to_upright(xy[0], xy[1])[0]
        if abs(ux - fold.position) < 40:
            continue
        measured = _crossing(gray, sheet, e, n)
        if measured is not None:
            errors.append(np.linalg.norm(measured - xy))
            shifted += abs(ux - fold.position) < 400  # moved by most of the fold's 2.5 px
    assert len(errors) >= 6 and shifted >= 1
    assert max(errors) < 0.1, errors


def test_warp_forward_inverts_backward_exactly():
    rng = np.random.default_rng(3)
    warp = random_warp(rng, 4000, 3000, 6.0, Fold(2000.0, 2.5, 12.0))
    assert warp.max_gradient() < 0.5
    x = rng.uniform(0, 4000, 500)
    y = rng.uniform(0, 3000, 500)
    u, v = warp.backward(x, y)
    assert np.abs(np.hypot(u - x, v - y)).max() > 2.0  # the warp does move points
    fx, fy = warp.forward(u, v)
    assert np.abs(fx - x).max() < 1e-8 and np.abs(fy - y).max() < 1e-8
    # the float32 maps given to cv2.remap are the same function
    mx, my = warp.band_maps(4000, 3000, 1000, 1010)
    xs, ys = np.meshgrid(np.arange(4000), np.arange(1000, 1010))
    bx, by = warp.backward(xs, ys)
    assert np.abs(mx - bx).max() < 2e-3 and np.abs(my - by).max() < 2e-3
    # turned output: the maps of a scan turned k times are the upright maps turned k times
    upright = np.stack(warp.band_maps(1200, 900, 0, 900))
    for k in (1, 2, 3):
        turned = np.stack(warp.band_maps(1200, 900, 0, 900 if k % 2 == 0 else 1200, k))
        assert np.abs(turned - np.rot90(upright, k, axes=(1, 2))).max() < 2e-3, k


@pytest.fixture(scope="module")
def hard_sheets():
    """Full-content sheets from medium to hardest, as decoded from their JPEG."""
    return [generate_sheet(seed, 2000, difficulty=d, spacing_px=520.0, jpeg_roundtrip=True,
                           orientation=o)
            for seed, d, o in ((21, 0.2, "axis"), (22, 0.7, "tilted"), (23, 1.0, "rot90"))]


def test_ground_truth_intersections_lie_on_dark_line_pixels(hard_sheets):
    for sheet in hard_sheets:
        assert len(sheet.intersections) >= 4, sheet.params["difficulty"]
        gray = cv2.cvtColor(sheet.image, cv2.COLOR_RGB2GRAY).astype(np.float32)
        for x, y in sheet.intersections:
            c, r = int(np.floor(x)), int(np.floor(y))
            core = gray[r - 1:r + 2, c - 1:c + 2]
            paper = np.percentile(gray[r - 25:r + 26, c - 25:c + 26], 80)
            assert core.min() < paper - 15, (sheet.params["difficulty"], x, y, core.min(),
                                             paper)
            assert sheet.map_mask[r, c]


def test_grid_orientation_north_up_and_rotated():
    up = generate_sheet(5, SMALL, difficulty=0.0, spacing_px=SPACING, content="graticule")
    assert up.params["orientation"] == "axis"
    p = up.grid_to_pixel(np.array([0.0, 1000.0, 0.0]), np.array([0.0, 0.0, 1000.0]))
    east, north = p[1] - p[0], p[2] - p[0]
    assert east[0] == pytest.approx(SPACING, abs=2) and abs(east[1]) < 5  # easting: right
    assert north[1] == pytest.approx(-SPACING, abs=2) and abs(north[0]) < 5  # northing: up
    turned = generate_sheet(5, SMALL, difficulty=0.0, spacing_px=SPACING, content="graticule",
                            orientation="rot90", quarter_turns=1)
    p = turned.grid_to_pixel(np.array([0.0, 1000.0]), np.array([0.0, 0.0]))
    assert (p[1] - p[0])[1] == pytest.approx(-SPACING, abs=2)  # a left turn: east is up


def test_grid_coordinates_and_pixel_mapping_agree(hard_sheets):
    for sheet in hard_sheets:
        gx = sheet.grid_xy
        assert np.all(gx % 1000.0 == 0)
        assert np.allclose(sheet.grid_to_pixel(gx[:, 0], gx[:, 1]), sheet.intersections)
        back = sheet.pixel_to_grid(sheet.intersections[:, 0], sheet.intersections[:, 1])
        assert np.abs(back - gx).max() < 1e-6
        # NNN.json alone rebuilds the mapping
        rebuilt = SheetGeometry.from_dict(json.loads(json.dumps(sheet.params))["geometry"])
        e = np.array([-1234.5, 250.0])
        nn = np.array([777.0, -42.0])
        assert np.allclose(rebuilt.grid_to_pixel(e, nn), sheet.grid_to_pixel(e, nn),
                           atol=1e-9)
        # every listed point is inside the image and the map area
        h, w = sheet.map_mask.shape
        xy = sheet.intersections
        assert np.all((xy >= 0) & (xy < [w, h]))


def _ring(mask: np.ndarray, width: int) -> np.ndarray:
    kernel = np.ones((2 * width + 1, 2 * width + 1), np.uint8)
    return (cv2.dilate(mask.astype(np.uint8), kernel) > 0) & ~mask


def _line_work_sheet(subdivision_fraction: float):
    """A sheet of outlines (and parcel lines) only: no hatching, gardens, lettering, gaps."""
    return generate_sheet(31, 2200, difficulty=0.3, spacing_px=700.0, hatch_fraction=0.0,
                          subdivision_fraction=subdivision_fraction, garden_fraction=0.0,
                          text_density=0.0, broken_outline_fraction=0.0, district_labels=0,
                          red_boundaries=0, grid_alpha=0.3, **CLEAN)


def test_blocks_mask_is_bounded_by_the_drawn_outlines():
    sheet = _line_work_sheet(subdivision_fraction=0.0)
    gray = cv2.cvtColor(sheet.image, cv2.COLOR_RGB2GRAY)
    paper = np.percentile(gray[sheet.map_mask], 90)
    dark = gray < paper - 60
    blocks = sheet.blocks_mask
    n, labels = cv2.connectedComponents(blocks.astype(np.uint8), connectivity=4)
    assert n - 1 == sheet.params["stats"]["blocks"] >= 10
    # the pixels just outside every block are outline ink ...
    ring = _ring(blocks, 2)
    assert dark[ring].mean() > 0.9
    for k in range(1, n):
        comp = labels == k
        assert dark[_ring(comp, 2)].mean() > 0.75, k
    # ... and outline ink does not enter the blocks (only graticule lines cross them)
    assert dark[blocks].mean() < 0.02


def test_shapes_mask_is_bounded_by_outlines_and_parcel_lines():
    sheet = _line_work_sheet(subdivision_fraction=1.0)
    gray = cv2.cvtColor(sheet.image, cv2.COLOR_RGB2GRAY)
    dark = gray < np.percentile(gray[sheet.map_mask], 90) - 60
    shapes = sheet.shapes_mask()
    n_shapes = cv2.connectedComponents(shapes.astype(np.uint8), connectivity=4)[0] - 1
    assert n_shapes >= 2 * sheet.params["stats"]["blocks"]     # blocks split into parcels
    assert (shapes & sheet.blocks_mask).sum() >= 0.995 * shapes.sum()
    # outline or parcel-line ink (drawn lighter and thinner) within a pixel all around them
    near_ink = cv2.dilate(dark.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    assert near_ink[_ring(shapes, 2)].mean() > 0.95   # measured 0.979
    assert dark[shapes].mean() < 0.01                 # measured 0.004


def test_each_block_is_one_component_on_full_sheets(hard_sheets):
    for sheet in hard_sheets:
        n = cv2.connectedComponents(sheet.blocks_mask.astype(np.uint8), connectivity=4)[0]
        assert n - 1 == sheet.params["stats"]["blocks"] > 20
        assert not (sheet.blocks_mask & ~sheet.map_mask).any()
        gray = cv2.cvtColor(sheet.image, cv2.COLOR_RGB2GRAY)
        dark = gray < np.percentile(gray[sheet.map_mask], 90) - 50
        assert dark[_ring(sheet.blocks_mask, 2)].mean() > 0.7


def test_same_seed_same_sheet_other_seed_other_sheet(tmp_path):
    a = generate_sheet(8, 1200, difficulty=0.6, spacing_px=400.0)
    b = generate_sheet(8, 1200, difficulty=0.6, spacing_px=400.0)
    c = generate_sheet(9, 1200, difficulty=0.6, spacing_px=400.0)
    assert np.array_equal(a.image, b.image) and np.array_equal(a.blocks_mask, b.blocks_mask)
    assert np.array_equal(a.intersections, b.intersections)
    assert not np.array_equal(a.image, c.image)
    pa = write_sheet(a, tmp_path / "a", "001")
    pb = write_sheet(b, tmp_path / "b", "001")
    for key in pa:
        assert pa[key].read_bytes() == pb[key].read_bytes(), key


def test_write_sheet_writes_six_readable_files(tmp_path):
    sheet = generate_sheet(4, (1800, 1400), difficulty=0.4, spacing_px=500.0)
    paths = write_sheet(sheet, tmp_path, "007")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "007-BLOCKS-GT.png", "007-INPUT-MASK.png", "007-INPUT.jpg", "007-OUTPUT-GT.csv",
        "007.json", "007.points"]
    img = read_image(paths["image"])
    assert img.shape == (1400, 1800, 3)
    assert paths["gt_csv"].read_text().splitlines()[0] == "x,y"
    assert np.abs(read_points_csv(paths["gt_csv"]) - sheet.intersections).max() < 1e-3
    gcps = read_points_file(paths["points"])
    assert gcps.crs == PARIS_GRID_CRS
    assert np.allclose(gcps.map_xy, sheet.grid_xy)
    # QGIS puts the image's top-left corner, not its first pixel's centre, at (0, 0)
    assert np.allclose(gcps.pixel_xy, sheet.intersections + 0.5)
    assert np.array_equal(read_mask(paths["mask"], (1400, 1800)), sheet.map_mask)
    assert np.array_equal(read_mask(paths["blocks"], (1400, 1800)), sheet.blocks_mask)
    params = json.loads(paths["json"].read_text())
    for key in ("seed", "difficulty", "tilt_deg", "spacing_px", "warp_amplitude_px",
                "quarter_turns", "jpeg_quality", "geometry", "grid_crs"):
        assert key in params
    assert params["intersections"] == len(sheet.intersections)
    # the JPEG is at the recorded quality: re-encoding at it changes little
    assert 70 <= params["jpeg_quality"] <= 95
    assert np.abs(img.astype(int) - sheet.image.astype(int)).mean() < 3.0


def test_difficulty_defaults_spread_and_bad_parameters():
    ds = [run_difficulty(k) for k in range(20)]
    assert min(ds) == 0.0 and max(ds) > 0.9
    assert np.histogram(ds, bins=5, range=(0, 1))[0].min() >= 3
    assert sheet_seed(1, 2) != sheet_seed(1, 3) and sheet_seed(1, 2) == sheet_seed(1, 2)
    with pytest.raises(InputError, match="unknown sheet parameter"):
        generate_sheet(1, 800, colour="blue")
    with pytest.raises(InputError, match="out of range"):
        generate_sheet(1, 100)
    with pytest.raises(InputError, match="difficulty"):
        generate_sheet(1, 800, difficulty=1.5)


def test_command_line_sheet_k_reproducible_alone(tmp_path, capsys):
    args = ["--size", "900", "--spacing", "300", "--seed", "5"]
    assert synth_main([str(tmp_path / "run"), "--count", "3", *args]) == 0
    assert synth_main([str(tmp_path / "one"), "--count", "1", "--first-index", "2", *args]) == 0
    run, one = tmp_path / "run", tmp_path / "one"
    assert len(list(run.iterdir())) == 18
    for name in ("002-INPUT.jpg", "002-OUTPUT-GT.csv", "002-BLOCKS-GT.png", "002.points"):
        assert (run / name).read_bytes() == (one / name).read_bytes(), name
    params = [json.loads((run / f"00{k}.json").read_text()) for k in range(3)]
    assert [p["difficulty"] for p in params] == [run_difficulty(k) for k in range(3)]


def test_command_line_bad_input_writes_nothing(tmp_path):
    from core.cli import run_cli

    out = tmp_path / "out"
    assert run_cli(synth_main, [str(out), "--size", "50"]) == 2
    assert run_cli(synth_main, [str(out), "--difficulty", "2"]) == 2
    assert run_cli(synth_main, [str(out), "--count", "0"]) == 2
    assert not out.exists()


def test_hidden_crossings_are_left_out_and_recorded():
    sheet = generate_sheet(12, 2400, difficulty=0.5, spacing_px=300.0, content="graticule",
                           grid_gap_fraction=0.3, grid_gap_length_px=(60.0, 200.0))
    hidden = np.array(sheet.params["hidden_intersections"]).reshape(-1, 2)
    assert len(hidden) >= 3 and len(sheet.grid_xy) >= 10
    listed = {tuple(v) for v in sheet.grid_xy.tolist()}
    assert not listed & {tuple(v) for v in hidden.tolist()}


def test_progress_callback_can_cancel():
    from core.progress import Cancelled

    seen = []

    def stop(fraction: float, message: str) -> None:
        seen.append(fraction)
        if fraction > 0.3:
            raise Cancelled

    with pytest.raises(Cancelled):
        generate_sheet(2, 800, progress=stop)
    assert seen == sorted(seen) and seen[0] < 0.3


def test_generated_sheet_resembles_the_real_crop(real_crop):
    """Paper colour and ink coverage of a generated sheet are those of the real scan."""
    real = read_image(real_crop / "INPUT.jpg")
    real_mask = read_mask(real_crop / "INPUT-MASK.png", real.shape[:2])
    sheet = generate_sheet(1925, 3000, difficulty=0.35, jpeg_roundtrip=True)

    def stats(img: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, float]:
        gray = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)
        inside = gray[mask]
        paper = np.median(img[mask & (gray > np.percentile(inside, 60))], axis=0)
        return paper, float((inside < 150).mean())

    real_paper, real_ink = stats(real, real_mask)
    gen_paper, gen_ink = stats(sheet.image, sheet.map_mask)
    assert np.abs(gen_paper - real_paper).max() < 15, (gen_paper, real_paper)
    assert 0.4 * real_ink < gen_ink < 2.0 * real_ink, (gen_ink, real_ink)
