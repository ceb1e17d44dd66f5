"""GeoPackage output: one polygon layer per level, written with GDAL/OGR, atomically.

Attributes: ``id`` (the component's number, 1..N in raster order of its first pixel, as in
the PNG), ``area`` and ``perimeter`` (m2 and m when georeferenced in a metric CRS, geodesic
when the CRS is geographic, px2 and px otherwise), ``parent_id`` (shapes only: the block
that contains most of the shape, 0 when none) and ``source`` (the sheet's file name).
Without a georeference the layer has no CRS and its description says so: coordinates are
pixel x = column and y = -row, as QGIS places an unreferenced raster, so the polygons lie
on the sheet opened in QGIS.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

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


def write_gpkg(path: str | os.PathLike, layers: list[LayerData], source: str, *,
               crs_wkt: str | None = None, geographic: bool = False,
               unit: str = "px") -> None:
    """Write the layers to ``path`` (a new file; the caller renames it into place)."""
    from osgeo import gdal, ogr, osr

    gdal.UseExceptions()
    p = Path(path)
    if p.exists():
        p.unlink()
    driver = ogr.GetDriverByName("GPKG")
    ds = driver.CreateDataSource(str(p))
    srs = osr.SpatialReference()
    # Without a CRS, GeoPackage's "undefined Cartesian SRS" (srs_id -1), not the default
    # "undefined geographic SRS" (srs_id 0): pixel coordinates are not degrees.
    srs.ImportFromWkt(crs_wkt or UNDEFINED_CARTESIAN)
    srs.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    try:
        for layer_data in layers:
            what = ("building blocks" if layer_data.name == "blocks"
                    else "closed shapes (parent_id: block id)")
            if crs_wkt:
                short = "m" if unit.lower() in ("metre", "meter", "m") else unit
                units = "m2 and m (geodesic)" if geographic else f"{short}2 and {short}"
                description = f"{what} of {source}; area and perimeter in {units}"
            else:
                description = PIXEL_DESCRIPTION.format(source=source, what=what)
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
    finally:
        ds = None  # closes and flushes the file
