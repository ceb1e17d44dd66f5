"""Building blocks (ICDAR 2021 MapSeg task 1) and closed shapes of scanned city maps.

``segment_sheet(image, mask, level="blocks"|"shapes")`` returns label images;
``write_outputs`` writes the 0/255 PNG and a GeoPackage of simplified polygons (pixel
coordinates, or a map CRS with :func:`load_georeference`). Command line:
``python -m core.blocks INPUT.jpg -o OUT.png [--level shapes] [--gpkg OUT.gpkg]``.
"""

from .export import layers_for, level_png, write_outputs
from .georeference import Georeference, find_georeference, load_georeference
from .pipeline import LEVELS, Segmentation, segment_sheet, shapes_from_lines
from .settings import BlockSettings

__all__ = [
           "LEVELS",
           "BlockSettings",
           "Georeference",
           "Segmentation",
           "find_georeference",
           "layers_for",
           "level_png",
           "load_georeference",
           "segment_sheet",
           "shapes_from_lines",
           "write_outputs",
]
