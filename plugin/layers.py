"""Layers of the results: memory layers built from core's arrays, the intersections
GeoPackage, and loading results into the project with a sensible look (main thread)."""

from __future__ import annotations

import os
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
    QgsSymbol,
    QgsTextFormat,
    QgsVectorLayer,
    QgsVectorLayerSimpleLabeling,
)
from qgis.PyQt.QtGui import QColor

from .i18n import tr
from .sheets import pixel_to_layer


def marker(shape: str, colour: str, size: float, outline: str = "#1b1b1b",
            width: float = 0.3) -> QgsMarkerSymbol:
    return QgsMarkerSymbol.createSimple({"name": shape, "color": colour, "size": str(size),
                                         "outline_color": outline, "outline_width": str(width)})


def rule_renderer(rules) -> QgsRuleBasedRenderer:
    """A renderer drawing each feature with the first of ``rules`` — (symbol, expression,
    legend title) — whose expression holds."""
    root = QgsRuleBasedRenderer.Rule(None)
    for symbol, expression, title in rules:
        root.appendChild(QgsRuleBasedRenderer.Rule(symbol, 0, 0, expression, title))
    return QgsRuleBasedRenderer(root)


def used_renderer(used: QgsSymbol, left: QgsSymbol, used_title: str,
                  left_title: str) -> QgsRuleBasedRenderer:
    """Features drawn by their ``used`` field: symbol ``used`` when true, ``left`` else."""
    return rule_renderer([(used, '"used"', used_title), (left, 'NOT "used"', left_title)])


def label_layer(layer: QgsVectorLayer, expression: str, colour: str = "#1b1b1b") -> None:
    """Label ``layer``'s features with ``expression`` (8 pt, haloed, beside the symbol)."""
    settings = QgsPalLayerSettings()
    settings.fieldName = expression
    settings.isExpression = True
    text = QgsTextFormat()
    text.setSize(8)
    text.setColor(QColor(colour))
    buffer = text.buffer()
    buffer.setEnabled(True)
    buffer.setSize(0.8)
    text.setBuffer(buffer)
    settings.setFormat(text)
    settings.dist = 1.5
    layer.setLabeling(QgsVectorLayerSimpleLabeling(settings))
    layer.setLabelsEnabled(True)


def style_intersections(layer: QgsVectorLayer) -> None:
    """Used intersections as green dots, outliers as red crosses; residuals as labels."""
    layer.setRenderer(used_renderer(marker("circle", "#2e9e44", 3.0),
                                    marker("cross2", "#d7301f", 4.0), tr("Used in the fit"),
                                    tr("Left out (outlier)")))
    label_layer(layer, "format_number(\"residual_px\", 1) || ' px'")


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
    replace_features(layer, rows)
    return layer


def replace_features(layer: QgsVectorLayer, rows) -> list[int]:
    """Put ``rows`` ((QgsGeometry, attribute list) pairs) in place of ``layer``'s features;
    returns the new feature ids, in the order of ``rows``."""
    provider = layer.dataProvider()
    provider.truncate()
    features = []
    for geometry, attributes in rows:
        feat = QgsFeature(layer.fields())
        feat.setGeometry(geometry)
        feat.setAttributes(attributes)
        features.append(feat)
    ok, added = provider.addFeatures(features)
    layer.updateExtents()
    layer.triggerRepaint()
    return [f.id() for f in added] if ok else []


def labels_layer(result, stem: str) -> QgsVectorLayer:
    """The grid labels core read on the sheet (``result.labels``), as boxes in the output
    CRS: green when used to name the grid, red when left out; value and reason as fields."""
    import numpy as np

    from .crs import result_crs

    def box(label) -> QgsGeometry:
        x0, y0, x1, y1 = label["box"]
        corners = result.transform.forward(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]],
                                                    dtype=np.float64))
        return QgsGeometry.fromPolygonXY([[QgsPointXY(float(x), float(y)) for x, y in corners]])

    layer = memory_layer(
        "Polygon?field=text:string&field=value:double&field=family:string&field=used:boolean"
        "&field=why:string", tr("{0} grid labels read").format(stem),
        result_crs(result),
        ((box(label), [label["text"], label["value"], label["family"], bool(label["used"]),
                       label["why"] or ""]) for label in result.labels))
    def outline(colour: str) -> QgsFillSymbol:
        return QgsFillSymbol.createSimple({"color": "0,0,0,0", "outline_color": colour,
                                           "outline_width": "0.6"})

    layer.setRenderer(used_renderer(outline("#2e9e44"), outline("#d7301f"), tr("Label used"),
                                    tr("Label left out")))
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
    layer.renderer().setSymbol(marker("cross", "#d7301f", 6.0, "#d7301f", 0.6))
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


#: the intersections' fields (name, memory-provider type), in the order of their values
INTERSECTION_FIELDS = (("id", "integer"), ("column", "integer"), ("row", "integer"),
                       ("easting", "double"), ("northing", "double"), ("pixel_x", "double"),
                       ("pixel_y", "double"), ("residual_px", "double"),
                       ("residual_map", "double"), ("used", "boolean"))
INTERSECTIONS = "Point?" + "&".join(f"field={name}:{kind}" for name, kind in INTERSECTION_FIELDS)


def _intersection_rows(result):
    """For every GCP of a ``core.georef.GeorefResult``: its map position ``(x, y)`` in the
    output CRS and its values in the order of :data:`INTERSECTION_FIELDS` (None: NULL)."""
    import numpy as np

    nulls = [(None, None)] * len(result.pixel_xy)
    index = nulls if result.grid_index is None else result.grid_index.tolist()
    grid = nulls if result.grid_xy is None else result.grid_xy.tolist()
    res_px = np.hypot(*np.asarray(result.residual_px, dtype=np.float64).T)
    res_map = np.hypot(*np.asarray(result.residual_map, dtype=np.float64).T)
    for k in range(len(nulls)):
        yield (tuple(map(float, result.map_xy[k])),
               [k + 1, *index[k], *grid[k], *map(float, result.pixel_xy[k]), float(res_px[k]),
                float(res_map[k]), bool(result.inliers[k])])


def intersections_layer(result) -> QgsVectorLayer:
    """The GCPs of a ``core.georef.GeorefResult`` (from its arrays) as a memory layer.

    One feature per GCP, at its map position in the output CRS, with fields: ``id`` (1-based,
    as in the report and the .points file), ``column`` and ``row`` (grid index from detection:
    column grows to the right, row downwards on the sheet), ``easting`` and ``northing`` (the
    intersection's coordinates in the grid CRS, as printed on the sheet), ``pixel_x`` and
    ``pixel_y`` (position on the scan, pixels, x right, y down), ``residual_px`` and
    ``residual_map`` (length of the residual in pixels and in map units) and ``used`` (false for
    the outliers left out of the fit). Column, row, easting and northing are NULL where core has
    none (GCPs fitted from a file as they are).
    """
    from .crs import result_crs

    return memory_layer(INTERSECTIONS, "intersections", result_crs(result), (
        (QgsGeometry.fromPointXY(QgsPointXY(*xy)), values)
        for xy, values in _intersection_rows(result)))


def write_intersections_gpkg(path: str | os.PathLike, result) -> Path:
    """Write the intersections (the fields of :func:`intersections_layer`) as a GeoPackage
    layer ``intersections`` in the output CRS, atomically.

    Written with GDAL's own OGR rather than QGIS's vector writer: this runs in a task's
    thread, where QGIS 3.22's writer now and then wrote the layer without its CRS (seen in
    the plugin tests on two workers once detection got faster; the same layer's CRS was
    valid EPSG:2154 just before the writer ran).
    """
    from osgeo import ogr

    from ..core.atomic import atomic_output
    from ..core.georef.crs import gdal_srs, parse_crs

    ogr.UseExceptions()
    types = {"integer": ogr.OFTInteger, "double": ogr.OFTReal, "boolean": ogr.OFTInteger}
    target = Path(path)
    with atomic_output(target) as tmp:
        source = ogr.GetDriverByName("GPKG").CreateDataSource(str(tmp))
        layer = source.CreateLayer("intersections",
                                   gdal_srs(parse_crs(result.report["crs"]["output_wkt"])),
                                   ogr.wkbPoint)
        for name, kind in INTERSECTION_FIELDS:
            field = ogr.FieldDefn(name, types[kind])
            if kind == "boolean":
                field.SetSubType(ogr.OFSTBoolean)
            layer.CreateField(field)
        layer.StartTransaction()
        for xy, values in _intersection_rows(result):
            feature = ogr.Feature(layer.GetLayerDefn())
            point = ogr.Geometry(ogr.wkbPoint)
            point.AddPoint_2D(*xy)
            feature.SetGeometry(point)
            for i, value in enumerate(values):
                if value is None:
                    feature.SetFieldNull(i)
                else:
                    feature.SetField(i, int(value) if isinstance(value, bool) else value)
            layer.CreateFeature(feature)
        layer.CommitTransaction()
        source = None   # closed (written) before the rename
    return target
