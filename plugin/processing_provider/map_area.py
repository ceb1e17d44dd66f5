"""Processing algorithm "Segment the map area" (MapSeg task 2)."""

from __future__ import annotations

from pathlib import Path

from qgis.core import (
    QgsProcessingOutputNumber,
    QgsProcessingParameterFileDestination,
)

from ..i18n import number, tr
from .base import CoreAlgorithm


class MapAreaAlgorithm(CoreAlgorithm):
    """The map content inside the frame of a sheet, as a 0/255 PNG mask."""

    NAME = "maparea"
    GROUP = "vectorization"
    INPUT, OUTPUT, FRACTION = "INPUT", "OUTPUT", "FRACTION"

    def displayName(self) -> str:
        return tr("Segment the map area")

    def shortHelpString(self) -> str:
        return tr("Finds the map content inside the frame of a scanned sheet, without the "
                  "margins, titles and legends, as in ICDAR 2021 MapSeg task 2.\n\nThe "
                  "output is a single-channel PNG of the sheet's size: 255 on the map, 0 "
                  "elsewhere. Name it NNN-INPUT-MASK.png beside NNN-INPUT.jpg (or NAME-MASK.png "
                  "beside NAME.jpg) and the other algorithms use it by default.")

    def initAlgorithm(self, config=None) -> None:
        self.add_sheet(mask=False)
        self.addParameter(QgsProcessingParameterFileDestination(
            self.OUTPUT, tr("Map-area mask"), tr("PNG masks (*.png)")))
        self.addOutput(QgsProcessingOutputNumber(
            self.FRACTION, tr("Share of the sheet covered by the map")))

    def run_job(self, parameters, context, feedback, progress) -> dict:
        from ...core.maparea import map_area_mask
        from ...core.maparea.__main__ import write_mask_png
        from ...core.progress import sub_progress

        sheet = self.sheet_path(parameters, self.INPUT, context)
        output = self.parameterAsFileOutput(parameters, self.OUTPUT, context)
        mask = map_area_mask(sheet, progress=sub_progress(progress, 0.0, 0.9))
        progress(0.95)
        write_mask_png(mask, Path(output))
        fraction = float(mask.mean())
        feedback.pushInfo(tr("The map covers {0} % of the sheet.").format(
            number(100 * fraction, 1)))
        feedback.setProgress(100)
        return {self.OUTPUT: output, self.FRACTION: fraction}
