"""Smooth non-affine paper warp: a low-frequency displacement field plus a sheet fold.

The warp is defined as a BACKWARD map ``g`` from the warped (final) sheet to the flat
(unwarped) drawing, both in upright pixel coordinates with the pixel centre at integer
values (OpenCV convention)::

    g(x, y) = (x + dx(x, y), y + dy(x, y))
    dx = sum_k a_k sin(fx_k x + px_k) sin(fy_k y + py_k)  [+ fold: A tanh((x - x_f) / w)]
    dy = sum_k b_k sin(fx_k x + px_k) sin(fy_k y + py_k)

The image is warped with ``cv2.remap`` sampling the flat drawing at ``g``; a point drawn at
``u`` in the flat drawing appears where ``g(x) = u``, found by :meth:`PaperWarp.forward`
(fixed-point iteration, converging because the field's gradient is far below 1).
Every term is a product of 1-D functions, so the remap maps are cheap to build band by band.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass, field

import cv2
import numpy as np

BAND_ROWS = 512


@dataclass(frozen=True)
class WarpTerm:
    """One separable displacement term ``amp * sin(fx x + px) * sin(fy y + py)``.

    ``axis`` is 0 for dx, 1 for dy; ``amp`` in pixels; ``fx``, ``fy`` in radians per pixel.
    """

    axis: int
    amp: float
    fx: float
    px: float
    fy: float
    py: float


@dataclass(frozen=True)
class Fold:
    """A vertical fold at ``x`` (upright pixels): content shifts by ``amp * tanh((x - pos)/width)``.

    ``width`` must exceed ``amp`` several times so the map stays smooth and invertible.
    """

    position: float
    amp: float
    width: float


@dataclass(frozen=True)
class PaperWarp:
    """The backward map final -> flat; see the module docstring."""

    terms: tuple[WarpTerm, ...] = ()
    fold: Fold | None = None
    _cache: dict = field(default_factory=dict, compare=False, repr=False)

    # --- exact point mapping (float64) -------------------------------------------------
    def displacement(self, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(dx, dy) in pixels at final-sheet positions (x, y)."""
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        dx = np.zeros(np.broadcast(x, y).shape)
        dy = np.zeros_like(dx)
        for t in self.terms:
            v = t.amp * np.sin(t.fx * x + t.px) * np.sin(t.fy * y + t.py)
            if t.axis == 0:
                dx += v
            else:
                dy += v
        if self.fold is not None:
            dx += self.fold.amp * np.tanh((x - self.fold.position) / self.fold.width)
        return dx, dy

    def backward(self, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Flat-drawing position sampled at final position (x, y)."""
        dx, dy = self.displacement(x, y)
        return np.asarray(x, np.float64) + dx, np.asarray(y, np.float64) + dy

    def forward(self, u: np.ndarray, v: np.ndarray, *, tol: float = 1e-9,
                max_iter: int = 200) -> tuple[np.ndarray, np.ndarray]:
        """Final-sheet position of flat-drawing points (u, v): solves ``g(x, y) = (u, v)``."""
        u = np.asarray(u, dtype=np.float64)
        v = np.asarray(v, dtype=np.float64)
        x, y = u.copy(), v.copy()
        for _ in range(max_iter):
            dx, dy = self.displacement(x, y)
            nx, ny = u - dx, v - dy
            step = max(float(np.max(np.abs(nx - x), initial=0.0)),
                       float(np.max(np.abs(ny - y), initial=0.0)))
            x, y = nx, ny
            if step < tol:
                break
        return x, y

    # --- image warping -------------------------------------------------------------------
    def _factors(self, width: int, height: int, quarter_turns: int
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Matrices whose products are the remap maps (see :meth:`band_maps`), cached.

        Output pixel (row r, column c) of the sheet turned by ``quarter_turns`` comes from
        upright position (x, y) where each of x and y depends on r alone or on c alone
        (``numpy.rot90``). Every displacement term is a product of a function of x and one
        of y, hence of a function of r and one of c: ``map_x = RX @ CX`` and
        ``map_y = RY @ CY`` with one row-factor column and one column-factor row per term.
        """
        key = (width, height, quarter_turns % 4)
        if key in self._cache:
            return self._cache[key]
        k = quarter_turns % 4
        out_w, out_h = (width, height) if k % 2 == 0 else (height, width)
        r = np.arange(out_h, dtype=np.float64)
        c = np.arange(out_w, dtype=np.float64)
        # (values of x, does x depend on the row?), same for y
        x_of, x_on_row = {0: (c, False), 1: (width - 1 - r, True), 2: (width - 1 - c, False),
                          3: (r, True)}[k]
        y_of, y_on_row = {0: (r, True), 1: (c, False), 2: (height - 1 - r, True),
                          3: (height - 1 - c, False)}[k]
        ones_r, ones_c = np.ones(out_h), np.ones(out_w)

        def split(fx_vals: np.ndarray, fy_vals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            """(row factor, column factor) of the product fx(x) * fy(y)."""
            if x_on_row:
                return fx_vals, fy_vals  # x varies with r, y with c
            return fy_vals, fx_vals

        def single(vals: np.ndarray, on_row: bool) -> tuple[np.ndarray, np.ndarray]:
            return (vals, ones_c) if on_row else (ones_r, vals)

        maps = []
        for axis in (0, 1):
            rows, cols = [], []
            for t in self.terms:
                if t.axis != axis:
                    continue
                a, b = split(t.amp * np.sin(t.fx * x_of + t.px), np.sin(t.fy * y_of + t.py))
                rows.append(a)
                cols.append(b)
            if axis == 0:
                base = x_of.copy()
                if self.fold is not None:
                    base += self.fold.amp * np.tanh((x_of - self.fold.position)
                                                    / self.fold.width)
                a, b = single(base, x_on_row)
            else:
                a, b = single(y_of, y_on_row)
            rows.append(a)
            cols.append(b)
            maps.append(np.ascontiguousarray(np.stack(rows, axis=1), dtype=np.float32))
            maps.append(np.ascontiguousarray(np.stack(cols), dtype=np.float32))
        self._cache[key] = tuple(maps)
        return self._cache[key]

    def band_maps(self, width: int, height: int, r0: int, r1: int,
                  quarter_turns: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """float32 remap maps (map_x, map_y) for output rows r0..r1-1.

        ``width`` x ``height`` is the upright sheet; the output is it turned by
        ``quarter_turns`` x 90 degrees counter-clockwise. The maps give, for each output
        pixel, the flat-drawing position to sample (OpenCV convention).
        """
        rx, cx, ry, cy = self._factors(width, height, quarter_turns)
        return rx[r0:r1] @ cx, ry[r0:r1] @ cy

    def bands(self, height: int, rows: int = BAND_ROWS) -> Iterator[tuple[int, int]]:
        """Row ranges (r0, r1) covering ``height`` rows."""
        for r0 in range(0, height, rows):
            yield r0, min(height, r0 + rows)

    def apply(self, image: np.ndarray, interpolation: int = cv2.INTER_LINEAR,
              quarter_turns: int = 0) -> np.ndarray:
        """The flat drawing ``image`` warped and turned by ``quarter_turns`` (one remap)."""
        h, w = image.shape[:2]
        k = quarter_turns % 4
        out_h, out_w = (h, w) if k % 2 == 0 else (w, h)
        out = np.empty((out_h, out_w, *image.shape[2:]), image.dtype)
        for r0, r1 in self.bands(out_h):
            mx, my = self.band_maps(w, h, r0, r1, k)
            cv2.remap(image, mx, my, interpolation, dst=out[r0:r1],
                      borderMode=cv2.BORDER_REPLICATE)
        return out

    # --- serialisation ------------------------------------------------------------------
    def to_dict(self) -> dict:
        """JSON-ready description (amplitudes in px, frequencies in rad/px)."""
        return {"terms": [asdict(t) for t in self.terms],
                "fold": None if self.fold is None else asdict(self.fold)}

    @classmethod
    def from_dict(cls, d: dict) -> PaperWarp:
        """Inverse of :meth:`to_dict`."""
        fold = d.get("fold")
        return cls(tuple(WarpTerm(**t) for t in d.get("terms", [])),
                   None if fold is None else Fold(**fold))

    def max_gradient(self) -> float:
        """An upper bound of the displacement's derivative (must stay well below 1)."""
        g = sum(abs(t.amp) * (abs(t.fx) + abs(t.fy)) for t in self.terms)
        if self.fold is not None:
            g += abs(self.fold.amp) / self.fold.width
        return float(g)


def random_warp(rng: np.random.Generator, width: int, height: int, amplitude_px: float,
                fold: Fold | None, n_terms: int = 3) -> PaperWarp:
    """A warp whose low-frequency part moves points by up to about ``amplitude_px``.

    Wavelengths are between 0.5 and 2 sheet sizes, so the field is smooth and non-affine.
    """
    terms = []
    size = float(max(width, height))
    for axis in (0, 1):
        amps = rng.dirichlet(np.ones(n_terms)) * amplitude_px
        for a in amps:
            fx = 2 * np.pi / (size * rng.uniform(0.5, 2.0))
            fy = 2 * np.pi / (size * rng.uniform(0.5, 2.0))
            terms.append(WarpTerm(axis, float(a * rng.choice([-1.0, 1.0])), float(fx),
                                  float(rng.uniform(0, 2 * np.pi)), float(fy),
                                  float(rng.uniform(0, 2 * np.pi))))
    return PaperWarp(tuple(terms), fold)
