"""core.georef.transforms: exact recovery, minimum counts, degeneracy, and agreement with GDAL,
QGIS and independent least-squares solutions on the 144 real Paris atlas GCP sets."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest

from core.errors import InputError
from core.formats.qgis_points import read_points_file
from core.georef.transforms import GDAL_ORDER, KINDS, MIN_POINTS, fit_transform

RTOL = 1e-6  # agreement required with GDAL / independent solutions, relative to the extent


@functools.lru_cache(maxsize=1)
def _sheets(shared_dir: str) -> list[tuple[str, np.ndarray, np.ndarray]]:
    files = sorted(Path(shared_dir, "data", "paris-atlas-gcps").glob("*.points"))
    out = []
    for f in files:
        g = read_points_file(f).only_enabled()
        out.append((f.stem, g.pixel_xy, g.map_xy))
    return out


@pytest.fixture(scope="module")
def sheets(shared):
    s = _sheets(str(shared))
    assert len(s) == 144
    return s


def _check_points(pixel_xy: np.ndarray, n: int = 60, seed: int = 0) -> np.ndarray:
    """Random pixel positions over the GCPs' bounding box grown by 10 %, plus the GCPs."""
    lo, hi = pixel_xy.min(axis=0), pixel_xy.max(axis=0)
    pad = 0.1 * (hi - lo)
    rng = np.random.default_rng(seed)
    pts = rng.uniform(lo - pad, hi + pad, size=(n, 2))
    return np.vstack([pts, pixel_xy])


def _grid_points(nx: int, ny: int, jitter: float = 0.0, seed: int = 1) -> np.ndarray:
    """Pixel positions of an nx x ny grid, 2363 px apart, optionally jittered."""
    xx, yy = np.meshgrid(np.arange(nx) * 2363.0 + 400.0, np.arange(ny) * 2363.0 + 300.0)
    p = np.column_stack([xx.ravel(), yy.ravel()])
    return p + np.random.default_rng(seed).normal(0, jitter, p.shape)


# --------------------------------------------------------------------- exact recovery

LAMBERT = np.array([652000.0, 6862000.0])  # Lambert-93 near Paris: needs normalisation


def _truth(kind: str, p: np.ndarray) -> np.ndarray:
    x, y = p[:, 0], p[:, 1]
    a = np.array([[0.42, 0.003], [0.002, -0.4195]])
    base = p @ a.T + LAMBERT
    if kind == "helmert":
        t = np.radians(1.5)
        s = 0.4231
        return np.column_stack([s * (np.cos(t) * x + np.sin(t) * y),
                                s * (np.sin(t) * x - np.cos(t) * y)]) + LAMBERT
    if kind == "affine":
        return base
    if kind == "projective":
        w = 1.0 + 2e-6 * x - 1.5e-6 * y
        return (p @ a.T) / w[:, None] + LAMBERT
    if kind == "poly2":
        return base + np.column_stack([3e-7 * x * y, -2e-7 * x * x + 1e-7 * y * y])
    if kind == "poly3":
        return base + np.column_stack([1e-11 * x ** 3, 2e-11 * x * y * y])
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", ["helmert", "affine", "projective", "poly2", "poly3"])
def test_exact_transform_is_recovered_near_lambert93_coordinates(kind):
    pix = _grid_points(5, 4, jitter=150.0)
    fit = fit_transform(pix, _truth(kind, pix), kind)
    chk = _check_points(pix)
    err = np.abs(fit.forward(chk) - _truth(kind, chk)).max()
    assert err < 1e-6  # metres, with coordinates near 6.86e6
    assert fit.rmse_map < 1e-6
    if kind in ("helmert", "affine", "projective"):  # exact inverse; polynomials get a fitted one
        assert fit.rmse_px < 1e-5


@pytest.mark.parametrize("kind", ["helmert", "affine", "projective"])
def test_inverse_is_exact_for_linear_kinds(kind):
    pix = _grid_points(4, 3, jitter=100.0)
    m = _truth("affine", pix) + np.random.default_rng(3).normal(0, 2.0, pix.shape)
    fit = fit_transform(pix, m, kind)
    chk = _check_points(pix)
    assert np.abs(fit.inverse(fit.forward(chk)) - chk).max() < 1e-6


def test_tps_passes_through_every_point_and_inverts_at_the_points():
    pix = _grid_points(4, 3, jitter=200.0)
    m = _truth("affine", pix) + np.random.default_rng(5).normal(0, 5.0, pix.shape)
    fit = fit_transform(pix, m, "tps")
    assert np.abs(fit.residuals_map).max() < 1e-6
    assert np.abs(fit.residuals_px).max() < 1e-6


def test_helmert_is_a_similarity_without_mirror():
    pix = _grid_points(3, 3, jitter=50.0)
    fit = fit_transform(pix, _truth("helmert", pix), "helmert")
    m = fit.matrix[:2, :2]
    # pixel y points down and northing up: a proper north-up similarity has det < 0 here
    assert np.linalg.det(m) < 0
    assert fit.params["scale"] == pytest.approx(0.4231, rel=1e-9)
    assert fit.params["rotation_deg"] == pytest.approx(1.5, abs=1e-9)
    assert abs(m[0, 0]) == pytest.approx(abs(m[1, 1]), rel=1e-12)


def test_geotransform_maps_pixel_corners_like_gdal():
    pix = _grid_points(3, 3)
    fit = fit_transform(pix, _truth("affine", pix), "affine")
    x0, a, b, y0, d, e = fit.geotransform
    px = np.array([[0.0, 0.0], [10.5, 20.5]])
    expect = np.column_stack([x0 + a * px[:, 0] + b * px[:, 1], y0 + d * px[:, 0] + e * px[:, 1]])
    assert np.allclose(fit.forward(px), expect, rtol=0, atol=1e-7)
    assert fit.pixel_size() == pytest.approx(np.sqrt(abs(0.42 * -0.4195 - 0.003 * 0.002)),
                                             rel=1e-6)


@pytest.mark.parametrize("kind", KINDS)
def test_too_few_points_is_refused_with_the_minimum(kind):
    n = MIN_POINTS[kind]
    pix = _grid_points(5, 4, jitter=300.0)[: n - 1]
    with pytest.raises(InputError, match=f"{kind} transform needs at least {n} GCPs, got {n - 1}"):
        fit_transform(pix, _truth("affine", pix), kind)


def test_minimum_counts_are_qgis_ones():
    assert MIN_POINTS == {"helmert": 2, "affine": 3, "projective": 4, "poly2": 6, "poly3": 10,
                          "tps": 10}


@pytest.mark.parametrize(("kind", "nx", "ny"), [("affine", 5, 1), ("poly2", 4, 2),
                                                ("poly3", 4, 3), ("tps", 12, 1)])
def test_points_on_too_few_grid_lines_are_refused(kind, nx, ny):
    pix = _grid_points(nx, ny, jitter=20.0)
    grid = np.column_stack([np.tile(np.arange(nx) * 1000.0, ny),
                            np.repeat(np.arange(ny) * -1000.0, nx)])
    with pytest.raises(InputError, match="do not determine"):
        fit_transform(pix, grid, kind)


def test_unknown_kind_is_refused():
    with pytest.raises(InputError, match="choose one of helmert, affine"):
        fit_transform(np.zeros((3, 2)), np.zeros((3, 2)), "cubic")


# --------------------------------------------------------------------- real GCP sets

def _gdal_transformer(pixel_xy, map_xy, kind):
    from osgeo import gdal

    gdal.UseExceptions()
    w = int(pixel_xy[:, 0].max() * 1.2) + 1
    h = int(pixel_xy[:, 1].max() * 1.2) + 1
    ds = gdal.GetDriverByName("MEM").Create("", w, h, 1)
    ds.SetGCPs([gdal.GCP(float(mx), float(my), 0.0, float(px), float(py))
                for (px, py), (mx, my) in zip(pixel_xy, map_xy, strict=True)], "")
    opts = (["METHOD=GCP_TPS"] if kind == "tps"
            else ["METHOD=GCP_POLYNOMIAL", f"MAX_GCP_ORDER={GDAL_ORDER[kind]}"])
    return ds, gdal.Transformer(ds, None, opts)


@pytest.mark.parametrize(("kind", "min_sheets"), [("affine", 144), ("poly2", 100),
                                                  ("poly3", 15), ("tps", 60)])
def test_fits_agree_with_gdal_at_check_points(sheets, kind, min_sheets):
    compared, worst = 0, 0.0
    for _name, pix, mapxy in sheets:
        try:
            fit = fit_transform(pix, mapxy, kind)
        except InputError:
            continue  # too few points, or points on too few grid lines for this kind
        _ds, tr = _gdal_transformer(pix, mapxy, kind)
        chk = _check_points(pix)
        gdal_xy, ok = tr.TransformPoints(0, [(float(x), float(y)) for x, y in chk])
        assert all(ok)
        diff = np.abs(np.asarray(gdal_xy)[:, :2] - fit.forward(chk)).max()
        worst = max(worst, diff / np.ptp(mapxy, axis=0).max())
        compared += 1
    assert compared >= min_sheets
    assert worst < RTOL


def _complex_helmert(pix, mapxy):
    """Independent Helmert: complex least squares of map = c * (x - i y) + d."""
    z = pix[:, 0] - 1j * pix[:, 1]
    m = mapxy[:, 0] + 1j * mapxy[:, 1]
    (c, d), *_ = np.linalg.lstsq(np.column_stack([z, np.ones_like(z)]), m, rcond=None)
    return lambda p: (lambda w: np.column_stack([w.real, w.imag]))(
        c * (p[:, 0] - 1j * p[:, 1]) + d)


def test_helmert_agrees_with_independent_least_squares(sheets):
    for _name, pix, mapxy in sheets:
        fit = fit_transform(pix, mapxy, "helmert")
        chk = _check_points(pix)
        ref = _complex_helmert(pix, mapxy)(chk)
        assert np.abs(fit.forward(chk) - ref).max() < RTOL * np.ptp(mapxy, axis=0).max()


def _independent_projective(pix, mapxy):
    """Geometric least squares from a scikit-image DLT start, in kilometre-scaled coordinates
    (a different parametrisation and scaling from the library's)."""
    from scipy.optimize import least_squares
    from skimage.transform import ProjectiveTransform

    cp, cm = pix.mean(axis=0), mapxy.mean(axis=0)
    p, m = (pix - cp) / 1000.0, (mapxy - cm) / 1000.0
    start = ProjectiveTransform()
    assert start.estimate(p, m)
    h0 = start.params / start.params[2, 2]

    def apply(h, q):
        w = h[2, 0] * q[:, 0] + h[2, 1] * q[:, 1] + 1.0
        return np.column_stack([(h[0, 0] * q[:, 0] + h[0, 1] * q[:, 1] + h[0, 2]) / w,
                                (h[1, 0] * q[:, 0] + h[1, 1] * q[:, 1] + h[1, 2]) / w])

    def resid(theta):
        return (apply(np.append(theta, 1.0).reshape(3, 3), p) - m).ravel()

    sol = least_squares(resid, h0.ravel()[:8], method="lm", x_scale="jac", xtol=1e-15,
                        ftol=1e-15, gtol=1e-15, max_nfev=20000)
    h = np.append(sol.x, 1.0).reshape(3, 3)
    return lambda q: apply(h, (q - cp) / 1000.0) * 1000.0 + cm


def test_projective_agrees_with_independent_least_squares(sheets):
    for _name, pix, mapxy in sheets:
        fit = fit_transform(pix, mapxy, "projective")
        chk = _check_points(pix)
        independent = _independent_projective(pix, mapxy)
        ref = independent(chk)
        assert np.abs(fit.forward(chk) - ref).max() < RTOL * np.ptp(mapxy, axis=0).max()
        # and ours is at least as good a least-squares solution
        sse_ref = np.sum((independent(pix) - mapxy) ** 2)
        assert np.sum(fit.residuals_map ** 2) <= sse_ref * (1 + 1e-12)


@pytest.mark.qgis
def test_helmert_equals_qgis_and_projective_beats_qgis_dlt(sheets, qgis_app):
    from qgis.analysis import QgsGcpTransformerInterface as Gcp
    from qgis.core import QgsPointXY

    for _name, pix, mapxy in sheets:
        src = [QgsPointXY(float(x), -float(y)) for x, y in pix]  # QGIS source: y up
        dst = [QgsPointXY(float(x), float(y)) for x, y in mapxy]
        chk = _check_points(pix)
        for method, kind in ((Gcp.TransformMethod.Helmert, "helmert"),
                             (Gcp.TransformMethod.Projective, "projective")):
            q = Gcp.create(method)
            assert q.updateParametersFromGcps(src, dst)
            qxy = np.array([q.transform(float(x), -float(y))[1:] for x, y in chk])
            fit = fit_transform(pix, mapxy, kind)
            if kind == "helmert":
                assert np.abs(fit.forward(chk) - qxy).max() < RTOL * np.ptp(mapxy, axis=0).max()
            else:  # QGIS minimises an algebraic error; ours the map residuals themselves
                q_res = qxy[-len(pix):] - mapxy
                assert np.sum(fit.residuals_map ** 2) <= np.sum(q_res ** 2) + 1e-9


def test_median_affine_rmse_of_the_real_sheets_is_3_86_m(sheets):
    rmse = [fit_transform(pix, mapxy, "affine").rmse_map for _n, pix, mapxy in sheets]
    assert round(float(np.median(rmse)), 2) == 3.86
