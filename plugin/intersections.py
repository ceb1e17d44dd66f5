"""The intersections of a georeferenced sheet as point features with their residuals.

One feature per GCP, at its map position in the output CRS, with fields: ``id`` (1-based,
as in the report and the .points file), ``column`` and ``row`` (grid index from detection:
column grows to the right, row downwards on the sheet), ``easting`` and ``northing`` (the
intersection's coordinates in the grid CRS, as printed on the sheet), ``pixel_x`` and
``pixel_y`` (position on the scan, pixels, x right, y down), ``residual_px`` and
``residual_map`` (length of the residual in pixels and in map units) and ``used`` (false for
the outliers left out of the fit). Column, row, easting and northing are NULL where core has
none (GCPs fitted from a file as they are).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from qgis.core import (
    QgsCoordinateReferenceSystem,
    QgsCoordinateTransformContext,
    QgsGeometry,
    QgsPointXY,
    QgsVectorFileWriter,
    QgsVectorLayer,
)

from .i18n import tr
from .layers import memory_layer

URI = ("Point?field=id:integer&field=column:integer&field=row:integer&field=easting:double"
       "&field=northing:double&field=pixel_x:double&field=pixel_y:double"
       "&field=residual_px:double&field=residual_map:double&field=used:boolean")


def intersections_layer(result, crs: QgsCoordinateReferenceSystem) -> QgsVectorLayer:
    """A memory layer of a ``core.georef.GeorefResult``'s GCPs, from its arrays."""
    nulls = [(None, None)] * len(result.pixel_xy)
    index = nulls if result.grid_index is None else result.grid_index.tolist()
    grid = nulls if result.grid_xy is None else result.grid_xy.tolist()
    res_px = np.hypot(*np.asarray(result.residual_px, dtype=np.float64).T)
    res_map = np.hypot(*np.asarray(result.residual_map, dtype=np.float64).T)
    return memory_layer(URI, "intersections", crs, (
        (QgsGeometry.fromPointXY(QgsPointXY(*map(float, result.map_xy[k]))),
         [k + 1, *index[k], *grid[k], *map(float, result.pixel_xy[k]), float(res_px[k]),
          float(res_map[k]), bool(result.inliers[k])])
        for k in range(len(nulls))))


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
        error, message, *_ = QgsVectorFileWriter.writeAsVectorFormatV3(
            intersections_layer(result, crs), str(tmp), QgsCoordinateTransformContext(),
            options)
        if error != QgsVectorFileWriter.WriterError.NoError:
            raise OSError(tr("cannot write {0}: {1}").format(target, message))
    return target
