"""What the review panel draws on its own map canvas, over the sheet as scanned: the points
(green used, red cross left out, blue ring without grid values), their residual arrows
(exaggerated, as in core's HTML report), the detected crossings a point may snap to, and
the grid labels read; and the map tool that drags, adds and picks points.

The canvas shows the sheet unreferenced, pixel (x, y) of a GCP (top-left corner of the
image at 0, 0) at layer (x, -y) (:mod:`plugin.sheets`), so moves and clicks are pixels
exactly; nothing here fits or decides: the layers are redrawn from the session's fit.
"""

from __future__ import annotations

import math

import numpy as np
from qgis.core import (
    QgsArrowSymbolLayer,
    QgsCoordinateReferenceSystem,
    QgsFillSymbol,
    QgsGeometry,
    QgsLineSymbol,
    QgsPointXY,
    QgsRasterLayer,
    QgsWkbTypes,
)
from qgis.gui import QgsMapTool, QgsRubberBand
from qgis.PyQt.QtCore import Qt, pyqtSignal
from qgis.PyQt.QtGui import QColor

from ..i18n import number, tr
from ..layers import (
    label_layer,
    marker,
    memory_layer,
    replace_features,
    rule_renderer,
    used_renderer,
)
from ..sheets import SheetError, pixel_to_layer

#: Distance in screen pixels within which a press picks a point.
PICK_PX = 10
#: The longest used residual arrow is drawn at most this share of the sheet's larger side.
ARROW_SHARE = 0.1


def gcp_to_layer(layer: QgsRasterLayer, x: float, y: float) -> QgsPointXY:
    """Layer coordinates of GCP pixel (x, y) (corner convention)."""
    return pixel_to_layer(layer, x - 0.5, y - 0.5)


def layer_to_gcp(layer: QgsRasterLayer, point: QgsPointXY) -> tuple[float, float]:
    """GCP pixel (x, y) (corner convention) of a point in layer coordinates."""
    from ..sheets import layer_to_pixel

    x, y = layer_to_pixel(layer, point)
    return x + 0.5, y + 0.5


def arrow_scale(residuals: np.ndarray, used: np.ndarray, size: tuple[int, int]) -> float:
    """How much residual arrows are lengthened: 1, 2 or 5 times a power of ten, the most
    that draws the longest used residual at most :data:`ARROW_SHARE` of the sheet's larger
    side (1 when the residuals are that long already, or none).

    >>> arrow_scale([[3.0, 4.0], [0.1, 0.0]], [True, True], (3000, 2000))
    50.0
    """
    lengths = np.hypot(*np.asarray(residuals, dtype=np.float64).reshape(-1, 2).T)
    ok = np.isfinite(lengths) & np.asarray(used, dtype=bool)
    longest = float(lengths[ok].max()) if ok.any() else 0.0
    if longest <= 0:
        return 1.0
    scale = ARROW_SHARE * max(size) / longest
    if scale <= 1:
        return 1.0
    power = 10.0 ** math.floor(math.log10(scale))
    return max(step * power for step in (1, 2, 5) if step * power <= scale)


class ReviewLayers:
    """The sheet and the review's layers (not in the project: the panel's canvas only),
    owned by ``store`` (a QgsMapLayerStore, which deletes them with itself or on
    :meth:`release`: QGIS layers must not outlive QGIS).

    ``points`` has one feature per point with ``k`` (0-based row), ``id``, ``used``,
    ``known`` and its residual label; :meth:`feature_row` and :meth:`row_feature` map
    feature ids to rows.
    """

    def __init__(self, sheet_path, store) -> None:
        from ...core.blocks.georeference import raster_georeference

        self.sheet = QgsRasterLayer(str(sheet_path), sheet_path.stem)
        if not self.sheet.isValid():
            raise SheetError(tr("QGIS cannot open {0}.").format(sheet_path))
        # pixels of an unreferenced sheet are in no CRS: the canvas draws them as they are
        # (an engineering CRS makes QGIS 3.22's canvas look for an ellipsoid)
        crs = (self.sheet.crs() if raster_georeference(sheet_path) is not None
               else QgsCoordinateReferenceSystem())
        self.sheet.setCrs(crs)
        self.crs = crs
        self.points = memory_layer(
            "Point?field=k:integer&field=id:integer&field=used:boolean&field=known:boolean"
            "&field=residual:double", tr("GCPs"), crs, [])
        self.arrows = memory_layer("LineString?field=k:integer&field=used:boolean",
                                   tr("Residuals"), crs, [])
        self.crossings = memory_layer("Point", tr("Detected crossings"), crs, [])
        self.labels = memory_layer("Polygon?field=text:string&field=used:boolean",
                                   tr("Grid labels read"), crs, [])
        self._style()
        self._fids: list[int] = []
        self.scale = 1.0
        self.store = store
        store.addMapLayers(self.layers())

    def release(self) -> None:
        """Delete the layers (the canvas must not show them any more)."""
        self.store.removeMapLayers(self.layers())

    def _style(self) -> None:
        self.points.setRenderer(rule_renderer([
            (marker("circle", "#2e9e44", 3.2), '"used"', tr("Used in the fit")),
            (marker("cross2", "#d7301f", 4.2, "#d7301f", 0.5), 'NOT "used" AND "known"',
             tr("Left out")),
            (marker("circle", "0,0,0,0", 4.0, "#1f4e8c", 0.6), 'NOT "known"',
             tr("No grid values yet"))]))
        label_layer(self.points, "\"id\" || CASE WHEN \"residual\" IS NOT NULL THEN ': ' || "
                            "format_number(\"residual\", 1) || ' px' ELSE '' END")
        arrow = QgsArrowSymbolLayer.create({"arrow_width": "0.35", "arrow_start_width": "0.35",
                                            "head_length": "1.8", "head_thickness": "1.2",
                                            "is_curved": "0", "arrow_type": "0",
                                            "head_type": "0"})
        arrow.setColor(QColor("#e08214"))
        symbol = QgsLineSymbol.createSimple({"color": "#e08214"})
        symbol.changeSymbolLayer(0, arrow)      # the symbol owns the arrow from here
        faded = symbol.clone()
        faded.setColor(QColor(224, 130, 20, 110))
        self.arrows.setRenderer(used_renderer(symbol, faded, tr("Residual (exaggerated)"),
                                              tr("Residual of a point left out")))
        self.crossings.renderer().setSymbol(marker("cross", "#6a6a6a", 3.0, "#6a6a6a", 0.3))
        def box(colour: str) -> QgsFillSymbol:
            return QgsFillSymbol.createSimple({"color": "0,0,0,0", "outline_color": colour,
                                               "outline_width": "0.5"})

        self.labels.setRenderer(used_renderer(box("#2e9e44"), box("#d7301f"), tr("Label used"),
                                              tr("Label left out")))
        label_layer(self.labels, '"text"', "#5a1a7a")

    def layers(self) -> list:
        """Canvas layers, top first."""
        return [self.points, self.arrows, self.labels, self.crossings, self.sheet]

    def to_layer(self, x: float, y: float) -> QgsPointXY:
        return gcp_to_layer(self.sheet, x, y)

    def to_gcp(self, point: QgsPointXY) -> tuple[float, float]:
        return layer_to_gcp(self.sheet, point)

    def show_review(self, review) -> None:
        """The detected crossings and the labels read (they do not change while editing)."""
        replace_features(self.crossings, ((QgsGeometry.fromPointXY(self.to_layer(x, y)), [])
                                       for x, y in review.crossings))

        def box(label) -> QgsGeometry:
            x0, y0, x1, y1 = label["box"]
            return QgsGeometry.fromPolygonXY([[self.to_layer(x, y) for x, y in
                                               ((x0, y0), (x1, y0), (x1, y1), (x0, y1))]])

        replace_features(self.labels, ((box(label), [str(label.get("text", "")),
                                                  bool(label.get("used"))])
                                    for label in review.labels if label.get("box")))

    def show_points(self, points, fit) -> None:
        """Redraw the points and residual arrows of a snapshot and its fit."""
        size = (self.sheet.width(), self.sheet.height())
        self.scale = arrow_scale(fit.residual_px, fit.used, size)
        rows, arrows = [], []
        for k, ((x, y), used, known, res) in enumerate(zip(
                points.pixel_xy, points.used, points.known, fit.residual_px, strict=True)):
            length = float(np.hypot(*res))
            at = self.to_layer(x, y)
            rows.append((QgsGeometry.fromPointXY(at),
                         [k, k + 1, bool(used), bool(known),
                          length if math.isfinite(length) else None]))
            if math.isfinite(length) and length > 0:
                tip = self.to_layer(x + res[0] * self.scale, y + res[1] * self.scale)
                arrows.append((QgsGeometry.fromPolylineXY([at, tip]), [k, bool(used)]))
        self._fids = replace_features(self.points, rows)
        replace_features(self.arrows, arrows)

    def feature_row(self, fid: int) -> int | None:
        """The point row of a feature id of ``points``."""
        return self._fids.index(fid) if fid in self._fids else None

    def row_feature(self, k: int) -> int | None:
        return self._fids[k] if 0 <= k < len(self._fids) else None

    def scale_text(self) -> str:
        """What the arrows' lengthening is, for the legend line."""
        return tr("arrows × {0}").format(number(self.scale, 0))


class GcpTool(QgsMapTool):
    """Press on a point to select it; drag it to move it; in adding mode, a click adds a
    point. Signals give GCP pixel positions (corner convention)."""

    picked = pyqtSignal(int)
    moved = pyqtSignal(int, float, float)
    added = pyqtSignal(float, float)

    def __init__(self, canvas, layers: ReviewLayers, positions) -> None:
        super().__init__(canvas)
        self.layers = layers
        self.positions = positions          # () -> (N, 2) GCP pixel positions
        self.adding = False
        self.dragging: int | None = None
        self.start = None
        self.band = QgsRubberBand(canvas, QgsWkbTypes.GeometryType.PointGeometry)
        self.band.setColor(QColor("#1f4e8c"))
        self.band.setIconSize(14)
        self.band.setIcon(QgsRubberBand.IconType.ICON_CIRCLE)
        self.setCursor(Qt.CursorShape.CrossCursor)

    def nearest(self, point: QgsPointXY) -> int | None:
        """The point under ``point`` (within :data:`PICK_PX` screen pixels), or None."""
        positions = self.positions()
        if not len(positions):
            return None
        layer_xy = np.array([[p.x(), p.y()] for p in
                             (self.layers.to_layer(x, y) for x, y in positions)])
        d = np.hypot(*(layer_xy - [point.x(), point.y()]).T)
        k = int(np.argmin(d))
        tolerance = PICK_PX * self.canvas().mapUnitsPerPixel()
        return k if d[k] <= tolerance else None

    def canvasPressEvent(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        point = self.toMapCoordinates(event.pos())
        if self.adding:
            self.adding = False
            self.added.emit(*self.layers.to_gcp(point))
            return
        k = self.nearest(point)
        if k is not None:
            self.picked.emit(k)
            self.dragging, self.start = k, event.pos()

    def canvasMoveEvent(self, event) -> None:
        if self.dragging is None:
            return
        self.band.reset(QgsWkbTypes.GeometryType.PointGeometry)
        self.band.addPoint(self.toMapCoordinates(event.pos()))

    def canvasReleaseEvent(self, event) -> None:
        k, start = self.dragging, self.start
        self.dragging = self.start = None
        self.band.reset(QgsWkbTypes.GeometryType.PointGeometry)
        if k is None or (event.pos() - start).manhattanLength() < 3:
            return
        self.moved.emit(k, *self.layers.to_gcp(self.toMapCoordinates(event.pos())))

    def deactivate(self) -> None:
        self.band.reset(QgsWkbTypes.GeometryType.PointGeometry)
        super().deactivate()
