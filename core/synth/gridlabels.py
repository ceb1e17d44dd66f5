"""Grid values printed in the margins, where each grid line meets the map frame.

Styles (``SheetParams.margin_labels``):

- ``full``: the coordinate in metres, ``652000`` (a minus sign when negative);
- ``grouped``: digits grouped by three, ``6 862 000``;
- ``thousands``: kilometres, ``652``;
- ``km``: kilometres with their unit, ``652 km``;
- ``raised``: kilometres followed by small raised trailing zeros, ``652`` and a superscript
  ``000`` (:data:`RAISED_SIZE` of the label size, raised by :data:`RAISED_RISE` of it);
- ``unsigned``: the value without its sign, as Jacoubet's atlas prints the eastings west of
  its meridian (the values then fall eastward); use it on sheets whose coordinates all
  have one sign;
- ``oldstyle``: as ``unsigned``, engraved the way Jacoubet's 1836 atlas does: small
  old-style figures (EB Garamond, Debian fonts-ebgaramond; :data:`OLDSTYLE_SIZE` of the
  label size) close to the frame line, the grid line's tick running out through the
  figures, labels on all four sides, each read from outside the frame (northings on the
  left read upwards, on the right downwards);
- ``inside``: no margin labels; the values printed along the grid lines inside the map
  (:mod:`.gridlabels_inside`);
- ``plain`` and ``plain-km``: held-out styles (no figure reader is trained or tuned on
  them): the value in metres (``6869000``) or in kilometres (``6869``) in PT Serif, PT Sans
  or Caladea (Debian fonts-paratype, fonts-crosextra-caladea), every label upright on the sheet
  whatever the grid's angle (on a grid turned a quarter, the eastings stand by the left and
  right sides of the frame, the northings above and below it).

Easting labels stand upright (on a tilted grid, turned with it); northing labels are turned
a quarter counter-clockwise (reading upwards) when ``label_turned``, else upright too. Each
label is centred on its line,
just outside the frame, on 2 sides (top and left) or 4. Some are left out
(``label_missing``) and a few stray numbers (``label_distractors``: house or sheet numbers)
are printed next to line ends. Geometry in flat upright pixels (x right, y down).
"""

from __future__ import annotations

import cv2
import numpy as np
from shapely.geometry import LineString, Polygon

from .geometry import GridAffine
from .grid import GridLine
from .gridlabels_inside import draw_inside_labels
from .params import LABEL_STYLES, SheetParams  # noqa: F401 (LABEL_STYLES re-exported)
from .text import Lettering

#: Size and raise (fractions of the label size) of the raised trailing zeros.
RAISED_SIZE = 0.55
RAISED_RISE = 0.4
#: Size of old-style labels as a fraction of ``label_size_px``, their gap to the frame as
#: a fraction of their size, and how far the tick runs out, in label sizes.
OLDSTYLE_SIZE = 0.7
OLDSTYLE_GAP = 0.12
OLDSTYLE_TICK = 0.25


def label_text(value: float, style: str) -> str:
    """How ``value`` (metres) is printed in ``style``."""
    v = round(value)
    if style == "thousands":
        return str(round(v / 1000))
    if style == "km":
        return f"{round(v / 1000)} km"
    if style == "plain-km":
        return str(round(v / 1000))
    if style == "raised":
        return str(v)
    if style in ("unsigned", "oldstyle"):
        return str(abs(v))
    if style == "grouped":
        return ("-" if v < 0 else "") + f"{abs(v):,}".replace(",", " ")
    return str(v)


def _exits(line: GridLine, affine: GridAffine, frame: Polygon) -> list[tuple[np.ndarray,
                                                                             np.ndarray]]:
    """Where the line leaves the frame: (point, outward unit direction), both ends."""
    a, b = line.extent
    e, n = line.points(np.array([a, b]))
    x, y = affine.to_flat(e, n)
    seg = LineString([(x[0], y[0]), (x[1], y[1])])
    cut = seg.intersection(frame)
    if cut.is_empty or cut.geom_type != "LineString":
        return []
    pts = np.asarray(cut.coords)
    d = pts[-1] - pts[0]
    length = float(np.hypot(*d))
    if length == 0:
        return []
    d = d / length
    return [(pts[0], -d), (pts[-1], d)]


def label_runs(text: str, style: str) -> list[tuple[str, float, float]]:
    """The runs (text, size factor, raise) ``text`` is rendered with: one, or for
    ``raised`` the value's last three figures small and raised."""
    if style == "raised" and len(text.lstrip("-")) > 3:
        return [(text[:-3], 1.0, 0.0), (text[-3:], RAISED_SIZE, RAISED_RISE)]
    return [(text, 1.0, 0.0)]


def draw_grid_labels(ink: np.ndarray, frame: Polygon, lines: list[GridLine],
                     affine: GridAffine, p: SheetParams, rng: np.random.Generator,
                     letters: Lettering, red: np.ndarray | None = None) -> list[dict]:
    """Print the labels into ``ink`` (``red``: the red ink, cleared under ``inside``
    labels' halo); returns one record per label: ``axis`` (0 easting,
    1 northing), ``value`` (metres), ``text``, ``centre`` and ``size`` (w, h) in flat
    upright pixels, ``angle`` (degrees) and ``distractor`` (True for a stray number)."""
    if p.margin_labels == "none":
        return []
    if p.margin_labels == "inside":
        return draw_inside_labels(ink, frame, lines, affine, p, rng, letters, red)
    h_img, w_img = ink.shape
    old = p.margin_labels == "oldstyle"
    upright = p.margin_labels in ("plain", "plain-km")
    size = p.label_size_px * p.content_scale * (OLDSTYLE_SIZE if old else 1.0)
    gap = (OLDSTYLE_GAP if old else 0.4) * size + p.frame_width_px
    font = "oldstyle" if old else p.label_font
    x0, y0, x1, y1 = frame.bounds
    records = []
    ends = []
    for line in lines:
        for point, out in _exits(line, affine, frame):
            # the side of the frame the line leaves by
            side = int(np.argmin([abs(point[1] - y0), abs(point[0] - x1), abs(point[1] - y1),
                                  abs(point[0] - x0)]))      # 0 top, 1 right, 2 bottom, 3 left
            if p.label_sides == 2 and side in (1, 2) and not old:
                continue
            ends.append((line, point, out, side))
    # text follows the grid (a tilted grid carries its labels with it)
    fx, fy = affine.to_flat(np.array([0.0, 1.0]), np.array([0.0, 0.0]))
    east = float(np.degrees(np.arctan2(fy[1] - fy[0], fx[1] - fx[0])))
    for line, point, out, side in ends:
        if rng.random() < p.label_missing:
            continue
        text = label_text(line.value, p.margin_labels)
        angle = east - 90.0 if (line.axis == 1 and (p.label_turned or old)) else east
        if upright:
            angle = 0.0                      # upright on the sheet, not turned with the grid
        if old:
            if line.axis == 1 and side == 1:
                angle = east + 90.0          # read from outside the frame: downwards
            tip = point + out * (gap + OLDSTYLE_TICK * size)
            cv2.line(ink, (round(point[0]), round(point[1])), (round(tip[0]), round(tip[1])),
                     245, 1, cv2.LINE_AA)
        records += _place(ink, letters, text, point, out, side, size, gap, p,
                          (w_img, h_img), angle, {"axis": line.axis, "value": float(line.value),
                                           "distractor": False}, font)
    for _ in range(p.label_distractors if ends else 0):
        line, point, out, side = ends[int(rng.integers(len(ends)))]
        text = str(int(rng.integers(1, 400)))
        along = np.array([-out[1], out[0]]) * rng.choice([-1.0, 1.0]) * rng.uniform(1.5, 3.0) \
            * size
        records += _place(ink, letters, text, point + along, out, side, 0.8 * size,
                          gap + rng.uniform(0.0, 2.0) * size, p, (w_img, h_img), east,
                          {"axis": line.axis, "value": None, "distractor": True}, font)
    return records


def _place(ink, letters: Lettering, text: str, point: np.ndarray, out: np.ndarray, side: int,
           size: float, gap: float, p: SheetParams, shape: tuple[int, int], angle: float,
           record: dict, font: str) -> list[dict]:
    """Render ``text`` turned by ``angle`` degrees beyond the frame at ``point`` along
    ``out``; [] if off the sheet. The record's size is the turned text's bounding box."""
    patch = letters.render(label_runs(text, p.margin_labels), font, size)
    t = np.radians(angle)
    c, s_ = abs(np.cos(t)), abs(np.sin(t))
    w = patch.shape[1] * c + patch.shape[0] * s_
    h = patch.shape[1] * s_ + patch.shape[0] * c
    normal = np.array([[0.0, -1.0], [1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])[side]
    extent = (h if side in (0, 2) else w) / 2.0
    cos = max(0.3, float(out @ normal))
    centre = point + out * (gap + extent) / cos
    if not (w / 2 < centre[0] < shape[0] - w / 2 and h / 2 < centre[1] < shape[1] - h / 2):
        return []
    letters.place(ink, patch, (float(centre[0]), float(centre[1])), angle, 245)
    return [{**record, "text": text, "centre": [float(centre[0]), float(centre[1])],
             "size": [float(w), float(h)], "angle": angle}]
