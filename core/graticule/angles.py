"""Line orientations and positions: normal angles in degrees, measured from +x towards +y
(y down), and rho, the signed distance of the line from the image origin along the normal.

A line ``x cos(t) + y sin(t) = rho`` is the same line as ``(t + 180, -rho)``; detection keeps
normal angles in [-45, 135) so that near-vertical lines (t near 0) and near-horizontal ones
(t near 90) are never split across the wrap-around.
"""

from __future__ import annotations

import numpy as np


def normalise_angle(angle_deg: float, rho: float) -> tuple[float, float]:
    """Same line with its normal angle brought into [-45, 135) (rho changes sign if needed)."""
    a = angle_deg
    while a >= 135.0:
        a -= 180.0
        rho = -rho
    while a < -45.0:
        a += 180.0
        rho = -rho
    return a, rho


def angle_difference(a: float, b: float) -> float:
    """Smallest difference between two line orientations, degrees, in [-90, 90)."""
    return (a - b + 90.0) % 180.0 - 90.0


def line_through(angle_deg: float, rho: float, width: int,
                 height: int) -> tuple[np.ndarray, np.ndarray]:
    """Point nearest the image centre and unit direction of ``x cos t + y sin t = rho``."""
    t = np.radians(angle_deg)
    n = np.array([np.cos(t), np.sin(t)])
    centre = np.array([width / 2, height / 2])
    return centre + (rho - centre @ n) * n, np.array([-n[1], n[0]])


def rho_at(angle_deg: float, rho: float, at_angle_deg: float, width: int,
           height: int) -> float:
    """The rho, along the normal ``at_angle_deg``, of the point nearest the image centre on
    line ``(angle_deg, rho)``: lets lines found at slightly different angles be compared
    where they matter, in the image rather than at the origin."""
    point, _ = line_through(angle_deg, rho, width, height)
    t = np.radians(at_angle_deg)
    return float(point @ np.array([np.cos(t), np.sin(t)]))
