"""Processing algorithm "Vectorize building blocks" (MapSeg task 1, closed shapes)."""

from __future__ import annotations

from pathlib import Path

from qgis.core import (
    QgsProcessingContext,
    QgsProcessingOutputNumber,
    QgsProcessingOutputVectorLayer,
    QgsProcessingParameterFile,
    QgsProcessingParameterFileDestination,
    QgsProcessingParameterNumber,
)

from ..i18n import tr
from .base import CoreAlgorithm


class BuildingBlocksAlgorithm(CoreAlgorithm):
    """Building blocks (and closed shapes) of a sheet as GeoPackage polygons."""

    NAME = "buildingblocks"
    GROUP = "vectorization"
    INPUT, MASK, LEVEL, GEOREF, TOLERANCE = "INPUT", "MASK", "LEVEL", "GEOREF", "TOLERANCE"
    OUTPUT, OUTPUT_PNG = "OUTPUT", "OUTPUT_PNG"
    BLOCKS, SHAPES, BLOCK_COUNT, SHAPE_COUNT = "BLOCKS", "SHAPES", "BLOCK_COUNT", "SHAPE_COUNT"

    def displayName(self) -> str:
        return tr("Vectorize building blocks")

    def shortHelpString(self) -> str:
        return tr("Finds the building blocks of a scanned city map (the closed shapes bounded "
                  "by streets, rivers and walls, as in ICDAR 2021 MapSeg task 1) and writes "
                  "them as polygons to a GeoPackage, with their area and perimeter. With "
                  "\"every closed shape\" the parcels, buildings and courtyards inside the "
                  "blocks are added as a second layer.\n\nThe polygons are georeferenced with "
                  "the .points file given, else with the sheet's own georeferencing, else "
                  "with <sheet>_georef/<sheet>.points or <sheet file>.points beside the "
                  "sheet; without any they are in pixel coordinates (x = column, y = -row), "
                  "over the sheet opened without georeferencing.\n\nThe optional PNG is the "
                  "MapSeg task 1 output: 255 on the blocks, one 4-connected component each.")

    def initAlgorithm(self, config=None) -> None:
        self.add_sheet()
        self.addParameter(self.choice_parameter(
            self.LEVEL, tr("Polygons"), [(tr("Building blocks"), "blocks"), (
                tr("Blocks and every closed shape inside them"), "shapes")], "blocks"))
        self.addParameter(QgsProcessingParameterFile(
            self.GEOREF, tr("Georeferencing (.points file, optional)"), optional=True,
            fileFilter=tr("QGIS GCP files (*.points);;All files (*)")))
        tolerance = QgsProcessingParameterNumber(
            self.TOLERANCE, tr("Simplification tolerance (pixels)"),
            QgsProcessingParameterNumber.Type.Double, defaultValue=1.5, minValue=0.0)
        tolerance.setHelp(tr("Largest distance, in pixels, between a simplified polygon "
                             "boundary and the pixel boundary it replaces (Douglas-Peucker "
                             "on each boundary shared by two polygons, so that neighbours "
                             "keep neither gaps nor overlaps); 0 keeps the exact pixel "
                             "boundaries."))
        self.addParameter(self.advanced(tolerance))
        self.addParameter(QgsProcessingParameterFileDestination(
            self.OUTPUT, tr("GeoPackage"), tr("GeoPackage (*.gpkg)")))
        self.addParameter(QgsProcessingParameterFileDestination(
            self.OUTPUT_PNG, tr("Blocks as a MapSeg PNG"), tr("PNG masks (*.png)"),
            optional=True, createByDefault=False))
        self.addOutput(QgsProcessingOutputVectorLayer(self.BLOCKS, tr("Building blocks")))
        self.addOutput(QgsProcessingOutputVectorLayer(self.SHAPES, tr("Closed shapes")))
        self.addOutput(QgsProcessingOutputNumber(self.BLOCK_COUNT, tr("Number of blocks")))
        self.addOutput(QgsProcessingOutputNumber(self.SHAPE_COUNT, tr("Number of shapes")))

    def run_job(self, parameters, context, feedback, progress) -> dict:
        from ..jobs import BlocksRequest, vectorize_blocks

        sheet = self.sheet_path(parameters, self.INPUT, context)
        level = self.choice(parameters, self.LEVEL, context)
        gpkg = Path(self.parameterAsFileOutput(parameters, self.OUTPUT, context))
        png = self.parameterAsFileOutput(parameters, self.OUTPUT_PNG, context)
        req = BlocksRequest(
            sheet=sheet, gpkg=gpkg, level=level,
            mask=self.optional_path(parameters, self.MASK, context),
            georef=self.optional_path(parameters, self.GEOREF, context),
            png=Path(png) if png else None,
            tolerance=self.parameterAsDouble(parameters, self.TOLERANCE, context))
        outcome = vectorize_blocks(req, progress)
        feedback.pushInfo(tr("Polygons {0}.").format(outcome.placed_by))
        outputs = {self.OUTPUT: str(gpkg), self.BLOCK_COUNT: outcome.counts["blocks"],
                   self.SHAPE_COUNT: outcome.counts.get("shapes", 0)}
        if png:
            outputs[self.OUTPUT_PNG] = png
        names = {"blocks": (self.BLOCKS, tr("{0} blocks")),
                 "shapes": (self.SHAPES, tr("{0} shapes"))}
        for layer_name in outcome.layers:
            output, title = names[layer_name]
            uri = f"{gpkg}|layername={layer_name}"
            outputs[output] = uri
            context.addLayerToLoadOnCompletion(uri, QgsProcessingContext.LayerDetails(
                title.format(sheet.stem), context.project(), output))
        feedback.setProgress(100)
        return outputs
