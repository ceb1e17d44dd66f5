"""Graticule Georeferencer core library: detection, georeferencing, vectorization, metrics.

Pure Python on top of NumPy, OpenCV, GDAL/OGR (Debian's ``osgeo``), pyproj and shapely
(shapely only in the synthetic sheets and the text/chart metrics: its wheel brings a second
GEOS, so nothing the plugin runs in QGIS imports it); it never imports ``qgis`` and only
uses relative imports, so it runs both as the top-level package ``core``
(``python -m core.<module>``) and inside the installed plugin.

Pixel coordinates everywhere: x to the right, y down, in pixels of the full-size image;
integer coordinates are pixel centres, so the image covers -0.5 .. W - 0.5 (the MapSeg
convention). GDAL and QGIS ``.points`` files use raster coordinates whose origin is the
top-left corner of the top-left pixel (centre of pixel (0, 0) = (0.5, 0.5)); code that writes
or reads those formats adds or removes 0.5 at the boundary
(``core.formats.qgis_points.PIXEL_CENTRE``). QGIS ``.points`` files also store pixel y
negated (-y).
"""

__version__ = "0.1.0"
