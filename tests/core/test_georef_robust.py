"""core.georef.robust: MAGSAC++ weight and loss, outlier rejection on synthetic and on the 144
real Paris atlas GCP sets (one point corrupted by a 1000 m label error on every sheet)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from core.errors import InputError
from core.formats.qgis_points import read_points_file
from core.georef.robust import K_SIGMA, magsac_loss, magsac_weight, pixel_residuals, robust_fit
from core.georef.transforms import fit_transform


@pytest.fixture(scope="module")
def sheets(shared):
    files = sorted(Path(shared, "data", "paris-atlas-gcps").glob("*.points"))
    out = []
    for f in files:
        g = read_points_file(f).only_enabled()
        out.append((f.stem, g.pixel_xy, g.map_xy))
    assert len(out) == 144
    return out


def _default_threshold(pix: np.ndarray, mapxy: np.ndarray) -> float:
    """The pipeline's default: 3 % of a 1000 m grid cell in pixels."""
    return 0.03 * 1000.0 / fit_transform(pix, mapxy, "affine").pixel_size()


def test_magsac_weight_and_loss_are_consistent():
    t = 10.0
    r = np.linspace(0.0, 15.0, 3001)
    w, loss = magsac_weight(r, t), magsac_loss(r, t)
    assert np.all(np.diff(w[r < t]) < 0) and np.all(w[r >= t] == 0)
    assert w[0] > 0
    # d(loss)/dr = r * w(r) below the threshold; constant above it
    d = np.gradient(loss, r)
    inside = (r > 0.01) & (r < t - 0.01)
    assert np.allclose(d[inside], (r * w)[inside], rtol=1e-3, atol=1e-6)
    assert np.all(loss[r >= t] == loss[-1]) and np.all(np.diff(loss) >= -1e-15)
    # the weight vanishes at the threshold: k sigma_max with k the 0.99 quantile
    assert abs(K_SIGMA - 3.0349) < 1e-4
    assert magsac_weight(np.array([t * 0.999]), t)[0] < 1e-3 * w[0]


@pytest.mark.parametrize("method", ["magsac", "ransac"])
@pytest.mark.parametrize("kind", ["helmert", "affine", "projective", "poly2", "tps"])
def test_gross_outliers_are_rejected_and_the_fit_is_clean(method, kind):
    rng = np.random.default_rng(7)
    xx, yy = np.meshgrid(np.arange(5) * 1000.0, np.arange(4) * 1000.0)
    grid = np.column_stack([xx.ravel(), yy.ravel()]) + np.array([651000.0, 6858000.0])
    pix = np.column_stack([(grid[:, 0] - 651000.0) * 2.363 + 300.0,
                           (6861000.0 - grid[:, 1]) * 2.363 + 200.0])
    pix += rng.normal(0, 1.0, pix.shape)
    bad = [3, 11, 17]
    mapxy = grid.copy()
    mapxy[3] += [1000.0, 0.0]   # label error of one cell
    mapxy[11] += [0.0, -1000.0]
    pix[17] += [80.0, -60.0]    # a wrong detection, 100 px off
    fit, inliers = robust_fit(pix, mapxy, kind, threshold_px=30.0, method=method)
    assert sorted(np.flatnonzero(~inliers)) == bad
    clean = fit_transform(pix[inliers], mapxy[inliers], kind)
    assert np.allclose(fit.forward(pix), clean.forward(pix), atol=1e-9)
    if kind != "tps":
        assert fit.rmse_px < 3.0


def test_a_1000_m_label_error_is_rejected_on_every_real_sheet(sheets):
    clean_rejected = 0
    for k, (_name, pix, mapxy) in enumerate(sheets):
        t = _default_threshold(pix, mapxy)
        fit, inl = robust_fit(pix, mapxy, "affine", threshold_px=t)
        clean_rejected += int((~inl).sum())
        # the inliers are exactly the points within the threshold of the returned fit
        assert np.array_equal(pixel_residuals(fit, pix, mapxy) < t, inl)
        bad = k % len(pix)
        wrong = mapxy.copy()
        wrong[bad] += [1000.0, 0.0] if k % 2 else [0.0, -1000.0]
        _fit, inl = robust_fit(pix, wrong, "affine", threshold_px=t)
        assert not inl[bad]
    # clean sheets lose only the 2 worst hand-placed points of the set (1868 plate 8 and
    # 1878 plate 11, point 1 of each: 150 and 114 px off the affine fit of the others)
    assert clean_rejected == 2


def test_ransac_also_rejects_the_label_error_on_real_sheets(sheets):
    for k, (_name, pix, mapxy) in enumerate(sheets[::6]):
        t = _default_threshold(pix, mapxy)
        wrong = mapxy.copy()
        wrong[k % len(pix)] += [0.0, 1000.0]
        _fit, inl = robust_fit(pix, wrong, "affine", threshold_px=t, method="ransac")
        assert not inl[k % len(pix)]


def test_results_are_reproducible_with_random_sampling():
    rng = np.random.default_rng(2)
    grid = rng.uniform(0, 20000, (60, 2))
    pix = grid * [2.0, -2.0] + [100.0, 50000.0] + rng.normal(0, 0.5, (60, 2))
    grid[::7] += 3000.0  # more than 2000 combinations of 3: random samples
    a = robust_fit(pix, grid, "affine", threshold_px=5.0)
    b = robust_fit(pix, grid, "affine", threshold_px=5.0)
    assert np.array_equal(a[1], b[1]) and set(np.flatnonzero(~a[1])) == set(range(0, 60, 7))


def test_too_few_inliers_and_bad_arguments_are_input_errors():
    pix = np.array([[0.0, 0.0], [100.0, 0.0], [0.0, 100.0], [100.0, 100.0], [50.0, 50.0],
                    [30.0, 70.0]])
    mapxy = pix * [1.0, -1.0]
    mapxy[[1, 3, 5]] += [[500.0, 0.0], [0.0, 500.0], [300.0, 300.0]]
    with pytest.raises(InputError, match="only 3 of 6 GCPs agree"):
        robust_fit(pix, mapxy, "projective", threshold_px=2.0)
    with pytest.raises(InputError, match="positive number of pixels"):
        robust_fit(pix, mapxy, "affine", threshold_px=0.0)
    with pytest.raises(InputError, match="unknown outlier method"):
        robust_fit(pix, mapxy, "affine", method="lmeds")


def test_method_none_keeps_every_point():
    pix = np.array([[0.0, 0.0], [100.0, 0.0], [0.0, 100.0], [100.0, 100.0]])
    mapxy = pix * [1.0, -1.0]
    mapxy[0] += 50.0
    fit, inl = robust_fit(pix, mapxy, "affine", method="none")
    assert inl.all() and fit.rmse_map > 10.0
