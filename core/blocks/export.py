"""Writing a segmentation: the 0/255 PNG of one level and the GeoPackage of polygons."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import cv2
import numpy as np

from ..atomic import atomic_outputs
from ..errors import InputError
from ..outputs import cannot_write, write_errors
from ..progress import ProgressCallback, report
from .georeference import Georeference
from .gpkg import LayerData, write_gpkg
from .pipeline import Segmentation, check_level
from .rings import transform_geoms
from .vectorize import vectorize


def level_png(seg: Segmentation, level: str) -> np.ndarray:
    """``(H, W) uint8``: 255 on the blocks (or shapes), 0 elsewhere; one 4-connected
    component per block or shape."""
    labels, _ = seg.labels(level)
    return (labels > 0).astype(np.uint8) * np.uint8(255)


def _pixel_to_qgis(xy: np.ndarray) -> np.ndarray:
    """Pixel (x right, y down) -> QGIS's plane for an unreferenced raster (x, -y)."""
    return xy * np.array([1.0, -1.0])


def layers_for(seg: Segmentation, level: str, georef: Georeference | None = None,
               tolerance: float = 1.5) -> list[LayerData]:
    """Polygon layers of a segmentation: blocks, plus shapes at the shapes level.

    Polygons are simplified in pixel units (``tolerance``), then moved to the map CRS with
    ``georef`` or to QGIS's unreferenced-raster plane (x, -y) without it.
    """
    check_level(level)
    move = georef.forward if georef is not None else _pixel_to_qgis
    names = ["blocks"] if level == "blocks" else ["blocks", "shapes"]

    def layer(name: str) -> LayerData:
        labels, n = seg.labels(name)
        geoms = transform_geoms(vectorize(labels, n, seg.lines, tolerance), move)
        return LayerData(name, geoms, seg.parents if name == "shapes" else None)

    if len(names) == 1:
        return [layer(names[0])]
    # GDAL's polygonize, OpenCV and GEOS's checks release the GIL: one thread per layer
    with ThreadPoolExecutor(max_workers=len(names)) as pool:
        return list(pool.map(layer, names))


def write_outputs(seg: Segmentation, level: str, png: str | os.PathLike | None,
                  gpkg: str | os.PathLike | None = None, *, source: str = "",
                  georef: Georeference | None = None, tolerance: float = 1.5,
                  progress: ProgressCallback | None = None,
                  source_mtime: float | None = None) -> dict[str, int]:
    """Write the PNG of ``level`` and/or the GeoPackage; all files appear or none.

    ``source_mtime``: the sheet's modification time (seconds since 1970), the date the
    GeoPackage records (:func:`.gpkg.gpkg_timestamp`). A write that fails (a full disk) is
    an InputError naming the file.

    Returns
    -------
    dict
        The number of polygons written to each layer of the GeoPackage (``{"blocks": n}``,
        and ``"shapes"`` at the shapes level); empty without a GeoPackage.
    """
    targets = [Path(t) for t in (png, gpkg) if t is not None]
    if not targets:
        raise InputError("nothing to write; give an output PNG or GeoPackage")
    written: dict[str, int] = {}
    with atomic_outputs(targets) as temps:
        tmp = dict(zip([str(t) for t in targets], temps, strict=True))
        if png is not None:
            report(progress, 0.0, "PNG")
            if not cv2.imwrite(str(tmp[str(Path(png))]), level_png(seg, level)):
                raise cannot_write(png)
        if gpkg is not None:
            report(progress, 0.2, "polygons")
            layers = layers_for(seg, level, georef, tolerance)
            written = {layer.name: sum(g is not None for g in layer.geoms) for layer in layers}
            report(progress, 0.8, "GeoPackage")
            with write_errors(gpkg):
                write_gpkg(tmp[str(Path(gpkg))], layers, source,
                           crs_wkt=georef.crs_wkt if georef else None,
                           geographic=bool(georef and georef.geographic),
                           unit=georef.unit if georef else "px", source_mtime=source_mtime)
    report(progress, 1.0, "written")
    return written
