"""Processing algorithm "Score graticule intersections" (MapSeg task 3, PDS)."""

from __future__ import annotations

from ..i18n import tr
from .mapseg_evaluation import CSV, MapSegEvaluation


class EvaluateIntersectionsAlgorithm(MapSegEvaluation):
    """Point detection score (PDS) of detected intersections against the reference."""

    NAME = "evaluatet3"
    TASK = "T3"
    FILES = CSV
    SCORES = (("PDS", "score"),)

    def displayName(self) -> str:
        return tr("Score graticule intersections (MapSeg T3)")

    def shortHelpString(self) -> str:
        return tr("Point detection score of detected intersections against the reference, as "
                  "in ICDAR 2021 MapSeg task 3: the area under the F-score (beta 0.5) curve "
                  "for distances up to 50 pixels (1 is perfect). Both files are MapSeg CSVs "
                  "with an x,y header and one point a line, in pixels (y downwards).")

    def score_titles(self) -> dict[str, str]:
        return {"PDS": tr("Point detection score (PDS)")}
