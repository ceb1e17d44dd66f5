"""Processing algorithm "Georeference a sheet from its graticule"."""

from __future__ import annotations

from pathlib import Path

from qgis.core import (
    QgsCoordinateReferenceSystem,
    QgsFeatureSink,
    QgsProcessing,
    QgsProcessingContext,
    QgsProcessingOutputFile,
    QgsProcessingOutputHtml,
    QgsProcessingOutputNumber,
    QgsProcessingOutputRasterLayer,
    QgsProcessingParameterCrs,
    QgsProcessingParameterFeatureSink,
    QgsProcessingParameterFile,
    QgsProcessingParameterFolderDestination,
    QgsProcessingParameterNumber,
    QgsProcessingParameterString,
    QgsWkbTypes,
)

from .. import choices
from ..crs import DEFAULT_TARGET, core_crs_text
from ..i18n import number, tr
from .base import CoreAlgorithm


def default_grid_crs():
    """The Paris atlas grid (registered as a custom CRS), or None without core's packages."""
    try:
        from ..crs import paris_atlas_crs

        return paris_atlas_crs()
    except ImportError:
        return None


class GeoreferenceAlgorithm(CoreAlgorithm):
    """Detect the graticule, name its intersections from anchors, fit and write a GeoTIFF."""

    NAME = "georeference"
    GROUP = "georeferencing"
    INPUT, MASK, GRID_CRS, SPACING = "INPUT", "MASK", "GRID_CRS", "SPACING"
    ANCHORS, GCPS, CRS, TRANSFORM = "ANCHORS", "GCPS", "CRS", "TRANSFORM"
    OUTLIERS, RESAMPLING = "OUTLIERS", "RESAMPLING"
    OUTPUT_FOLDER, OUTPUT_POINTS = "OUTPUT_FOLDER", "OUTPUT_POINTS"
    OUTPUT_RASTER, RMSE_MAP, RMSE_PX = "OUTPUT_RASTER", "RMSE_MAP", "RMSE_PX"
    USED, REPORT, GCP_FILE = "USED", "REPORT", "GCP_FILE"

    def displayName(self) -> str:
        return tr("Georeference a sheet from its graticule")

    def shortHelpString(self) -> str:
        return tr("Detects the graticule of a scanned sheet, gives each intersection its grid "
                  "coordinates and fits a transform to them, leaving out outliers.\n\n"
                  "Anchors say which intersection is which: X,Y=E,N means that the "
                  "intersection nearest pixel (X, Y) (x to the right, y downwards) has grid "
                  "coordinates (E, N). One anchor is enough for a sheet with north up; give "
                  "two for a rotated sheet, separated by a semicolon. Instead of anchors, a "
                  "QGIS .points file of known points can be given; NNN.points or <sheet>"
                  ".points beside the sheet is used when present. With neither, the grid "
                  "values printed in the sheet's margins are read and name the "
                  "intersections (the report lists every label read).\n\nThe output folder "
                  "receives <sheet>.tif (the georeferenced sheet), <sheet>.points (GCPs for "
                  "QGIS's georeferencer), <sheet>.vrt, a world file and a report in JSON and "
                  "HTML. The intersections layer gives every intersection with its residual "
                  "in pixels and in map units.")

    def initAlgorithm(self, config=None) -> None:
        self.add_sheet()
        # optional: processing.run() without GRID_CRS takes the default, the Paris atlas grid
        self.addParameter(QgsProcessingParameterCrs(self.GRID_CRS, tr("Grid CRS"),
                                                    defaultValue=default_grid_crs(),
                                                    optional=True))
        self.addParameter(QgsProcessingParameterNumber(
            self.SPACING, tr("Grid spacing (grid CRS units; 0 = the step of the printed grid "
                             "values, else 1000)"),
            QgsProcessingParameterNumber.Type.Double, defaultValue=0.0, minValue=0.0))
        self.addParameter(QgsProcessingParameterString(
            self.ANCHORS, tr("Anchors X,Y=E,N (separated by ;)"), optional=True))
        self.addParameter(QgsProcessingParameterFile(
            self.GCPS, tr("Known points (.points file)"), optional=True,
            fileFilter=tr("QGIS GCP files (*.points);;All files (*)")))
        self.add_fit_parameters("magsac")
        self.add_georef_outputs()

    def add_fit_parameters(self, outliers: str) -> None:
        """Target CRS, transform and, as advanced parameters, the outlier rejection
        (default ``outliers``) and the resampling."""
        self.addParameter(QgsProcessingParameterCrs(
            self.CRS, tr("Target CRS"),
            defaultValue=QgsCoordinateReferenceSystem(DEFAULT_TARGET)))
        self.addParameter(self.choice_parameter(self.TRANSFORM, tr("Transform"),
                                                choices.transforms(), "affine"))
        self.addParameter(self.advanced(self.choice_parameter(
            self.OUTLIERS, tr("Outlier rejection"), choices.outlier_methods(), outliers)))
        self.addParameter(self.advanced(self.choice_parameter(
            self.RESAMPLING, tr("Resampling (warped transforms)"), choices.resamplings(),
            "bilinear")))

    def add_georef_outputs(self) -> None:
        """The outputs every georeferencing algorithm gives (folder, points, raster,
        numbers, report, .points)."""
        self.addParameter(QgsProcessingParameterFolderDestination(
            self.OUTPUT_FOLDER, tr("Output folder")))
        self.addParameter(QgsProcessingParameterFeatureSink(
            self.OUTPUT_POINTS, tr("Intersections with residuals"),
            QgsProcessing.SourceType.TypeVectorPoint))
        self.addOutput(QgsProcessingOutputRasterLayer(self.OUTPUT_RASTER,
                                                      tr("Georeferenced sheet")))
        self.addOutput(QgsProcessingOutputNumber(self.RMSE_MAP, tr("RMSE (map units)")))
        self.addOutput(QgsProcessingOutputNumber(self.RMSE_PX, tr("RMSE (pixels)")))
        self.addOutput(QgsProcessingOutputNumber(self.USED, tr("Intersections used")))
        self.addOutput(QgsProcessingOutputHtml(self.REPORT, tr("Report")))
        self.addOutput(QgsProcessingOutputFile(self.GCP_FILE, tr("GCP file (.points)")))

    def georef_results(self, result, sheet: Path, outdir: Path, parameters, context,
                       feedback) -> dict:
        """Core's result as the algorithm's outputs: warnings pushed, the points written
        to the sink, the GeoTIFF loaded on completion, the numbers."""
        from ..layers import intersections_layer

        for warning in result.warnings:
            feedback.pushWarning(warning)
        points = intersections_layer(result)
        sink, dest = self.parameterAsSink(parameters, self.OUTPUT_POINTS, context,
                                          points.fields(), QgsWkbTypes.Type.Point, points.crs())
        sink.addFeatures(points.getFeatures(), QgsFeatureSink.Flag.FastInsert)
        tif = str(result.outputs["tif"])
        details = QgsProcessingContext.LayerDetails(tr("{0} (georeferenced)").format(
            sheet.stem), context.project(), self.OUTPUT_RASTER)
        context.addLayerToLoadOnCompletion(tif, details)
        feedback.pushInfo(tr("RMSE {0} map units ({1} px) over {2} of {3} intersections.")
                          .format(number(result.rmse_map, 3), number(result.rmse_px, 3),
                                  int(result.inliers.sum()), len(result.inliers)))
        feedback.setProgress(100)
        return {self.OUTPUT_FOLDER: str(outdir), self.OUTPUT_POINTS: dest,
                self.OUTPUT_RASTER: tif, self.RMSE_MAP: float(result.rmse_map),
                self.RMSE_PX: float(result.rmse_px), self.USED: int(result.inliers.sum()),
                self.REPORT: str(result.outputs["html"]),
                self.GCP_FILE: str(result.outputs["points"])}

    def run_job(self, parameters, context, feedback, progress) -> dict:
        from ...core.georef import georeference

        sheet = self.sheet_path(parameters, self.INPUT, context)
        grid_crs = self.crs_parameter(parameters, self.GRID_CRS, context, default_grid_crs())
        crs = self.crs_parameter(parameters, self.CRS, context, None)
        mask = self.optional_path(parameters, self.MASK, context)
        outdir = Path(self.parameterAsString(parameters, self.OUTPUT_FOLDER, context))
        anchors = self.parameterAsString(parameters, self.ANCHORS, context)  # "X,Y=E,N; ..."
        result = georeference(
            sheet, core_crs_text(crs), grid_crs=core_crs_text(grid_crs),
            spacing=self.parameterAsDouble(parameters, self.SPACING, context) or None,
            anchors=[a.strip() for a in anchors.replace("\n", ";").split(";") if a.strip()],
            gcps=self.optional_path(parameters, self.GCPS, context),
            transform=self.choice(parameters, self.TRANSFORM, context),
            outdir=outdir, mask=mask if mask is not None else "auto",
            outliers=self.choice(parameters, self.OUTLIERS, context),
            resampling=self.choice(parameters, self.RESAMPLING, context),
            progress=progress)
        return self.georef_results(result, sheet, outdir, parameters, context, feedback)
