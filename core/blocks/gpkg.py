"""GeoPackage output: one polygon layer per level, written with GDAL/OGR, atomically.

Attributes: ``id`` (the component's number, 1..N in raster order of its first pixel, as in
the PNG), ``area`` and ``perimeter`` (m2 and m when georeferenced in a metric CRS, geodesic
when the CRS is geographic, px2 and px otherwise), ``parent_id`` (shapes only: the block
that contains most of the shape, 0 when none) and ``source`` (the sheet's file name).
Without a georeference the layer has no CRS and its description says so: coordinates are
pixel x = column and y = -row, as QGIS places an unreferenced raster, so the polygons lie
on the sheet opened in QGIS.

Every OGR error raises (``ogr.UseExceptions``) and the file is read back once closed, so a
write that fails (a full disk) is one error, never a GeoPackage without its layer. Two runs
on the same sheet write the same bytes: the contents' date is the sheet's (or
``$SOURCE_DATE_EPOCH``), not the time of writing.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..gdal_config import gdal_config
from .rings import geodesic_area_perimeter, planar_area_perimeter, to_wkb

UNDEFINED_CARTESIAN = 'LOCAL_CS["Undefined Cartesian SRS"]'
PIXEL_DESCRIPTION = ("pixel coordinates of {source}: x = column, y = -row (origin at the "
                     "top-left corner of the sheet, as QGIS shows an unreferenced raster); "
                     "area in px2, perimeter in px; {what}")


@dataclass
class LayerData:
    """One level's polygons: ``geoms[i]`` is component i (index 0 unused), a list of
    polygons as NumPy rings (:mod:`.rings`) or None."""

    name: str
    geoms: list
    parents: np.ndarray | None = None


def measures(geoms: list, geographic_crs_wkt: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Areas and perimeters (index-aligned with ``geoms``; 0 for None).

    Planar in the geometries' units, or geodesic (m2, m) when ``geographic_crs_wkt`` is the
    WKT of a geographic CRS (coordinates lon/lat in degrees, traditional GIS order).
    """
    area = np.zeros(len(geoms))
    perimeter = np.zeros(len(geoms))
    geod = None
    if geographic_crs_wkt:
        import pyproj

        geod = pyproj.CRS.from_wkt(geographic_crs_wkt).get_geod()
    for i, g in enumerate(geoms):
        if g is not None:
            area[i], perimeter[i] = (planar_area_perimeter(g) if geod is None
                                     else geodesic_area_perimeter(g, geod))
    return area, perimeter


def gpkg_timestamp(source_mtime: float | None = None) -> str:
    """The time a GeoPackage records as its contents' last change (``gpkg_contents``):
    ``$SOURCE_DATE_EPOCH`` when set, else the source sheet's modification time, else
    1970-01-01; so that two runs on one sheet write the same bytes. ISO 8601, UTC, ms.

    >>> gpkg_timestamp(0.0)
    '1970-01-01T00:00:00.000Z'
    """
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    try:
        when = float(epoch) if epoch else (source_mtime or 0.0)
    except ValueError:
        when = source_mtime or 0.0
    stamp = datetime.datetime.fromtimestamp(when, datetime.UTC)
    return stamp.strftime("%Y-%m-%dT%H:%M:%S.") + f"{stamp.microsecond // 1000:03d}Z"


def write_gpkg(path: str | os.PathLike, layers: list[LayerData], source: str, *,
               crs_wkt: str | None = None, geographic: bool = False,
               unit: str = "px", source_mtime: float | None = None) -> None:
    """Write the layers to ``path`` (a new file; the caller renames it into place).

    The file is closed and read back before this returns: a failed write (a full disk, a
    file system refusing writes) raises RuntimeError (OGR's, or that of the check), never
    leaves a GeoPackage missing a layer or features. ``source_mtime`` (seconds since
    1970) dates its contents (:func:`gpkg_timestamp`).
    """
    from osgeo import gdal, ogr

    gdal.UseExceptions()
    ogr.UseExceptions()
    p = Path(path)
    if p.exists():
        p.unlink()
    with gdal_config(OGR_CURRENT_DATE=gpkg_timestamp(source_mtime)):
        _write_layers(p, layers, source, crs_wkt, geographic, unit)
    _check_written(p, layers)


def _description(layer_data: LayerData, source: str, crs_wkt: str | None, geographic: bool,
                 unit: str) -> str:
    what = ("building blocks" if layer_data.name == "blocks"
            else "closed shapes (parent_id: block id)")
    if not crs_wkt:
        return PIXEL_DESCRIPTION.format(source=source, what=what)
    short = "m" if unit.lower() in ("metre", "meter", "m") else unit
    if geographic:
        units = "m2 and m (geodesic)"
    elif " " in short:          # "units of 1.5 m": square them in words
        units = f"square {short} and {short}"
    else:
        units = f"{short}2 and {short}"
    return f"{what} of {source}; area and perimeter in {units}"


def _write_layers(p: Path, layers: list[LayerData], source: str, crs_wkt: str | None,
                  geographic: bool, unit: str) -> None:
    from osgeo import ogr, osr

    driver = ogr.GetDriverByName("GPKG")
    ds = driver.CreateDataSource(str(p))
    srs = osr.SpatialReference()
    # Without a CRS, GeoPackage's "undefined Cartesian SRS" (srs_id -1), not the default
    # "undefined geographic SRS" (srs_id 0): pixel coordinates are not degrees.
    srs.ImportFromWkt(crs_wkt or UNDEFINED_CARTESIAN)
    srs.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    try:
        for layer_data in layers:
            description = _description(layer_data, source, crs_wkt, geographic, unit)
            layer = ds.CreateLayer(layer_data.name, srs, ogr.wkbMultiPolygon,
                                   options=[f"DESCRIPTION={description}",
                                            f"IDENTIFIER={layer_data.name} of {source}"])
            layer.CreateField(ogr.FieldDefn("id", ogr.OFTInteger))
            layer.CreateField(ogr.FieldDefn("area", ogr.OFTReal))
            layer.CreateField(ogr.FieldDefn("perimeter", ogr.OFTReal))
            if layer_data.parents is not None:
                layer.CreateField(ogr.FieldDefn("parent_id", ogr.OFTInteger))
            layer.CreateField(ogr.FieldDefn("source", ogr.OFTString))
            area, perimeter = measures(layer_data.geoms,
                                       crs_wkt if (crs_wkt and geographic) else None)
            defn = layer.GetLayerDefn()
            layer.StartTransaction()
            for i, g in enumerate(layer_data.geoms):
                if g is None:
                    continue
                feature = ogr.Feature(defn)
                feature.SetField("id", i)
                feature.SetField("area", float(area[i]))
                feature.SetField("perimeter", float(perimeter[i]))
                if layer_data.parents is not None:
                    feature.SetField("parent_id", int(layer_data.parents[i]))
                feature.SetField("source", source)
                feature.SetGeometry(ogr.CreateGeometryFromWkb(to_wkb(g)))
                layer.CreateFeature(feature)
            layer.CommitTransaction()
        ds.FlushCache()
    finally:
        with _close_quietly():
            ds = None  # closes the file; what it could not write shows when read back


@contextlib.contextmanager
def _close_quietly() -> Iterator[None]:
    """Closing a dataset in the block prints nothing: an OGR error while closing is raised
    in a destructor, where Python can only print it ("Exception ignored ..."); what the
    close failed to write shows when the file is read back. (Turning OGR's exceptions off
    instead is refused inside QGIS, whose error handler is on GDAL's stack.)"""
    hook = sys.unraisablehook
    sys.unraisablehook = lambda _unraisable: None
    try:
        yield
    finally:
        sys.unraisablehook = hook


def _check_written(p: Path, layers: list[LayerData]) -> None:
    """Read the closed file back: no SQLite journal left beside it, every layer with all
    its features; else RuntimeError."""
    from osgeo import gdal

    for journal in (p.with_name(p.name + "-journal"), p.with_name(p.name + "-wal")):
        if journal.exists():
            raise RuntimeError("SQLite could not finish writing it (its journal is left)")
    expected = {d.name: sum(g is not None for g in d.geoms) for d in layers}
    ds = gdal.OpenEx(str(p), gdal.OF_VECTOR | gdal.OF_READONLY)
    try:
        for name, count in expected.items():
            layer = ds.GetLayerByName(name)
            if layer is None:
                raise RuntimeError(f"its layer {name!r} is missing after writing")
            found = layer.GetFeatureCount()
            if found != count:
                raise RuntimeError(f"its layer {name!r} has {found} of {count} polygons "
                                   "after writing")
    finally:
        ds = None
