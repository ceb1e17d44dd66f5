"""Processing algorithm "Score map area" (MapSeg task 2, 95 % Hausdorff distance)."""

from __future__ import annotations

from ..i18n import tr
from .mapseg_evaluation import IMAGES, MapSegEvaluation


class EvaluateMapAreaAlgorithm(MapSegEvaluation):
    """95 % Hausdorff distance between the predicted and the reference map-area masks."""

    NAME = "evaluatet2"
    TASK = "T2"
    FILES = IMAGES
    SCORES = (("HD95", "error"),)

    def displayName(self) -> str:
        return tr("Score map area (MapSeg T2)")

    def shortHelpString(self) -> str:
        return tr("95 % Hausdorff distance, in pixels, between the outlines of the predicted "
                  "and the reference map-area masks, as in ICDAR 2021 MapSeg task 2 (0 is "
                  "perfect). Both files are 0/255 single-channel images of one size.")

    def score_titles(self) -> dict[str, str]:
        return {"HD95": tr("95 % Hausdorff distance (pixels)")}
