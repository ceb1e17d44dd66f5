"""The intersections of a georeferenced sheet as point features with their residuals.

One feature per detected intersection, at its map position in the output CRS, with fields:
``id`` (1-based, as in the report and the .points file), ``column`` and ``row`` (grid index
from detection: column grows to the right, row downwards on the sheet), ``easting`` and
``northing`` (the intersection's coordinates in the grid CRS, as printed on the sheet),
``pixel_x`` and ``pixel_y`` (position on the scan, pixels, x right, y down), ``residual_px``
and ``residual_map`` (length of the residual in pixels and in map units) and ``used``
(false for the outliers left out of the fit).
"""

from __future__ import annotations

import os
from pathlib import Path

from qgis.core import (
    QgsCoordinateReferenceSystem,
    QgsCoordinateTransformContext,
    QgsFeature,
    QgsFields,
    QgsGeometry,
    QgsPointXY,
    QgsVectorFileWriter,
    QgsWkbTypes,
)

from .fields import make_fields
from .i18n import tr

FIELDS = (("id", "int"), ("column", "int"), ("row", "int"), ("easting", "double"),
          ("northing", "double"), ("pixel_x", "double"), ("pixel_y", "double"),
          ("residual_px", "double"), ("residual_map", "double"), ("used", "bool"))


def intersection_fields() -> QgsFields:
    """The attribute table of the intersections layer."""
    return make_fields(FIELDS)


def intersection_features(result, graticule=None) -> list[QgsFeature]:
    """Point features (output CRS) of a ``core.georef.GeorefResult``'s GCPs.

    ``graticule``: the detection the GCPs came from (gives column and row); without it,
    or when the GCPs came from a file as they are, column and row are NULL.
    """
    fields = intersection_fields()
    rows = result.report.get("gcps", [])
    index = None
    if graticule is not None and len(graticule) == len(rows):
        index = graticule.index
    features = []
    for k, gcp in enumerate(rows):
        feat = QgsFeature(fields)
        mx, my = gcp["map"]
        feat.setGeometry(QgsGeometry.fromPointXY(QgsPointXY(mx, my)))
        grid = gcp.get("grid") or [None, None]
        feat.setAttributes([
            int(gcp["id"]),
            None if index is None else int(index[k, 0]),
            None if index is None else int(index[k, 1]),
            grid[0], grid[1], gcp["pixel"][0], gcp["pixel"][1],
            gcp["residual_px"]["length"], gcp["residual_map"]["length"], bool(gcp["used"]),
        ])
        features.append(feat)
    return features


def write_intersections_gpkg(path: str | os.PathLike, result, graticule,
                             crs: QgsCoordinateReferenceSystem) -> Path:
    """Write the intersections as a GeoPackage layer ``intersections``, atomically."""
    from ..core.atomic import atomic_output

    target = Path(path)
    options = QgsVectorFileWriter.SaveVectorOptions()
    options.driverName = "GPKG"
    options.layerName = "intersections"
    options.fileEncoding = "UTF-8"
    with atomic_output(target) as tmp:
        writer = QgsVectorFileWriter.create(str(tmp), intersection_fields(), QgsWkbTypes.Type.Point,
                                            crs, QgsCoordinateTransformContext(), options)
        if writer.hasError() != QgsVectorFileWriter.WriterError.NoError:
            raise OSError(tr("cannot write {0}: {1}").format(target, writer.errorMessage()))
        ok = writer.addFeatures(intersection_features(result, graticule))
        error = writer.errorMessage()
        del writer  # closes the file
        if not ok:
            raise OSError(tr("cannot write {0}: {1}").format(target, error))
    return target
