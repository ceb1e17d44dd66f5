"""Processing algorithm "Score building blocks" (MapSeg task 1, COCO panoptic quality)."""

from __future__ import annotations

from ..i18n import tr
from .mapseg_evaluation import IMAGES, MapSegEvaluation


class EvaluateBlocksAlgorithm(MapSegEvaluation):
    """COCO panoptic quality of predicted building blocks against the reference."""

    NAME = "evaluatet1"
    TASK = "T1"
    FILES = IMAGES
    SCORES = (("PQ", "pq"), ("SQ", "sq"), ("RQ", "rq"))

    def displayName(self) -> str:
        return tr("Score building blocks (MapSeg T1)")

    def shortHelpString(self) -> str:
        return tr("COCO panoptic quality (PQ = SQ × RQ) of predicted building blocks against "
                  "the reference, as in ICDAR 2021 MapSeg task 1. Both files are single-channel "
                  "images of one size: 0/255 masks (blocks are their 4-connected regions) or "
                  "integer label maps. A block counts as found when its IoU with a reference "
                  "block exceeds 0.5.")

    def score_titles(self) -> dict[str, str]:
        return {"PQ": tr("Panoptic quality (PQ)"), "SQ": tr("Segmentation quality (SQ)"),
                "RQ": tr("Recognition quality (RQ)")}
