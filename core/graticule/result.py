"""What graticule detection returns: intersections with grid indices, and the line families.

Pixel coordinates: x right, y down, in pixels of the full-resolution image.

Grid indices are image-oriented: ``column`` counts the lines of the family closer to
vertical in the image and increases towards +x; ``row`` counts the family closer to
horizontal and increases towards +y (down). On a north-up sheet the easting grows with the
column and the northing falls with the row; a sheet scanned at 90 degrees swaps them, which
is why georeferencing needs anchors to name the cells (see core.georef).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class LineFamily:
    """Parallel, evenly spaced lines ``x cos(t) + y sin(t) = offset + k * spacing``.

    Attributes:
        normal_angle_deg: t, the direction of the lines' normal in degrees, measured from +x
            towards +y (clockwise on screen). Columns have t in (-45, 45], rows in (45, 135].
        spacing_px: distance between neighbouring lines, pixels (> 0).
        offset_px: signed distance of line k = 0 from the image origin along the normal.
        indices: the k of every line found on the sheet, ascending.
    """

    normal_angle_deg: float
    spacing_px: float
    offset_px: float
    indices: tuple[int, ...]

    @property
    def line_angle_deg(self) -> float:
        """Direction of the lines themselves: the normal turned by +90 degrees."""
        return self.normal_angle_deg + 90.0

    def line_position(self, k: float) -> float:
        """Signed distance of line ``k`` from the origin along the normal, pixels."""
        return self.offset_px + k * self.spacing_px


@dataclass
class GraticuleResult:
    """Graticule intersections found on one sheet.

    Attributes:
        points: ``(N, 2)`` float64 sub-pixel positions (x, y) of the intersections.
        index: ``(N, 2)`` int ``(column, row)`` grid index of each intersection.
        confidence: ``(N,)`` float in [0, 1]: how clearly both lines were seen there.
        columns: the family of near-vertical lines (in the image).
        rows: the family of near-horizontal lines.
        image_size: ``(width, height)`` of the image, pixels.
        visible: ``(N,)`` bool: both lines are drawn right through the crossing. A crossing
            under a label or a gap of a line is still a valid control point (the lines
            define it) but is not an intersection one can see, which MapSeg ground truth
            and our generator leave out; ``visible_only()`` keeps the others.
    """

    points: np.ndarray
    index: np.ndarray
    confidence: np.ndarray
    columns: LineFamily
    rows: LineFamily
    image_size: tuple[int, int]
    visible: np.ndarray | None = None

    def __post_init__(self) -> None:
        self.points = np.asarray(self.points, dtype=np.float64).reshape(-1, 2)
        self.index = np.asarray(self.index, dtype=np.int64).reshape(-1, 2)
        self.confidence = np.asarray(self.confidence, dtype=np.float64).reshape(-1)
        if self.visible is None:
            self.visible = np.ones(len(self.points), dtype=bool)
        self.visible = np.asarray(self.visible, dtype=bool).reshape(-1)
        if not (len(self.points) == len(self.index) == len(self.confidence)
                == len(self.visible)):
            raise ValueError("points, index, confidence and visible must have the same length")

    def __len__(self) -> int:
        return len(self.points)

    def visible_only(self) -> GraticuleResult:
        """The same result restricted to the crossings one can see on the map."""
        v = self.visible
        return GraticuleResult(self.points[v], self.index[v], self.confidence[v], self.columns,
                               self.rows, self.image_size, self.visible[v])


def family_index(family: LineFamily, pixel_xy: np.ndarray) -> np.ndarray:
    """Fractional line number of pixel positions ``(N, 2)`` in ``family``'s numbering."""
    t = np.radians(family.normal_angle_deg)
    pos = pixel_xy[:, 0] * np.cos(t) + pixel_xy[:, 1] * np.sin(t)
    return (pos - family.offset_px) / family.spacing_px


def fractional_index(result: GraticuleResult, pixel_xy: np.ndarray) -> np.ndarray:
    """Fractional (column, row) grid index of pixel positions, from the two line families,
    numbered like ``result.index``."""
    pts = np.asarray(pixel_xy, dtype=np.float64).reshape(-1, 2)
    frac = np.column_stack([family_index(result.columns, pts), family_index(result.rows, pts)])
    return frac - index_shift(result)


def index_shift(result: GraticuleResult) -> np.ndarray:
    """(column, row) shift from detection indices to the families' line numbers k
    (``offset + k * spacing``): k = index + shift; (0, 0) as detection numbers them."""
    if not len(result):
        return np.zeros(2, np.int64)
    # Detection numbers the lines like the families; if it ever numbered them from another
    # origin, shift by the commonest difference so anchors snap consistently.
    own = np.column_stack([family_index(result.columns, result.points),
                           family_index(result.rows, result.points)])
    diff = np.round(own).astype(np.int64) - result.index
    values, counts = np.unique(diff, axis=0, return_counts=True)
    return values[np.argmax(counts)]


def snap_to_grid(result: GraticuleResult, pixel_xy: np.ndarray) -> np.ndarray:
    """(column, row) int index of the grid node nearest each pixel position."""
    return np.round(fractional_index(result, pixel_xy)).astype(np.int64)
