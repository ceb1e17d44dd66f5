"""A downscaled picture of a sheet with the detected grid drawn on it, to check at a glance."""

from __future__ import annotations

import os

import cv2
import numpy as np

from ..atomic import atomic_output
from ..imageio import ImageLike, read_image
from ..outputs import cannot_write
from .result import GraticuleResult, LineFamily

MAX_SIDE_PX = 2400


def _draw_family(canvas: np.ndarray, family: LineFamily, scale: float, colour) -> None:
    """Draw the family's straight lines (full-image length) on the scaled canvas."""
    t = np.radians(family.normal_angle_deg)
    n = np.array([np.cos(t), np.sin(t)])
    d = np.array([-n[1], n[0]])
    h, w = canvas.shape[:2]
    reach = 2.0 * max(h, w) / scale
    spacing = family.spacing_px if np.isfinite(family.spacing_px) else 0.0
    for k in family.indices:
        p = n * family.line_position(k) if spacing else n * family.offset_px
        a = (p - reach * d) * scale
        b = (p + reach * d) * scale
        cv2.line(canvas, tuple(int(v) for v in a), tuple(int(v) for v in b), colour, 1,
                 cv2.LINE_AA)


def render_debug(image: ImageLike, result: GraticuleResult) -> np.ndarray:
    """RGB picture (longest side <= MAX_SIDE_PX): lines in blue, visible crossings in red,
    hidden ones (under a gap of a line) in orange, each labelled column,row."""
    width, height = result.image_size
    reduce = 1
    while max(width, height) / reduce > MAX_SIDE_PX and reduce < 8:
        reduce *= 2
    canvas = read_image(image, reduce=reduce).copy()
    scale = canvas.shape[1] / width
    for family in (result.columns, result.rows):
        _draw_family(canvas, family, scale, (40, 90, 220))
    radius = max(6, int(18 * scale * 4))
    for p, (c, r), vis in zip(result.points, result.index, result.visible, strict=True):
        q = tuple(round(v * scale) for v in p)
        colour = (220, 30, 30) if vis else (240, 150, 20)
        cv2.circle(canvas, q, radius, colour, 2, cv2.LINE_AA)
        cv2.putText(canvas, f"{c},{r}", (q[0] + radius + 2, q[1] - radius - 2),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1, cv2.LINE_AA)
    return canvas


def write_debug(path: str | os.PathLike, image: ImageLike, result: GraticuleResult) -> None:
    """Write :func:`render_debug`'s picture as PNG (atomically)."""
    picture = render_debug(image, result)
    with atomic_output(path) as tmp:
        if not cv2.imwrite(str(tmp), cv2.cvtColor(picture, cv2.COLOR_RGB2BGR)):
            raise cannot_write(path)
