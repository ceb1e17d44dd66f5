"""Georeferencing: detected graticule intersections -> GCPs in a real CRS -> fitted transform
-> GeoTIFF, QGIS .points, VRT, world file and reports.

Public API::

    from core.georef import georeference, fit_transform, robust_fit
    result = georeference("map.jpg", "EPSG:2154", grid_crs="paris-atlas",
                          anchors=["2276,1667=-1000,2000"])

Pixel coordinates: x right, y down, origin at the top-left corner of the top-left pixel
(GDAL's and QGIS's GCP convention). Map coordinates: easting, northing.
"""

from .crs import PRESETS, parse_crs  # first: points pyproj at PROJ's data before import
from .grid_labels import Anchor, Labelling, label_intersections, parse_anchor, solve_labelling
from .pipeline import GcpFit, GeorefResult, fit_gcps, georeference
from .raster_output import RESAMPLING
from .robust import METHODS, robust_fit
from .transforms import KINDS, MIN_POINTS, FittedTransform, fit_transform

__all__ = ["KINDS", "METHODS", "MIN_POINTS", "PRESETS", "RESAMPLING", "Anchor",
           "FittedTransform", "GcpFit", "GeorefResult", "Labelling", "fit_gcps",
           "fit_transform", "georeference",
           "label_intersections",
           "parse_anchor", "parse_crs", "robust_fit", "solve_labelling"]
