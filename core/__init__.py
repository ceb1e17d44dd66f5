"""Graticule Georeferencer core library: detection, georeferencing, vectorization, metrics.

Pure Python on top of NumPy, OpenCV, GDAL/OGR (Debian's ``osgeo``), pyproj and shapely;
it never imports ``qgis`` and only uses relative imports, so it runs both as the
top-level package ``core`` (``python -m core.<module>``) and inside the installed plugin.

Pixel coordinates everywhere: x to the right, y down, origin at the top-left corner of
the top-left pixel; the centre of pixel (column i, row j) is (i + 0.5, j + 0.5) only where
a function says so, otherwise integer coordinates are pixel centres.
"""

__version__ = "0.1.0"
