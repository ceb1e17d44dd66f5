"""Pixel-to-map transforms fitted to ground control points (GCPs).

Conventions:
    - pixel coordinates: x right, y DOWN, origin at the top-left corner of the top-left
      pixel (the centre of pixel column i, row j is (i + 0.5, j + 0.5)). This is GDAL's
      GCP pixel/line convention and QGIS's ``.points`` sourceX / -sourceY.
    - map coordinates: (easting, northing) in the units of the output CRS.
    - every fit minimises squared map-space residuals (the forward direction, as GDAL and
      QGIS do). Polynomials and thin plate splines also get a separately fitted inverse
      (map -> pixel), as GDAL does; it gives the pixel residuals, as in QGIS.

Coordinates are normalised before fitting: each point set is centred and scaled by one
isotropic factor (mean distance to the centre = sqrt 2, Hartley's normalisation), so
projected coordinates near 6.8e6 m do not make the systems ill-conditioned. An isotropic
scale keeps Helmert a similarity and leaves the thin plate spline unchanged; least-squares
polynomials do not depend on it at all, so the results equal GDAL's unnormalised fits up to
rounding.

Kinds and minimum numbers of points (QGIS's):
    helmert 2 (similarity: shift, rotation, one scale; no mirror), affine 3 (GDAL polynomial
    order 1), projective 4 (homography, least squares in map space), poly2 6 and poly3 10
    (GDAL polynomial orders 2 and 3), tps 10 (GDAL's thin plate spline; exact at every GCP).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError, option

KINDS: tuple[str, ...] = ("helmert", "affine", "projective", "poly2", "poly3", "tps")
MIN_POINTS: dict[str, int] = {"helmert": 2, "affine": 3, "projective": 4, "poly2": 6,
                              "poly3": 10, "tps": 10}


def redundancy(kind: str, n_points: int) -> int:
    """Equations minus unknowns of a fit of ``n_points`` GCPs (two equations each).

    0 means the transform passes through every GCP whatever they are: its residuals are 0
    by construction and prove nothing about accuracy (2 GCPs for helmert, 3 for affine,
    4 projective, 6 poly2, 10 poly3; tps always, as it interpolates).
    """
    if kind == "tps":
        return 0
    return 2 * int(n_points) - 2 * MIN_POINTS[check_kind(kind)]


#: GDAL GCP polynomial order of each polynomial kind (gdalwarp -order N).
GDAL_ORDER: dict[str, int] = {"affine": 1, "poly2": 2, "poly3": 3}
#: Largest condition number of a normalised design matrix that is still fitted; above it the
#: points do not determine the model (e.g. poly3 on points lying on only 3 grid rows).
#: Well spread GCPs give 3 to 40; points on too few grid lines 500 to 1e17.
COND_LIMIT = 1e4

_FLIP_Y = np.diag([1.0, -1.0, 1.0])


def check_kind(kind: str) -> str:
    """The kind in lower case, or InputError listing the valid kinds."""
    k = str(kind).strip().lower()
    if k not in KINDS:
        raise InputError(f"unknown transform {kind!r}; choose one of {', '.join(KINDS)}")
    return k


# --------------------------------------------------------------------------- normalisation

def normalising_matrix(points: np.ndarray, flip_y: bool = False) -> np.ndarray:
    """3x3 matrix centring ``points`` and scaling them so their mean distance is sqrt 2.

    With ``flip_y`` the y axis is negated first (pixel y down -> up, for Helmert).
    """
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    if flip_y:
        pts = pts * [1.0, -1.0]
    centre = pts.mean(axis=0)
    dist = np.hypot(*(pts - centre).T).mean()
    s = np.sqrt(2.0) / dist if dist > 0 else 1.0
    m = np.array([[s, 0.0, -s * centre[0]], [0.0, s, -s * centre[1]], [0.0, 0.0, 1.0]])
    return m @ _FLIP_Y if flip_y else m


def apply_homogeneous(matrix: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Apply a 3x3 homogeneous matrix to ``(N, 2)`` points."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    x = matrix[0, 0] * pts[:, 0] + matrix[0, 1] * pts[:, 1] + matrix[0, 2]
    y = matrix[1, 0] * pts[:, 0] + matrix[1, 1] * pts[:, 1] + matrix[1, 2]
    w = matrix[2, 0] * pts[:, 0] + matrix[2, 1] * pts[:, 1] + matrix[2, 2]
    if matrix[2, 0] == 0.0 and matrix[2, 1] == 0.0 and matrix[2, 2] == 1.0:
        return np.column_stack([x, y])
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.column_stack([x / w, y / w])


def polynomial_terms(points: np.ndarray, order: int) -> np.ndarray:
    """Design matrix of 2-D monomials up to ``order``, in GDAL's term order.

    Order 1: 1, x, y; 2 adds x^2, xy, y^2; 3 adds x^3, x^2 y, x y^2, y^3.
    """
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    x, y = pts[:, 0], pts[:, 1]
    cols = [np.ones_like(x)]
    for degree in range(1, order + 1):
        cols.extend(x ** (degree - j) * y ** j for j in range(degree + 1))
    return np.column_stack(cols)


# --------------------------------------------------------------------------- result type

@dataclass
class FittedTransform:
    """A transform fitted to GCPs: pixel (x right, y down, corner origin) <-> map.

    Attributes:
        kind: one of :data:`KINDS`.
        pixel_xy, map_xy: ``(N, 2)`` the GCPs the fit used.
        params: JSON-ready description (matrix, scale, rotation, coefficients...).
        matrix: 3x3 homogeneous pixel -> map matrix for helmert, affine and projective;
            None for polynomials of order 2-3 and TPS.
    """

    kind: str
    pixel_xy: np.ndarray
    map_xy: np.ndarray
    params: dict
    matrix: np.ndarray | None
    _forward: Callable[[np.ndarray], np.ndarray] = field(repr=False)
    _inverse: Callable[[np.ndarray], np.ndarray] = field(repr=False)

    def forward(self, pixel_xy: np.ndarray) -> np.ndarray:
        """Map coordinates ``(N, 2)`` of pixel positions ``(N, 2)``."""
        return self._forward(np.asarray(pixel_xy, dtype=np.float64).reshape(-1, 2))

    def inverse(self, map_xy: np.ndarray) -> np.ndarray:
        """Pixel positions ``(N, 2)`` of map coordinates (exact for helmert, affine and
        projective; the separately fitted reverse model for poly2, poly3 and tps)."""
        return self._inverse(np.asarray(map_xy, dtype=np.float64).reshape(-1, 2))

    @property
    def residuals_map(self) -> np.ndarray:
        """``forward(pixel) - map`` for every GCP, map units ``(N, 2)``."""
        return self.forward(self.pixel_xy) - self.map_xy

    @property
    def residuals_px(self) -> np.ndarray:
        """``inverse(map) - pixel`` for every GCP, pixels ``(N, 2)`` (QGIS's dX, dY)."""
        return self.inverse(self.map_xy) - self.pixel_xy

    @property
    def rmse_map(self) -> float:
        """Root mean square of the GCP residual lengths in map units."""
        return float(np.sqrt(np.mean(np.sum(self.residuals_map ** 2, axis=1))))

    @property
    def rmse_px(self) -> float:
        """Root mean square of the GCP residual lengths in pixels."""
        return float(np.sqrt(np.mean(np.sum(self.residuals_px ** 2, axis=1))))

    @property
    def is_affine(self) -> bool:
        """True for helmert and affine: the image needs a geotransform, not a warp."""
        return self.kind in ("helmert", "affine")

    @property
    def geotransform(self) -> tuple[float, ...] | None:
        """GDAL geotransform ``(x0, dx/dcol, dx/drow, y0, dy/dcol, dy/drow)`` for affine
        kinds: map = (x0 + a*px + b*py, y0 + d*px + e*py) with corner-origin pixels."""
        if not self.is_affine or self.matrix is None:
            return None
        m = self.matrix
        return (float(m[0, 2]), float(m[0, 0]), float(m[0, 1]),
                float(m[1, 2]), float(m[1, 0]), float(m[1, 1]))

    def pixel_size(self) -> float:
        """Map units per pixel (square root of the absolute Jacobian determinant) at the
        centre of the GCPs."""
        c = self.pixel_xy.mean(axis=0)
        h = max(1.0, float(np.ptp(self.pixel_xy, axis=0).max()) * 1e-3)
        p = np.array([c, c + np.array([h, 0.0]), c + np.array([0.0, h])])
        q = self.forward(p)
        jac = np.column_stack([(q[1] - q[0]) / h, (q[2] - q[0]) / h])
        return float(np.sqrt(abs(np.linalg.det(jac))))

    def north_deg(self) -> float:
        """Where grid north points on the image at the centre of the GCPs, in degrees
        clockwise from up (x right, y down): 0 for a north-up sheet, 90 north to the
        right."""
        c = self.pixel_xy.mean(axis=0)
        h = max(1.0, float(np.ptp(self.pixel_xy, axis=0).max()) * 1e-3)
        q = self.forward(np.array([c, c + np.array([h, 0.0]), c + np.array([0.0, h])]))
        jac = np.column_stack([(q[1] - q[0]) / h, (q[2] - q[0]) / h])
        nx, ny = np.linalg.solve(jac, np.array([0.0, 1.0]))
        return float(np.degrees(np.arctan2(nx, -ny)) % 360.0)


# --------------------------------------------------------------------------- fitting

def _validate(pixel_xy, map_xy, weights) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    p = np.asarray(pixel_xy, dtype=np.float64).reshape(-1, 2)
    m = np.asarray(map_xy, dtype=np.float64).reshape(-1, 2)
    if len(p) != len(m):
        raise ValueError(f"{len(p)} pixel positions but {len(m)} map coordinates")
    if not (np.all(np.isfinite(p)) and np.all(np.isfinite(m))):
        raise InputError("GCP coordinates must be finite numbers")
    w = None
    if weights is not None:
        w = np.asarray(weights, dtype=np.float64).reshape(-1)
        if len(w) != len(p) or np.any(w < 0) or not np.all(np.isfinite(w)):
            raise ValueError("weights must be one finite non-negative number per GCP")
    return p, m, w


def _check_count(kind: str, n: int) -> None:
    need = MIN_POINTS[kind]
    if n < need:
        simpler = {"helmert": "", "affine": "helmert", "projective": "affine",
                   "poly2": "affine", "poly3": "poly2", "tps": "affine"}[kind]
        hint = f" or set {option('transform')} to {simpler}" if simpler else ""
        raise InputError(f"the {kind} transform needs at least {need} GCPs, got {n}; "
                         f"add anchors or GCPs{hint}", field="transform", value=kind)


def _check_conditioning(kind: str, design: np.ndarray, side: str) -> None:
    s = np.linalg.svd(design, compute_uv=False)
    if s[-1] <= s[0] / COND_LIMIT:
        detail = {"affine": f"they lie on one line; {option('transform')} helmert needs only two",
                  "poly2": "they lie on fewer than 3 grid lines in one direction",
                  "poly3": "they lie on fewer than 4 grid lines in one direction",
                  "tps": "they lie on one line",
                  "projective": "three of four lie on one line"}.get(kind, "they coincide")
        article = "an" if kind == "affine" else "a"
        raise InputError(f"the GCPs do not determine {article} {kind} transform in {side} "
                         f"coordinates ({detail}); choose a transform with fewer unknowns "
                         f"({option('transform')}) or add GCPs", field="transform", value=kind)


def check_configuration(kind: str, pixel_xy: np.ndarray, map_xy: np.ndarray) -> None:
    """Raise InputError unless the GCPs can determine a ``kind`` transform: enough points,
    and in both pixel and map coordinates not (nearly) on too few lines for the model.

    The pipeline also calls it with grid coordinates, where the structure is exact, because a
    reprojection bends grid lines just enough to hide the degeneracy numerically.
    """
    kind = check_kind(kind)
    p, m, _ = _validate(pixel_xy, map_xy, None)
    _check_count(kind, len(p))
    if kind == "helmert":
        if np.ptp(p, axis=0).max() == 0 or np.ptp(m, axis=0).max() == 0:
            raise InputError("the GCPs do not determine a helmert transform (all pixel or "
                             "all map positions coincide); add GCPs")
        return
    order = GDAL_ORDER.get(kind, 1)
    for pts, side in ((p, "pixel"), (m, "map")):
        q = apply_homogeneous(normalising_matrix(pts), pts)
        _check_conditioning(kind, polynomial_terms(q, order), side)
        if kind == "tps" and len(np.unique(np.round(q, 12), axis=0)) < len(q):
            raise InputError(f"two GCPs share the same {side} position; a thin plate spline "
                             "cannot pass through both: remove one")


def _weighted_lstsq(design: np.ndarray, target: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    if w is not None:
        sw = np.sqrt(w)
        design = design * sw[:, None]
        target = target * (sw if target.ndim == 1 else sw[:, None])
    coef, *_ = np.linalg.lstsq(design, target, rcond=None)
    return coef


def _fit_helmert(p, m, w) -> FittedTransform:
    np_, nm = normalising_matrix(p, flip_y=True), normalising_matrix(m)
    u, v = apply_homogeneous(np_, p), apply_homogeneous(nm, m)
    n = len(p)
    # E = a u - b w + tx ; N = b u + a w + ty  (u, w: y-up normalised pixel coordinates)
    design = np.zeros((2 * n, 4))
    design[0::2] = np.column_stack([u[:, 0], -u[:, 1], np.ones(n), np.zeros(n)])
    design[1::2] = np.column_stack([u[:, 1], u[:, 0], np.zeros(n), np.ones(n)])
    target = v.reshape(-1)
    ww = None if w is None else np.repeat(w, 2)
    a, b, tx, ty = _weighted_lstsq(design, target, ww)
    hn = np.array([[a, -b, tx], [b, a, ty], [0.0, 0.0, 1.0]])
    matrix = np.linalg.inv(nm) @ hn @ np_
    # In y-up pixel coordinates (QGIS's), map = s R(theta) (x, -y) + t.
    mu = matrix @ _FLIP_Y
    scale = float(np.hypot(mu[0, 0], mu[1, 0]))
    rotation = float(np.degrees(np.arctan2(mu[1, 0], mu[0, 0])))
    params = {"scale": scale, "rotation_deg": rotation,
              "origin": [float(matrix[0, 2]), float(matrix[1, 2])],
              "matrix": matrix.tolist(),
              "note": "map = origin + scale * R(rotation) * (x, -y); pixel y down"}
    return _linear_result("helmert", p, m, matrix, params)


def _fit_affine(p, m, w) -> FittedTransform:
    np_, nm = normalising_matrix(p), normalising_matrix(m)
    u, v = apply_homogeneous(np_, p), apply_homogeneous(nm, m)
    coef = _weighted_lstsq(polynomial_terms(u, 1), v, w)  # (3, 2): rows 1, x, y
    hn = np.array([[coef[1, 0], coef[2, 0], coef[0, 0]],
                   [coef[1, 1], coef[2, 1], coef[0, 1]], [0.0, 0.0, 1.0]])
    matrix = np.linalg.inv(nm) @ hn @ np_
    gt = [matrix[0, 2], matrix[0, 0], matrix[0, 1], matrix[1, 2], matrix[1, 0], matrix[1, 1]]
    params = {"matrix": matrix.tolist(), "geotransform": [float(g) for g in gt]}
    return _linear_result("affine", p, m, matrix, params)


def _linear_result(kind, p, m, matrix, params) -> FittedTransform:
    inv = np.linalg.inv(matrix)
    return FittedTransform(kind, p, m, params, matrix,
                           lambda q: apply_homogeneous(matrix, q),
                           lambda q: apply_homogeneous(inv, q))


def _dlt(u: np.ndarray, v: np.ndarray, w: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Direct linear transform in normalised coordinates; returns (H, singular values)."""
    n = len(u)
    a = np.zeros((2 * n, 9))
    x, y = u[:, 0], u[:, 1]
    a[0::2, 0:3] = np.column_stack([x, y, np.ones(n)])
    a[0::2, 6:9] = -v[:, [0]] * np.column_stack([x, y, np.ones(n)])
    a[1::2, 3:6] = np.column_stack([x, y, np.ones(n)])
    a[1::2, 6:9] = -v[:, [1]] * np.column_stack([x, y, np.ones(n)])
    if w is not None:
        a *= np.sqrt(np.repeat(w, 2))[:, None]
    if len(a) < 9:
        a = np.vstack([a, np.zeros((9 - len(a), 9))])
    _, s, vt = np.linalg.svd(a)
    return vt[-1].reshape(3, 3), s


def _fit_projective(p, m, w) -> FittedTransform:
    from scipy.optimize import least_squares

    np_, nm = normalising_matrix(p), normalising_matrix(m)
    u, v = apply_homogeneous(np_, p), apply_homogeneous(nm, m)
    h, s = _dlt(u, v, w)
    if s[-2] <= s[0] / COND_LIMIT:
        raise InputError("the GCPs do not determine a projective transform (three of four "
                         f"lie on one line); set {option('transform')} to affine or add GCPs",
                         field="transform", value="projective")
    if abs(h[2, 2]) < 1e-12:
        raise InputError("the GCPs do not determine a projective transform; "
                         f"set {option('transform')} to affine", field="transform",
                         value="projective")
    h = h / h[2, 2]
    sw = None if w is None else np.sqrt(np.repeat(w, 2))

    x, y, one, zero = u[:, 0], u[:, 1], np.ones(len(u)), np.zeros(len(u))

    def residuals(theta: np.ndarray) -> np.ndarray:
        hh = np.append(theta, 1.0).reshape(3, 3)
        r = (apply_homogeneous(hh, u) - v).reshape(-1)
        return r if sw is None else r * sw

    def jacobian(theta: np.ndarray) -> np.ndarray:
        hh = np.append(theta, 1.0).reshape(3, 3)
        w = hh[2, 0] * x + hh[2, 1] * y + 1.0
        q = apply_homogeneous(hh, u)
        jx = np.column_stack([x, y, one, zero, zero, zero, -q[:, 0] * x, -q[:, 0] * y]) / w[:, None]
        jy = np.column_stack([zero, zero, zero, x, y, one, -q[:, 1] * x, -q[:, 1] * y]) / w[:, None]
        jac = np.empty((2 * len(u), 8))
        jac[0::2], jac[1::2] = jx, jy
        return jac if sw is None else jac * sw[:, None]

    if len(p) > 4:  # geometric least squares (map-space residuals), from the DLT start
        sol = least_squares(residuals, h.reshape(-1)[:8], jac=jacobian, method="lm",
                            xtol=1e-15, ftol=1e-15, gtol=1e-15, max_nfev=1000)
        h = np.append(sol.x, 1.0).reshape(3, 3)
    matrix = np.linalg.inv(nm) @ h @ np_
    matrix = matrix / matrix[2, 2]
    hinv = np.linalg.inv(np_) @ np.linalg.inv(h) @ nm

    def forward(q: np.ndarray) -> np.ndarray:
        return apply_homogeneous(np.linalg.inv(nm), apply_homogeneous(h, apply_homogeneous(np_, q)))

    def inverse(q: np.ndarray) -> np.ndarray:
        return apply_homogeneous(hinv, q)

    params = {"matrix": matrix.tolist(),
              "note": "homography, pixel (x, y down, corner origin) -> map; least squares "
                      "in map coordinates"}
    return FittedTransform("projective", p, m, params, matrix, forward, inverse)


def _fit_polynomial(kind, p, m, w) -> FittedTransform:
    order = GDAL_ORDER[kind]
    np_, nm = normalising_matrix(p), normalising_matrix(m)
    u, v = apply_homogeneous(np_, p), apply_homogeneous(nm, m)
    du, dv = polynomial_terms(u, order), polynomial_terms(v, order)
    fwd = _weighted_lstsq(du, v, w)
    rev = _weighted_lstsq(dv, u, w)
    inm, inp = np.linalg.inv(nm), np.linalg.inv(np_)

    def forward(q: np.ndarray) -> np.ndarray:
        return apply_homogeneous(inm, polynomial_terms(apply_homogeneous(np_, q), order) @ fwd)

    def inverse(q: np.ndarray) -> np.ndarray:
        return apply_homogeneous(inp, polynomial_terms(apply_homogeneous(nm, q), order) @ rev)

    params = {"order": order,
              "pixel_normalisation": np_.tolist(), "map_normalisation": nm.tolist(),
              "forward_coefficients": fwd.T.tolist(), "inverse_coefficients": rev.T.tolist(),
              "note": "u = N_pixel (x, y); v = sum c_k * term_k(u); map = N_map^-1 v; terms "
                      "1, x, y, x2, xy, y2, x3, x2y, xy2, y3 (GDAL's order)"}
    return FittedTransform(kind, p, m, params, None, forward, inverse)


def _fit_tps(p, m) -> FittedTransform:
    from scipy.interpolate import RBFInterpolator

    np_, nm = normalising_matrix(p), normalising_matrix(m)
    u, v = apply_homogeneous(np_, p), apply_homogeneous(nm, m)
    try:
        fwd = RBFInterpolator(u, v, kernel="thin_plate_spline", degree=1, smoothing=0.0)
        rev = RBFInterpolator(v, u, kernel="thin_plate_spline", degree=1, smoothing=0.0)
    except (np.linalg.LinAlgError, ValueError) as exc:
        raise InputError(f"the GCPs do not determine a thin plate spline ({exc}); "
                         f"set {option('transform')} to affine", field="transform",
                         value="tps") from None
    inm, inp = np.linalg.inv(nm), np.linalg.inv(np_)

    def forward(q: np.ndarray) -> np.ndarray:
        return apply_homogeneous(inm, fwd(apply_homogeneous(np_, q)))

    def inverse(q: np.ndarray) -> np.ndarray:
        return apply_homogeneous(inp, rev(apply_homogeneous(nm, q)))

    params = {"points": len(p), "pixel_normalisation": np_.tolist(),
              "map_normalisation": nm.tolist(),
              "note": "thin plate spline through every GCP (kernel r^2 log r, affine part), "
                      "inverse spline fitted separately, as GDAL does"}
    return FittedTransform("tps", p, m, params, None, forward, inverse)


def fit_transform(pixel_xy: np.ndarray, map_xy: np.ndarray, kind: str = "affine", *,
                  weights: np.ndarray | None = None) -> FittedTransform:
    """Fit a pixel -> map transform of ``kind`` to GCPs by least squares in map units.

    Args:
        pixel_xy: ``(N, 2)`` pixel positions (x right, y down, corner origin).
        map_xy: ``(N, 2)`` map coordinates (easting, northing).
        kind: one of :data:`KINDS`.
        weights: optional ``(N,)`` non-negative weights (robust re-weighting; ignored by tps).

    Raises:
        InputError: fewer points than :data:`MIN_POINTS` or a degenerate configuration,
            with a message that says what to do.
    """
    kind = check_kind(kind)
    p, m, w = _validate(pixel_xy, map_xy, weights)
    used = np.ones(len(p), bool) if w is None else w > 0
    check_configuration(kind, p[used], m[used])
    if kind == "helmert":
        return _fit_helmert(p, m, w)
    if kind == "affine":
        return _fit_affine(p, m, w)
    if kind == "projective":
        return _fit_projective(p, m, w)
    if kind == "tps":
        return _fit_tps(p, m)
    return _fit_polynomial(kind, p, m, w)
