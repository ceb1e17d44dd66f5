"""Graticule intersection detection (ICDAR 2021 MapSeg task 3).

``detect_graticule(image, mask=None)`` returns a :class:`GraticuleResult`: the sub-pixel
intersections (x right, y down; integer coordinates are pixel centres, as in MapSeg ground
truth), their grid indices and the two line families. ``detect_on_sheet(image, mask="compute")``
does the same inside the sheet's map area, computed when no mask is given (every command's
default).
"""

from .detect import DetectionSettings, detect_graticule
from .result import GraticuleResult, LineFamily
from .sheet import COMPUTE, detect_on_sheet

__all__ = ["COMPUTE", "DetectionSettings", "GraticuleResult", "LineFamily", "detect_graticule",
           "detect_on_sheet"]
