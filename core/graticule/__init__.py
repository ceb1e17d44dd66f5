"""Graticule intersection detection (ICDAR 2021 MapSeg task 3).

``detect_graticule(image, mask=None)`` returns a :class:`GraticuleResult`: the sub-pixel
intersections (x right, y down; integer coordinates are pixel centres, as in MapSeg ground
truth), their grid indices and the two line families.
"""

from .detect import DetectionSettings, detect_graticule
from .result import GraticuleResult, LineFamily

__all__ = ["DetectionSettings", "GraticuleResult", "LineFamily", "detect_graticule"]
