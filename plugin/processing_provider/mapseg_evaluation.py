"""The three MapSeg evaluation algorithms: one reference file, one prediction, one score.

Scores come from ``core.metrics`` through the tables of ``python -m core.metrics T1|T2|T3``
(core.metrics.mapseg_cli): the same per-file outputs and the same global CSV and JSON files
in the output folder. Processing's batch mode scores many pairs.
"""

from __future__ import annotations

from pathlib import Path

from qgis.core import (
    QgsProcessingOutputFile,
    QgsProcessingOutputNumber,
    QgsProcessingParameterBoolean,
    QgsProcessingParameterFile,
    QgsProcessingParameterFolderDestination,
)

from ..i18n import number, tr
from .base import CoreAlgorithm

#: task -> (output name, row key of the task's score table) of each score
SCORES = {"T1": (("PQ", "pq"), ("SQ", "sq"), ("RQ", "rq")), "T2": (("HD95", "error"),),
          "T3": (("PDS", "score"),)}


def texts(task: str) -> tuple[str, str]:
    """(display name, help) of the algorithm scoring MapSeg ``task``."""
    return {
        "T1": (tr("Score building blocks (MapSeg T1)"), tr(
            "COCO panoptic quality (PQ = SQ × RQ) of predicted building blocks against "
            "the reference, as in ICDAR 2021 MapSeg task 1. Both files are single-channel "
            "images of one size: 0/255 masks (blocks are their 4-connected regions) or "
            "integer label maps. A block counts as found when its IoU with a reference "
            "block exceeds 0.5.")),
        "T2": (tr("Score map area (MapSeg T2)"), tr(
            "95 % Hausdorff distance, in pixels, between the outlines of the predicted "
            "and the reference map-area masks, as in ICDAR 2021 MapSeg task 2 (0 is "
            "perfect). Both files are 0/255 single-channel images of one size.")),
        "T3": (tr("Score graticule intersections (MapSeg T3)"), tr(
            "Point detection score of detected intersections against the reference, as "
            "in ICDAR 2021 MapSeg task 3: the area under the F-score (beta 0.5) curve "
            "for distances up to 50 pixels (1 is perfect). Both files are MapSeg CSVs "
            "with an x,y header and one point a line, in pixels (y downwards).")),
    }[task]


class MapSegEvaluation(CoreAlgorithm):
    """Score a prediction against a reference with the metric of MapSeg ``task`` ("T1"
    building blocks, "T2" map area, "T3" graticule intersections: CSV files, the others
    images); the algorithm ``evaluatet1`` (2, 3)."""

    GROUP = "evaluation"
    REFERENCE, PREDICTION, OFFICIAL = "REFERENCE", "PREDICTION", "OFFICIAL"
    OUTPUT_FOLDER, SUMMARY = "OUTPUT_FOLDER", "SUMMARY"

    def __init__(self, task: str) -> None:
        super().__init__()
        self.TASK, self.NAME = task, f"evaluate{task.lower()}"

    def createInstance(self):
        return MapSegEvaluation(self.TASK)

    def displayName(self) -> str:
        return texts(self.TASK)[0]

    def shortHelpString(self) -> str:
        return texts(self.TASK)[1]

    def score_titles(self) -> dict[str, str]:
        """Output name -> translated title of each of the task's scores."""
        titles = {"PQ": tr("Panoptic quality (PQ)"), "SQ": tr("Segmentation quality (SQ)"),
                  "RQ": tr("Recognition quality (RQ)"), "PDS": tr("Point detection score (PDS)"),
                  "HD95": tr("95 % Hausdorff distance (pixels)")}
        return {name: titles[name] for name, _key in SCORES[self.TASK]}

    def initAlgorithm(self, config=None) -> None:
        files = (tr("MapSeg CSV files (*.csv);;All files (*)") if self.TASK == "T3"
                 else tr("Images (*.png *.tif *.tiff);;All files (*)"))
        self.addParameter(QgsProcessingParameterFile(
            self.REFERENCE, tr("Reference (ground truth)"), fileFilter=files))
        self.addParameter(QgsProcessingParameterFile(self.PREDICTION, tr("Prediction"),
                                                     fileFilter=files))
        official = QgsProcessingParameterBoolean(
            self.OFFICIAL, tr("Reproduce the official evaluator exactly, errors included"),
            defaultValue=False)
        self.addParameter(self.advanced(official))
        self.addParameter(QgsProcessingParameterFolderDestination(
            self.OUTPUT_FOLDER, tr("Output folder")))
        for name, title in self.score_titles().items():
            self.addOutput(QgsProcessingOutputNumber(name, title))
        self.addOutput(QgsProcessingOutputFile(self.SUMMARY, tr("Summary (JSON)")))

    def run_job(self, parameters, context, feedback, progress) -> dict:
        from ...core.mapseg_names import sheet_id
        from ...core.metrics.mapseg_cli import BETA, RADIUS, TASKS
        from ...core.metrics.mapseg_io import Pair
        from ...core.metrics.mapseg_report import write_global

        ref = Path(self.parameterAsFile(parameters, self.REFERENCE, context))
        pred = Path(self.parameterAsFile(parameters, self.PREDICTION, context))
        official = self.parameterAsBoolean(parameters, self.OFFICIAL, context)
        out = Path(self.parameterAsString(parameters, self.OUTPUT_FOLDER, context))
        task = TASKS[self.TASK]
        progress(0.05, tr("scoring"))
        row = task.score(Pair(sheet_id(ref), ref, pred), out, official)
        progress(0.95)
        row.update(reference=ref.name, prediction=pred.name, ref_path=ref, pred_path=pred)
        write_global(out, self.TASK, [row], official, [], RADIUS, BETA)
        json_name = "global_error.json" if self.TASK == "T2" else "global_score.json"
        outputs = {self.OUTPUT_FOLDER: str(out), self.SUMMARY: str(out / json_name)}
        for name, key in SCORES[self.TASK]:
            outputs[name] = float(row[key])
            feedback.pushInfo(tr("{0}: {1}").format(self.score_titles()[name],
                                                    number(row[key], 4)))
        feedback.setProgress(100)
        return outputs
