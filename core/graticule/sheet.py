"""Graticule of a whole sheet, inside its map area: what every command does by default.

The frame, margins and title of a sheet carry long straight lines that can pass for grid
lines; searching only inside the map area avoids them. With no mask given, the map area is
computed by :func:`core.maparea.map_area_mask` (about 2 s on a 10000 px sheet).

>>> from core.graticule.sheet import detect_on_sheet
>>> result = detect_on_sheet("001-INPUT.jpg")            # doctest: +SKIP
>>> result = detect_on_sheet("001-INPUT.jpg", "001-INPUT-MASK.png")   # doctest: +SKIP
"""

from __future__ import annotations

import os

import numpy as np

from ..imageio import ImageLike, read_red_channel
from ..progress import ProgressCallback, sub_progress
from .detect import DetectionSettings, detect_graticule
from .result import GraticuleResult

#: ``mask`` value of :func:`detect_on_sheet`: compute the map area from the sheet.
COMPUTE = "compute"


def detect_on_sheet(image: ImageLike, mask: ImageLike | str | os.PathLike | None = COMPUTE, *,
                    spacing_px: float | None = None,
                    progress: ProgressCallback | None = None,
                    settings: DetectionSettings | None = None) -> GraticuleResult:
    """:func:`detect_graticule` inside the sheet's map area.

    Parameters
    ----------
    image : path or ndarray
        The scan (JPEG, PNG, TIFF) or an ``(H, W)`` / ``(H, W, 3)`` uint8 array.
    mask : path, ndarray, ``"compute"`` or None
        The map-area mask (0 outside the map); ``"compute"`` (default) finds it with
        ``core.maparea`` (when it finds no map, the whole image is searched); None searches
        the whole image.
    spacing_px, progress, settings
        As for :func:`detect_graticule`.

    Returns
    -------
    GraticuleResult
        Intersections in pixels (x right, y down, integer values at pixel centres).
    """
    if isinstance(mask, str) and mask == COMPUTE:
        from ..maparea import map_area_mask

        image = read_red_channel(image)   # decoded once for both steps
        computed: np.ndarray = map_area_mask(image, progress=sub_progress(progress, 0.0, 0.1))
        mask = computed if computed.any() else None
        progress = sub_progress(progress, 0.1, 1.0)
    return detect_graticule(image, mask, spacing_px=spacing_px, progress=progress,
                            settings=settings)
