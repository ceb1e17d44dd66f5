"""Outlier rejection for GCP fits: RANSAC (MSAC scoring) or MAGSAC++, on a pixel threshold.

A point is an outlier when its pixel residual (QGIS's definition: the map position taken
back to the image by the fitted transform, minus the pixel position) exceeds
``threshold_px``. Hypotheses come from minimal samples of a simple model (Helmert for
helmert, affine for the others: a scanned grid is nearly affine, and with few points a
homography through 4 of them can fit a wrong point as well as the right model), tried
exhaustively when there are few combinations and otherwise drawn at random with a fixed
seed (results are reproducible). The best hypothesis is refined on its inliers with the
requested kind (local optimisation); thin plate splines pass through every point, so they
are refined with poly2 (affine when too few points) instead. The returned transform is an
ordinary, unweighted least-squares fit of the requested kind to the inliers, so it equals
GDAL's and QGIS's fit of the same points; the inliers are then exactly the points within
the threshold of that fit (re-checked until they stop changing).

MAGSAC++ (Barath et al., CVPR 2020) marginalises the noise scale sigma over
[0, sigma_max], sigma_max = threshold / k with k = 3.03 (the 0.99 quantile of a 2-D
residual's length in sigmas); for 2-D residuals its weight and loss have closed forms (see
:func:`magsac_weight`, :func:`magsac_loss`). RANSAC here scores with MSAC's truncated
quadratic loss and refits on the inliers until they stop changing.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy.special import erf

from ..errors import InputError, option
from .transforms import MIN_POINTS, FittedTransform, check_kind, fit_transform

METHODS: tuple[str, ...] = ("magsac", "ransac", "none")
#: 0.99 quantile of the length of a 2-D standard normal vector: sqrt(chi2.ppf(0.99, 2)).
K_SIGMA = math.sqrt(-2.0 * math.log(0.01))
MAX_SAMPLES = 2000
_HYPOTHESIS_KIND = {"helmert": "helmert"}


def magsac_weight(r: np.ndarray, threshold: float) -> np.ndarray:
    """MAGSAC++ weight of 2-D residual lengths ``r`` (up to a constant factor), zero at and
    beyond ``threshold``: the marginal likelihood over sigma in [0, threshold / K_SIGMA].
    """
    sigma_max = threshold / K_SIGMA
    a = 1.0 / (math.sqrt(2.0) * sigma_max)
    w = math.erf(K_SIGMA / math.sqrt(2.0)) - erf(a * np.asarray(r, dtype=np.float64))
    return np.where(np.asarray(r) < threshold, np.maximum(w, 0.0), 0.0)


def magsac_loss(r: np.ndarray, threshold: float) -> np.ndarray:
    """MAGSAC++ loss: the integral of ``x * magsac_weight(x)`` from 0 to ``r`` (same constant
    factor), constant at and beyond ``threshold``. Lower total loss = better model."""
    sigma_max = threshold / K_SIGMA
    a = 1.0 / (math.sqrt(2.0) * sigma_max)
    c = math.erf(K_SIGMA / math.sqrt(2.0))

    def integral(x: np.ndarray) -> np.ndarray:
        ax = a * x
        return (c * x * x / 2.0 - (2.0 * ax * ax - 1.0) * erf(ax) / (4.0 * a * a)
                - x * np.exp(-ax * ax) / (2.0 * a * math.sqrt(math.pi)))

    rr = np.minimum(np.asarray(r, dtype=np.float64), threshold)
    return integral(rr)


def pixel_residuals(transform: FittedTransform, pixel_xy: np.ndarray,
                    map_xy: np.ndarray) -> np.ndarray:
    """Length of ``inverse(map) - pixel`` for each point, pixels ``(N,)``."""
    d = transform.inverse(map_xy) - np.asarray(pixel_xy, dtype=np.float64)
    r = np.hypot(d[:, 0], d[:, 1])
    return np.where(np.isfinite(r), r, np.inf)


# ----------------------------------------------------------------- minimal-sample hypotheses

def _samples(n: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """Index tuples ``(S, m)``: every combination when few, else random distinct ones."""
    if math.comb(n, m) <= MAX_SAMPLES:
        return np.array(list(itertools.combinations(range(n), m)), dtype=np.int64)
    keys = rng.random((MAX_SAMPLES, n))
    return np.argsort(keys, axis=1)[:, :m]


def _normalise(points: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
    centre = points.mean(axis=0)
    dist = np.hypot(*(points - centre).T).mean()
    scale = math.sqrt(2.0) / dist if dist > 0 else 1.0
    return (points - centre) * scale, scale, centre


def _hypothesis_residuals(kind: str, pixel: np.ndarray, mapxy: np.ndarray,
                          samples: np.ndarray) -> np.ndarray:
    """Pixel residuals ``(S, N)`` of every point under each minimal-sample model, fitted
    map -> pixel exactly through its sample (inf for degenerate samples)."""
    u, su, cu = _normalise(pixel)
    v, _, _ = _normalise(mapxy)
    n = len(pixel)
    if kind == "helmert":
        # complex similarity in y-up pixel coordinates: w = c z + d
        zw = u[:, 0] - 1j * u[:, 1]
        zm = v[:, 0] + 1j * v[:, 1]
        z0, z1 = zm[samples[:, 0]], zm[samples[:, 1]]
        w0, w1 = zw[samples[:, 0]], zw[samples[:, 1]]
        dz = z1 - z0
        ok = np.abs(dz) > 1e-9
        c = np.where(ok, (w1 - w0) / np.where(ok, dz, 1), 0)
        d = w0 - c * z0
        pred = c[:, None] * zm[None, :] + d[:, None]
        r = np.abs(pred - zw[None, :]) / su
        r[~ok] = np.inf
        return r
    if kind == "affine":
        a = np.concatenate([v[samples], np.ones((*samples.shape, 1))], axis=2)  # (S,3,3)
        b = u[samples]  # (S,3,2)
        det = np.linalg.det(a)
        ok = np.abs(det) > 1e-6
        a[~ok] = np.eye(3)
        coef = np.linalg.solve(a, b)  # (S,3,2)
        vv = np.column_stack([v, np.ones(n)])
        pred = np.einsum("nk,skj->snj", vv, coef)
        r = np.hypot(*(pred - u[None]).transpose(2, 0, 1)) / su
        r[~ok] = np.inf
        return r
    # projective: 8x8 linear system per sample, h22 = 1
    s = len(samples)
    x, y = v[samples][..., 0], v[samples][..., 1]
    px, py = u[samples][..., 0], u[samples][..., 1]
    a = np.zeros((s, 8, 8))
    b = np.zeros((s, 8))
    a[:, 0::2, 0], a[:, 0::2, 1], a[:, 0::2, 2] = x, y, 1.0
    a[:, 0::2, 6], a[:, 0::2, 7] = -px * x, -px * y
    a[:, 1::2, 3], a[:, 1::2, 4], a[:, 1::2, 5] = x, y, 1.0
    a[:, 1::2, 6], a[:, 1::2, 7] = -py * x, -py * y
    b[:, 0::2], b[:, 1::2] = px, py
    sv = np.linalg.svd(a, compute_uv=False)
    ok = sv[:, -1] > sv[:, 0] * 1e-6
    a[~ok] = np.eye(8)
    h = np.concatenate([np.linalg.solve(a, b[..., None])[..., 0], np.ones((s, 1))], axis=1)
    h = h.reshape(s, 3, 3)
    vv = np.column_stack([v, np.ones(n)])
    q = np.einsum("nk,sjk->snj", vv, h)
    with np.errstate(divide="ignore", invalid="ignore"):
        pred = q[..., :2] / q[..., 2:3]
        r = np.hypot(*(pred - u[None]).transpose(2, 0, 1)) / su
    r[~ok] = np.inf
    return np.where(np.isfinite(r), r, np.inf)


# ----------------------------------------------------------------- refinement

def _refine_kind(kind: str, n_inliers: int) -> str:
    if kind != "tps":
        return kind
    return "poly2" if n_inliers >= MIN_POINTS["poly2"] + 2 else "affine"


def _try_fit(pixel, mapxy, kind, weights=None) -> FittedTransform | None:
    try:
        return fit_transform(pixel, mapxy, kind, weights=weights)
    except InputError:
        return None


def _local_optimisation(kind: str, pixel: np.ndarray, mapxy: np.ndarray, r: np.ndarray,
                        threshold: float, method: str) -> np.ndarray:
    """Refine an inlier set from initial residuals ``r``; returns the inlier mask."""
    inliers = r < threshold
    for _ in range(20):
        lo_kind = _refine_kind(kind, int(inliers.sum()))
        if method == "magsac":
            w = magsac_weight(r, threshold)
            model = _try_fit(pixel, mapxy, lo_kind, weights=w) if np.count_nonzero(w) else None
        else:
            model = _try_fit(pixel[inliers], mapxy[inliers], lo_kind)
        if model is None and lo_kind != "affine":
            model = _try_fit(pixel[inliers], mapxy[inliers], "affine")
        if model is None:
            break
        r = pixel_residuals(model, pixel, mapxy)
        new = r < threshold
        if np.array_equal(new, inliers):
            break
        inliers = new
    return inliers


def robust_fit(pixel_xy: np.ndarray, map_xy: np.ndarray, kind: str = "affine", *,
               threshold_px: float = 50.0, method: str = "magsac",
               seed: int = 0) -> tuple[FittedTransform, np.ndarray]:
    """Fit ``kind`` to GCPs, leaving out outliers whose pixel residual exceeds the threshold.

    Args:
        pixel_xy: ``(N, 2)`` GCP pixel positions (x right, y down).
        map_xy: ``(N, 2)`` their map coordinates (easting, northing).
        kind: transform kind (see :mod:`.transforms`).
        threshold_px: largest pixel residual of an inlier.
        method: "magsac" (MAGSAC++ scoring and re-weighting), "ransac" (MSAC) or "none".
        seed: random seed when there are too many combinations to try them all.

    Returns:
        ``(transform, inliers)``: the least-squares fit of ``kind`` to the inliers and the
        ``(N,)`` bool inlier mask.

    Raises:
        InputError: unknown method, or too few inliers for ``kind``.
    """
    kind = check_kind(kind)
    if method not in METHODS:
        raise InputError(f"unknown outlier method {method!r}; choose one of {', '.join(METHODS)}")
    if not threshold_px > 0:
        raise InputError(f"the outlier threshold must be a positive number of pixels, "
                         f"not {threshold_px}")
    pixel = np.asarray(pixel_xy, dtype=np.float64).reshape(-1, 2)
    mapxy = np.asarray(map_xy, dtype=np.float64).reshape(-1, 2)
    n = len(pixel)
    if method == "none":
        return fit_transform(pixel, mapxy, kind), np.ones(n, dtype=bool)
    hyp_kind = _HYPOTHESIS_KIND.get(kind, "affine")
    m = MIN_POINTS[hyp_kind]
    if n < MIN_POINTS[kind]:
        fit_transform(pixel, mapxy, kind)  # raises the "needs at least" message
    if n <= m:
        return fit_transform(pixel, mapxy, kind), np.ones(n, dtype=bool)

    rng = np.random.default_rng(seed)
    samples = _samples(n, m, rng)
    r = _hypothesis_residuals(hyp_kind, pixel, mapxy, samples)
    if method == "magsac":
        scores = magsac_loss(r, threshold_px).sum(axis=1)
    else:
        scores = np.minimum(r, threshold_px) ** 2
        scores = scores.sum(axis=1)
    scores[~np.isfinite(r).any(axis=1)] = np.inf
    if not np.isfinite(scores).any():
        raise InputError(f"the {n} GCPs do not determine any {hyp_kind} transform "
                         "(they lie on one line); add GCPs off that line")
    best = int(np.argmin(scores))
    inliers = _local_optimisation(kind, pixel, mapxy, r[best], threshold_px, method)

    n_in = int(inliers.sum())
    if n_in < MIN_POINTS[kind]:
        raise InputError(f"only {n_in} of {n} GCPs agree within {threshold_px:g} px; the "
                         f"{kind} transform needs {MIN_POINTS[kind]}: check the anchors, "
                         f"raise {option('threshold')} or choose a transform with fewer unknowns "
                         f"({option('transform')})", field="threshold")
    fit = fit_transform(pixel[inliers], mapxy[inliers], kind)
    # make the inliers exactly the points within the threshold of the returned fit
    for _ in range(10):
        new = pixel_residuals(fit, pixel, mapxy) < threshold_px
        if np.array_equal(new, inliers) or new.sum() < MIN_POINTS[kind]:
            break
        candidate = _try_fit(pixel[new], mapxy[new], kind)
        if candidate is None:
            break
        fit, inliers = candidate, new
    return fit, inliers
