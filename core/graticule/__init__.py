"""Graticule intersection detection (ICDAR 2021 MapSeg task 3)."""

from .result import GraticuleResult, LineFamily

__all__ = ["GraticuleResult", "LineFamily"]
