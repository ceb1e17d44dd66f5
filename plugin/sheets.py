"""Scanned sheets in QGIS: the file behind a raster layer, and pixel <-> layer coordinates.

Pixel convention of core: x right, y down, integer values at pixel CENTRES (MapSeg). QGIS
places the top-left CORNER of a raster at its extent's (xMinimum, yMaximum); a raster
without georeferencing gets the extent (0, -height) - (width, 0), so pixel (i, j) of core
is drawn at (i + 0.5, -(j + 0.5)).
"""

from __future__ import annotations

from pathlib import Path

from qgis.core import (
    QgsCoordinateReferenceSystem,
    QgsPointXY,
    QgsProviderRegistry,
    QgsRasterLayer,
)

from .i18n import tr


class SheetError(ValueError):
    """A layer or path that cannot be used as a sheet; the message is for the user."""


def layer_file(layer: QgsRasterLayer) -> Path:
    """The image file a raster layer reads (GDAL layers only)."""
    if layer is None or not layer.isValid():
        raise SheetError(tr("The selected raster layer is not valid; choose another sheet."))
    if layer.providerType() != "gdal":
        raise SheetError(tr("Layer “{0}” is not an image file (it comes from a {1} source); "
                            "save it as a GeoTIFF first.").format(layer.name(),
                                                                  layer.providerType()))
    parts = QgsProviderRegistry.instance().decodeUri("gdal", layer.source())
    path = Path(parts.get("path") or layer.source())
    if not path.is_file():
        raise SheetError(tr("Layer “{0}” does not read a file on disk; save it as a GeoTIFF "
                            "first.").format(layer.name()))
    return path


def pixel_to_layer(layer: QgsRasterLayer, x: float, y: float) -> QgsPointXY:
    """Layer coordinates of core pixel (x, y) on a north-up raster layer."""
    ext = layer.extent()
    sx = ext.width() / layer.width()
    sy = ext.height() / layer.height()
    return QgsPointXY(ext.xMinimum() + (x + 0.5) * sx, ext.yMaximum() - (y + 0.5) * sy)


def layer_to_pixel(layer: QgsRasterLayer, point: QgsPointXY) -> tuple[float, float]:
    """Core pixel (x, y) of a point in layer coordinates on a north-up raster layer."""
    ext = layer.extent()
    sx = ext.width() / layer.width()
    sy = ext.height() / layer.height()
    return ((point.x() - ext.xMinimum()) / sx - 0.5, (ext.yMaximum() - point.y()) / sy - 0.5)


def output_crs(layer: QgsRasterLayer, path: Path) -> QgsCoordinateReferenceSystem:
    """The CRS for features placed on ``layer`` with :func:`pixel_to_layer`: the layer's
    when its file is georeferenced, else the "undefined Cartesian" engineering CRS that core
    gives pixel outputs (QGIS gives an unreferenced image a CRS of its own choosing, often
    EPSG:4326, but these coordinates are pixels, not degrees)."""
    from ..core.blocks.georeference import raster_georeference
    from ..core.blocks.gpkg import UNDEFINED_CARTESIAN

    if raster_georeference(path) is None:
        return QgsCoordinateReferenceSystem.fromWkt(UNDEFINED_CARTESIAN)
    return layer.crs()
