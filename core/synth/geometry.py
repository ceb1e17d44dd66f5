"""Where a grid coordinate lands on a generated sheet: grid affine, paper warp, scan rotation.

Three pixel frames, all with x right and y down:

- *flat*: the upright sheet as drawn (before warp), OpenCV convention (pixel centres at
  integer coordinates). The grid maps to it by an affine map: scale ``px_per_m`` along the
  easting axis and ``px_per_m * (1 - aspect)`` along the northing axis, turned by ``tilt_deg``
  from +x towards +y (clockwise on screen). Northing grows UP the upright sheet.
- *upright*: the flat drawing after the paper warp (:class:`~core.synth.warp.PaperWarp`).
- *output*: the upright sheet turned by ``quarter_turns`` x 90 degrees counter-clockwise
  (``numpy.rot90``), in ``core``'s convention, which is MapSeg's: pixel centres at integer
  coordinates (the top-left pixel's centre is (0, 0)). All public coordinates (CSV,
  ``intersections``, :meth:`SheetGeometry.grid_to_pixel`) are output coordinates; the
  ``.points`` file adds QGIS's half pixel (core.formats.qgis_points.PIXEL_CENTRE).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .warp import PaperWarp

_HALF = 0.5  # quarter turns are exact in corner coordinates (pixel 0 spans [0, 1))


@dataclass(frozen=True)
class GridAffine:
    """Affine map between grid coordinates (easting, northing; metres) and flat pixels."""

    centre_en: tuple[float, float]
    centre_xy: tuple[float, float]
    px_per_m: float
    tilt_deg: float
    aspect: float = 0.0

    def matrix(self) -> np.ndarray:
        """2x2 matrix M with ``xy = centre_xy + M @ (en - centre_en)``."""
        t = np.radians(self.tilt_deg)
        rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
        scale = np.diag([self.px_per_m, -self.px_per_m * (1.0 - self.aspect)])
        return rot @ scale

    def to_flat(self, e: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Flat pixel position of grid points (e, n)."""
        m = self.matrix()
        de = np.asarray(e, np.float64) - self.centre_en[0]
        dn = np.asarray(n, np.float64) - self.centre_en[1]
        return (self.centre_xy[0] + m[0, 0] * de + m[0, 1] * dn,
                self.centre_xy[1] + m[1, 0] * de + m[1, 1] * dn)

    def from_flat(self, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Grid coordinates of flat pixel positions (x, y)."""
        inv = np.linalg.inv(self.matrix())
        dx = np.asarray(x, np.float64) - self.centre_xy[0]
        dy = np.asarray(y, np.float64) - self.centre_xy[1]
        return (self.centre_en[0] + inv[0, 0] * dx + inv[0, 1] * dy,
                self.centre_en[1] + inv[1, 0] * dx + inv[1, 1] * dy)


@dataclass(frozen=True)
class SheetGeometry:
    """The exact mapping between grid coordinates and output pixels of one sheet.

    ``width`` x ``height`` is the output image size; the upright sheet is
    ``upright_size`` = (width, height) when ``quarter_turns`` is even, else swapped.
    """

    width: int
    height: int
    quarter_turns: int
    grid: GridAffine
    warp: PaperWarp

    @property
    def upright_size(self) -> tuple[int, int]:
        """(width, height) of the upright sheet, before the scan rotation."""
        if self.quarter_turns % 2:
            return self.height, self.width
        return self.width, self.height

    def upright_to_output(self, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Upright to output coordinates (both with pixel centres at integers)."""
        x = np.asarray(x, np.float64) + _HALF
        y = np.asarray(y, np.float64) + _HALF
        uw, uh = self.upright_size
        for _ in range(self.quarter_turns % 4):  # one numpy.rot90 turn: (x, y) -> (y, w - x)
            x, y = y, uw - x
            uw, uh = uh, uw
        return x - _HALF, y - _HALF

    def output_to_upright(self, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Inverse of :meth:`upright_to_output`."""
        x = np.asarray(x, np.float64) + _HALF
        y = np.asarray(y, np.float64) + _HALF
        uw, uh = self.width, self.height
        for _ in range(self.quarter_turns % 4):  # undo one turn: (x, y) -> (w_before - y, x)
            uw, uh = uh, uw
            x, y = uw - y, x
        return x - _HALF, y - _HALF

    def flat_to_array(self, x: np.ndarray, y: np.ndarray,
                      tol: float = 1e-4) -> tuple[np.ndarray, np.ndarray]:
        """Output ARRAY coordinates (pixel centres at integers, as OpenCV draws) of flat
        drawing positions, for rasterising ground-truth polygons in the output image."""
        ux, uy = self.warp.forward(x, y, tol=tol)
        return self.upright_to_output(ux, uy)

    def grid_to_pixel(self, e: np.ndarray | float, n: np.ndarray | float) -> np.ndarray:
        """True output pixel position (x right, y down, pixel centres at integers) of grid
        points.

        Args:
            e, n: easting and northing in the grid CRS (metres), scalars or arrays.
        Returns:
            ``(..., 2)`` float64 array of (x, y), through the grid affine, the exact inverse of
            the paper warp and the scan rotation.
        """
        fx, fy = self.grid.to_flat(e, n)
        ux, uy = self.warp.forward(fx, fy)
        ox, oy = self.upright_to_output(ux, uy)
        return np.stack([ox, oy], axis=-1)

    def pixel_to_grid(self, x: np.ndarray | float, y: np.ndarray | float) -> np.ndarray:
        """Grid coordinates (easting, northing) of output pixel positions: ``(..., 2)``."""
        ux, uy = self.output_to_upright(x, y)
        fx, fy = self.warp.backward(ux, uy)
        e, n = self.grid.from_flat(fx, fy)
        return np.stack([e, n], axis=-1)

    def to_dict(self) -> dict:
        """JSON-ready description, the ``geometry`` entry of NNN.json."""
        g = self.grid
        return {"width": self.width, "height": self.height,
                "quarter_turns": self.quarter_turns,
                "grid": {"centre_en": list(g.centre_en), "centre_xy": list(g.centre_xy),
                         "px_per_m": g.px_per_m, "tilt_deg": g.tilt_deg, "aspect": g.aspect},
                "warp": self.warp.to_dict(),
                "pixel_convention": "centre: the centre of the top-left pixel is (0, 0)"}

    @classmethod
    def from_dict(cls, d: dict) -> SheetGeometry:
        """Rebuild from the ``geometry`` entry of NNN.json (or :meth:`to_dict`)."""
        g = d["grid"]
        grid = GridAffine(tuple(g["centre_en"]), tuple(g["centre_xy"]), float(g["px_per_m"]),
                          float(g["tilt_deg"]), float(g.get("aspect", 0.0)))
        return cls(int(d["width"]), int(d["height"]), int(d["quarter_turns"]), grid,
                   PaperWarp.from_dict(d["warp"]))
