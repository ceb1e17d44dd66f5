"""Line orientations: normal angles in degrees, measured from +x towards +y (y down).

A line ``x cos(t) + y sin(t) = rho`` is the same line as ``(t + 180, -rho)``; detection keeps
normal angles in [-45, 135) so that near-vertical lines (t near 0) and near-horizontal ones
(t near 90) are never split across the wrap-around.
"""

from __future__ import annotations


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
