"""What the three MapSeg evaluation algorithms share: one reference file, one prediction.

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
    QgsProcessingParameterDefinition,
    QgsProcessingParameterFile,
    QgsProcessingParameterFolderDestination,
)

from ..i18n import number, tr
from .base import CoreAlgorithm

IMAGES, CSV = "images", "csv"


def file_filter(kind: str) -> str:
    """The file dialog filter of reference and prediction files."""
    if kind == CSV:
        return tr("MapSeg CSV files (*.csv);;All files (*)")
    return tr("Images (*.png *.tif *.tiff);;All files (*)")


class MapSegEvaluation(CoreAlgorithm):
    """Score a prediction against a reference with one MapSeg task's metric.

    Subclasses set TASK ("T1", "T2" or "T3"), FILES (IMAGES or CSV) and SCORES: (output
    name, row key of the task's score table) of each number output.
    """

    GROUP = "evaluation"
    TASK = ""
    FILES = IMAGES
    SCORES: tuple[tuple[str, str], ...] = ()
    REFERENCE, PREDICTION, OFFICIAL = "REFERENCE", "PREDICTION", "OFFICIAL"
    OUTPUT_FOLDER, SUMMARY = "OUTPUT_FOLDER", "SUMMARY"

    def score_titles(self) -> dict[str, str]:
        """Output name -> translated title of each score."""
        raise NotImplementedError

    def initAlgorithm(self, config=None) -> None:
        self.addParameter(QgsProcessingParameterFile(
            self.REFERENCE, tr("Reference (ground truth)"), fileFilter=file_filter(self.FILES)))
        self.addParameter(QgsProcessingParameterFile(
            self.PREDICTION, tr("Prediction"), fileFilter=file_filter(self.FILES)))
        official = QgsProcessingParameterBoolean(
            self.OFFICIAL, tr("Reproduce the official evaluator exactly, errors included"),
            defaultValue=False)
        official.setFlags(official.flags() | QgsProcessingParameterDefinition.Flag.FlagAdvanced)
        self.addParameter(official)
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
        self.check_cancel(feedback)
        row.update(reference=ref.name, prediction=pred.name, ref_path=ref, pred_path=pred)
        write_global(out, self.TASK, [row], official, [], RADIUS, BETA)
        json_name = "global_error.json" if self.TASK == "T2" else "global_score.json"
        outputs = {self.OUTPUT_FOLDER: str(out), self.SUMMARY: str(out / json_name)}
        for name, key in self.SCORES:
            outputs[name] = float(row[key])
            feedback.pushInfo(tr("{0}: {1}").format(self.score_titles()[name],
                                                    number(row[key], 4)))
        feedback.setProgress(100)
        return outputs
