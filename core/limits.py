"""Largest coordinates the readers accept (documented in the README's table of limits).

A value past these is a typing or export error (``2673e038`` for ``2673.038``), never a real
position, and it would overflow the arithmetic downstream (plots, matrices, resampling), so
readers refuse it with the file and line, before any work starts.
"""

from __future__ import annotations

import math

#: Largest pixel coordinate, in absolute value: 400 times the largest image side allowed
#: by default (25000 px), room for points placed off a sheet.
MAX_PIXEL_COORD = 1e7
#: Largest map (CRS) coordinate, in absolute value: every projected CRS stays within
#: 2e7 m of its false origin (plus false eastings up to a few 1e7); degrees within 360.
MAX_MAP_COORD = 1e9


def coordinate_problem(values, limit: float, unit: str = "") -> str | None:
    """Why these numbers cannot be coordinates (not finite, or beyond ``limit`` in
    absolute value), or None when they can."""
    for value in values:
        try:
            v = float(value)
        except OverflowError:       # a Python int too large for a float
            return f"coordinate {value:.3e} is beyond +-{limit:g}{' ' + unit if unit else ''}"
        if not math.isfinite(v):
            return f"coordinates must be finite numbers, not {v}"
        if abs(v) > limit:
            return f"coordinate {v:g} is beyond +-{limit:g}{' ' + unit if unit else ''}"
    return None
