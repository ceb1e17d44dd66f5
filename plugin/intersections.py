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

import numpy as np
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


def intersection_features(result) -> list[QgsFeature]:
    """Point features (output CRS) of a ``core.georef.GeorefResult``'s GCPs, from its
    arrays; column, row, easting and northing are NULL where core has none (GCPs fitted
    from a file as they are)."""
    fields = intersection_fields()
    n = len(result.pixel_xy)
    index = result.grid_index if result.grid_index is not None else [(None, None)] * n
    grid = result.grid_xy if result.grid_xy is not None else [(None, None)] * n
    res_px = np.hypot(*np.asarray(result.residual_px, dtype=np.float64).T)
    res_map = np.hypot(*np.asarray(result.residual_map, dtype=np.float64).T)
    features = []
    for k in range(n):
        feat = QgsFeature(fields)
        mx, my = (float(v) for v in result.map_xy[k])
        feat.setGeometry(QgsGeometry.fromPointXY(QgsPointXY(mx, my)))
        column, row = index[k]
        easting, northing = grid[k]
        feat.setAttributes([
            k + 1, _int_or_none(column), _int_or_none(row), _float_or_none(easting),
            _float_or_none(northing), float(result.pixel_xy[k, 0]),
            float(result.pixel_xy[k, 1]), float(res_px[k]), float(res_map[k]),
            bool(result.inliers[k]),
        ])
        features.append(feat)
    return features


def _int_or_none(value) -> int | None:
    return None if value is None else int(value)


def _float_or_none(value) -> float | None:
    return None if value is None else float(value)


def write_intersections_gpkg(path: str | os.PathLike, result,
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
        ok = writer.addFeatures(intersection_features(result))
        error = writer.errorMessage()
        del writer  # closes the file
        if not ok:
            raise OSError(tr("cannot write {0}: {1}").format(target, error))
    return target
