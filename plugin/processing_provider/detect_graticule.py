"""Processing algorithm "Detect graticule intersections" (MapSeg task 3)."""

from __future__ import annotations

from qgis.core import (
    QgsFeatureSink,
    QgsProcessing,
    QgsProcessingOutputNumber,
    QgsProcessingParameterFeatureSink,
    QgsProcessingParameterFileDestination,
    QgsProcessingParameterNumber,
    QgsWkbTypes,
)

from ..i18n import tr
from ..layers import detection_layer
from ..sheets import output_crs
from .base import CoreAlgorithm


class DetectGraticuleAlgorithm(CoreAlgorithm):
    """Find the intersections of the grid lines printed on a scanned sheet."""

    NAME = "detectgraticule"
    GROUP = "georeferencing"
    INPUT, MASK, SPACING_PX = "INPUT", "MASK", "SPACING_PX"
    OUTPUT, OUTPUT_CSV = "OUTPUT", "OUTPUT_CSV"
    COUNT, SPACING = "COUNT", "SPACING"

    def displayName(self) -> str:
        return tr("Detect graticule intersections")

    def shortHelpString(self) -> str:
        return tr("Finds the grid lines printed on a scanned map sheet and their intersections, "
                  "to a fraction of a pixel.\n\nThe points are placed on the sheet as QGIS "
                  "shows it (pixel positions for an image without georeferencing), with their "
                  "grid column and row, a confidence between 0 and 1 and whether both lines "
                  "are drawn through the crossing (visible). The optional CSV has the ICDAR "
                  "2021 MapSeg format (x,y in pixels, y downwards) and lists the visible "
                  "crossings, as MapSeg ground truth does.\n\nMap-area "
                  "mask: a PNG (255 = map) of the sheet's size; when left empty, "
                  "NNN-INPUT-MASK.png beside NNN-INPUT.jpg (or NAME-MASK.png beside NAME.jpg) "
                  "is used if present, else the map area is found automatically. Grid spacing: "
                  "the distance between grid lines in pixels, if known (0 = find it).")

    def initAlgorithm(self, config=None) -> None:
        self.add_sheet()
        self.addParameter(QgsProcessingParameterNumber(
            self.SPACING_PX, tr("Grid spacing in pixels (0 = find it)"),
            QgsProcessingParameterNumber.Type.Double, defaultValue=0.0, minValue=0.0))
        self.addParameter(QgsProcessingParameterFeatureSink(
            self.OUTPUT, tr("Graticule intersections"), QgsProcessing.SourceType.TypeVectorPoint))
        self.addParameter(QgsProcessingParameterFileDestination(
            self.OUTPUT_CSV, tr("Intersections as a MapSeg CSV"),
            tr("CSV files (*.csv)"), optional=True, createByDefault=False))
        self.addOutput(QgsProcessingOutputNumber(self.COUNT, tr("Number of intersections")))
        self.addOutput(QgsProcessingOutputNumber(self.SPACING,
                                                 tr("Grid spacing found (pixels)")))

    def run_job(self, parameters, context, feedback, progress) -> dict:
        from ...core.formats.mapseg_csv import write_points_csv
        from ..jobs import detect

        layer = self.parameterAsRasterLayer(parameters, self.INPUT, context)
        sheet = self.sheet_path(parameters, self.INPUT, context)
        mask = self.optional_path(parameters, self.MASK, context)
        spacing = self.parameterAsDouble(parameters, self.SPACING_PX, context)
        result = detect(sheet, mask, progress, spacing_px=spacing or None)
        progress(0.95)
        points = detection_layer(result, layer, output_crs(layer, sheet))
        sink, dest = self.parameterAsSink(parameters, self.OUTPUT, context, points.fields(),
                                          QgsWkbTypes.Type.Point, points.crs())
        sink.addFeatures(points.getFeatures(), QgsFeatureSink.Flag.FastInsert)
        outputs = {self.OUTPUT: dest, self.COUNT: len(result),
                   self.SPACING: float((result.columns.spacing_px
                                        + result.rows.spacing_px) / 2)}
        csv = self.parameterAsFileOutput(parameters, self.OUTPUT_CSV, context)
        if csv:  # MapSeg counts the crossings one can see
            write_points_csv(csv, result.visible_only().points, decimals=2)
            outputs[self.OUTPUT_CSV] = csv
        feedback.pushInfo(tr("{0} intersections found.").format(len(result)))
        return outputs
