"""Map-area segmentation (ICDAR 2021 MapSeg task 2): the map content inside the frame.

``map_area_mask(image)`` returns a full-size bool mask (True inside the map);
``python -m core.maparea INPUT.jpg -o NNN-OUTPUT-PRED.png`` writes it as a 0/255 PNG.
"""

from .segment import MapAreaSettings, map_area_mask, map_area_reduced

__all__ = ["MapAreaSettings", "map_area_mask", "map_area_reduced"]
