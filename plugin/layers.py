"""Loading results into the QGIS project with a sensible look (main thread only)."""

from __future__ import annotations

from pathlib import Path

from qgis.core import (
    QgsCoordinateReferenceSystem,
    QgsFeature,
    QgsFillSymbol,
    QgsGeometry,
    QgsMarkerSymbol,
    QgsPalLayerSettings,
    QgsPointXY,
    QgsProject,
    QgsRasterLayer,
    QgsRuleBasedRenderer,
    QgsTextFormat,
    QgsVectorLayer,
    QgsVectorLayerSimpleLabeling,
)
from qgis.PyQt.QtGui import QColor

from .i18n import tr
from .sheets import pixel_to_layer


def _marker(shape: str, colour: str, size: float) -> QgsMarkerSymbol:
    return QgsMarkerSymbol.createSimple({"name": shape, "color": colour, "size": str(size),
                                         "outline_color": "#1b1b1b", "outline_width": "0.3"})


def style_intersections(layer: QgsVectorLayer) -> None:
    """Used intersections as green dots, outliers as red crosses; residuals as labels."""
    root = QgsRuleBasedRenderer.Rule(None)
    used = QgsRuleBasedRenderer.Rule(_marker("circle", "#2e9e44", 3.0), 0, 0, '"used"',
                                     tr("Used in the fit"))
    left = QgsRuleBasedRenderer.Rule(_marker("cross2", "#d7301f", 4.0), 0, 0, 'NOT "used"',
                                     tr("Left out (outlier)"))
    root.appendChild(used)
    root.appendChild(left)
    layer.setRenderer(QgsRuleBasedRenderer(root))
    settings = QgsPalLayerSettings()
    settings.fieldName = "format_number(\"residual_px\", 1) || ' px'"
    settings.isExpression = True
    text = QgsTextFormat()
    text.setSize(8)
    text.setColor(QColor("#1b1b1b"))
    buffer = text.buffer()
    buffer.setEnabled(True)
    buffer.setSize(0.8)
    text.setBuffer(buffer)
    settings.setFormat(text)
    settings.dist = 1.5
    layer.setLabeling(QgsVectorLayerSimpleLabeling(settings))
    layer.setLabelsEnabled(True)


def add_layers_in_group(project: QgsProject, name: str, layers: list) -> None:
    """Add ``layers`` (top first) in a new group at the top of the layer tree."""
    group = project.layerTreeRoot().insertGroup(0, name)
    for layer in layers:
        project.addMapLayer(layer, False)
        group.addLayer(layer)


def load_georef_outcome(project: QgsProject, outcome) -> tuple[QgsRasterLayer, QgsVectorLayer]:
    """Add the georeferenced raster and, above it, the intersections with residuals."""
    stem = Path(outcome.sheet).stem
    raster = QgsRasterLayer(str(outcome.raster), tr("{0} (georeferenced)").format(stem))
    points = QgsVectorLayer(f"{outcome.intersections}|layername=intersections",
                            tr("{0} intersections").format(stem), "ogr")
    if not raster.isValid() or not points.isValid():
        raise OSError(tr("QGIS cannot open the results in {0}").format(outcome.raster.parent))
    style_intersections(points)
    layers = [points, raster]
    if outcome.result.labels:
        layers.insert(0, labels_layer(outcome.result, stem))
    add_layers_in_group(project, stem, layers)
    return raster, points


def memory_layer(uri: str, name: str, crs: QgsCoordinateReferenceSystem,
                 rows) -> QgsVectorLayer:
    """A memory layer (``uri``: geometry type and fields in the memory provider's syntax)
    in ``crs`` holding ``rows``, each a (QgsGeometry, attribute list) pair."""
    layer = QgsVectorLayer(uri, name, "memory")
    layer.setCrs(crs)
    features = []
    for geometry, attributes in rows:
        feat = QgsFeature(layer.fields())
        feat.setGeometry(geometry)
        feat.setAttributes(attributes)
        features.append(feat)
    layer.dataProvider().addFeatures(features)
    layer.updateExtents()
    return layer


def labels_layer(result, stem: str) -> QgsVectorLayer:
    """The grid labels core read on the sheet (``result.labels``), as boxes in the output
    CRS: green when used to name the grid, red when left out; value and reason as fields."""
    import numpy as np

    from .crs import crs_from_wkt

    def box(label) -> QgsGeometry:
        x0, y0, x1, y1 = label["box"]
        corners = result.transform.forward(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]],
                                                    dtype=np.float64))
        return QgsGeometry.fromPolygonXY([[QgsPointXY(float(x), float(y)) for x, y in corners]])

    layer = memory_layer(
        "Polygon?field=text:string&field=value:double&field=family:string&field=used:boolean"
        "&field=why:string", tr("{0} grid labels read").format(stem),
        crs_from_wkt(result.report["crs"]["output_wkt"]),
        ((box(label), [label["text"], label["value"], label["family"], bool(label["used"]),
                       label["why"] or ""]) for label in result.labels))
    root = QgsRuleBasedRenderer.Rule(None)
    for expression, colour, title in (('"used"', "#2e9e44", tr("Label used")),
                                      ('NOT "used"', "#d7301f", tr("Label left out"))):
        symbol = QgsFillSymbol.createSimple({"color": "0,0,0,0", "outline_color": colour,
                                             "outline_width": "0.6"})
        root.appendChild(QgsRuleBasedRenderer.Rule(symbol, 0, 0, expression, title))
    layer.setRenderer(QgsRuleBasedRenderer(root))
    return layer


def detection_layer(graticule, sheet_layer: QgsRasterLayer,
                    crs: QgsCoordinateReferenceSystem) -> QgsVectorLayer:
    """The detected intersections placed on ``sheet_layer`` (see
    :func:`plugin.sheets.pixel_to_layer`), with their grid ``column`` and ``row``, a
    ``confidence`` in [0, 1], ``visible`` (both lines drawn through the crossing) and
    ``pixel_x``, ``pixel_y`` (x right, y down)."""
    return memory_layer(
        "Point?field=column:integer&field=row:integer&field=confidence:double"
        "&field=visible:boolean&field=pixel_x:double&field=pixel_y:double",
        tr("Detected intersections"), crs,
        ((QgsGeometry.fromPointXY(pixel_to_layer(sheet_layer, x, y)),
          [int(c), int(r), float(conf), bool(seen), float(x), float(y)])
         for (x, y), (c, r), conf, seen in zip(graticule.points, graticule.index,
                                               graticule.confidence, graticule.visible,
                                               strict=True)))


def detected_points_layer(graticule, sheet_layer: QgsRasterLayer) -> QgsVectorLayer:
    """A temporary layer of detected intersections drawn as red crosses over the
    (unreferenced) sheet."""
    layer = detection_layer(graticule, sheet_layer, sheet_layer.crs())
    symbol = _marker("cross", "#d7301f", 6.0)
    symbol.symbolLayer(0).setStrokeWidth(0.6)
    symbol.symbolLayer(0).setStrokeColor(QColor("#d7301f"))
    layer.renderer().setSymbol(symbol)
    return layer


def style_polygons(layer: QgsVectorLayer, level: str) -> None:
    """Blocks as a light brick fill with a dark outline; shapes as thin outlines only."""
    if level == "blocks":
        props = {"color": "232,160,122,110", "outline_color": "#7a2e12", "outline_width": "0.3"}
    else:
        props = {"color": "0,0,0,0", "outline_color": "#1f4e8c", "outline_width": "0.2"}
    layer.renderer().setSymbol(QgsFillSymbol.createSimple(props))


def load_blocks_outcome(project: QgsProject, outcome) -> dict[str, QgsVectorLayer]:
    """Add the GeoPackage layers of a vectorization (shapes above blocks) in one group;
    returns them by level."""
    stem = Path(outcome.sheet).stem
    names = {"blocks": tr("{0} blocks").format(stem), "shapes": tr("{0} shapes").format(stem)}
    layers = {}
    for level in outcome.layers:
        layer = QgsVectorLayer(f"{outcome.gpkg}|layername={level}", names[level], "ogr")
        if not layer.isValid():
            raise OSError(tr("QGIS cannot open {0}").format(outcome.gpkg))
        style_polygons(layer, level)
        layers[level] = layer
    add_layers_in_group(project, names[outcome.layers[0]], list(reversed(layers.values())))
    return layers
