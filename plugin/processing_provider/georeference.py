"""Processing algorithm "Georeference a sheet from its graticule"."""

from __future__ import annotations

from pathlib import Path

from qgis.core import (
    QgsCoordinateReferenceSystem,
    QgsFeatureSink,
    QgsProcessing,
    QgsProcessingContext,
    QgsProcessingException,
    QgsProcessingOutputFile,
    QgsProcessingOutputHtml,
    QgsProcessingOutputNumber,
    QgsProcessingOutputRasterLayer,
    QgsProcessingParameterCrs,
    QgsProcessingParameterDefinition,
    QgsProcessingParameterEnum,
    QgsProcessingParameterFeatureSink,
    QgsProcessingParameterFile,
    QgsProcessingParameterFolderDestination,
    QgsProcessingParameterNumber,
    QgsProcessingParameterRasterLayer,
    QgsProcessingParameterString,
    QgsWkbTypes,
)

from ..crs import DEFAULT_TARGET, core_crs_text, crs_from_wkt
from ..i18n import number, tr
from .base import CoreAlgorithm

TRANSFORMS = ("helmert", "affine", "projective", "poly2", "poly3", "tps")
OUTLIERS = ("magsac", "ransac", "none")
RESAMPLINGS = ("bilinear", "near", "cubic", "lanczos")


def split_anchors(text: str) -> list[str]:
    """``"X,Y=E,N; X,Y=E,N"`` -> one string per anchor (``;`` or new lines between them)."""
    return [a.strip() for a in text.replace("\n", ";").split(";") if a.strip()]


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
                  ".points beside the sheet is used when present.\n\nThe output folder "
                  "receives <sheet>.tif (the georeferenced sheet), <sheet>.points (GCPs for "
                  "QGIS's georeferencer), <sheet>.vrt, a world file and a report in JSON and "
                  "HTML. The intersections layer gives every intersection with its residual "
                  "in pixels and in map units.")

    def initAlgorithm(self, config=None) -> None:
        self.addParameter(QgsProcessingParameterRasterLayer(self.INPUT, tr("Scanned sheet")))
        # optional: processing.run() without GRID_CRS takes the default, the Paris atlas grid
        self.addParameter(QgsProcessingParameterCrs(self.GRID_CRS, tr("Grid CRS"),
                                                    defaultValue=default_grid_crs(),
                                                    optional=True))
        self.addParameter(QgsProcessingParameterNumber(
            self.SPACING, tr("Grid spacing (grid CRS units)"),
            QgsProcessingParameterNumber.Type.Double, defaultValue=1000.0, minValue=1e-6))
        self.addParameter(QgsProcessingParameterString(
            self.ANCHORS, tr("Anchors X,Y=E,N (separated by ;)"), optional=True))
        self.addParameter(QgsProcessingParameterFile(
            self.GCPS, tr("Known points (.points file)"), optional=True,
            fileFilter=tr("QGIS GCP files (*.points);;All files (*)")))
        self.addParameter(QgsProcessingParameterCrs(
            self.CRS, tr("Target CRS"),
            defaultValue=QgsCoordinateReferenceSystem(DEFAULT_TARGET)))
        self.addParameter(QgsProcessingParameterEnum(
            self.TRANSFORM, tr("Transform"),
            options=[tr("Helmert"), tr("Affine"), tr("Projective"), tr("Polynomial, order 2"),
                     tr("Polynomial, order 3"), tr("Thin plate spline")], defaultValue=1))
        self.addParameter(QgsProcessingParameterFile(
            self.MASK, tr("Map-area mask (PNG, optional)"), optional=True,
            fileFilter=tr("PNG masks (*.png);;All files (*)")))
        advanced = [
            QgsProcessingParameterEnum(self.OUTLIERS, tr("Outlier rejection"),
                                       options=["MAGSAC++", "RANSAC", tr("None")],
                                       defaultValue=0),
            QgsProcessingParameterEnum(self.RESAMPLING, tr("Resampling (warped transforms)"),
                                       options=[tr("Bilinear"), tr("Nearest neighbour"),
                                                tr("Cubic"), tr("Lanczos")], defaultValue=0),
        ]
        for param in advanced:
            param.setFlags(param.flags() | QgsProcessingParameterDefinition.Flag.FlagAdvanced)
            self.addParameter(param)
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

    def run_job(self, parameters, context, feedback, progress) -> dict:
        from ...core.georef import georeference
        from ...core.georef.pipeline import default_points_file
        from ...core.progress import sub_progress
        from .. import jobs
        from ..intersections import intersection_features, intersection_fields

        sheet = self.sheet_path(parameters, self.INPUT, context)
        grid_crs = self.parameterAsCrs(parameters, self.GRID_CRS, context)
        if not grid_crs.isValid():
            grid_crs = default_grid_crs()
        crs = self.parameterAsCrs(parameters, self.CRS, context)
        if grid_crs is None or not grid_crs.isValid() or not crs.isValid():
            raise QgsProcessingException(tr("Give a valid grid CRS and target CRS."))
        anchors = split_anchors(self.parameterAsString(parameters, self.ANCHORS, context))
        gcps = self.optional_path(parameters, self.GCPS, context)
        if not anchors and gcps is None and default_points_file(sheet) is None:
            raise QgsProcessingException(tr(
                "Say which intersection is which: give an anchor X,Y=E,N (the intersection "
                "nearest pixel X,Y has grid coordinates E,N) or a .points file of known "
                "points."))
        mask = jobs.resolve_mask(sheet, self.optional_path(parameters, self.MASK, context))
        outdir = Path(self.parameterAsString(parameters, self.OUTPUT_FOLDER, context))
        graticule = jobs.detect(sheet, mask, sub_progress(progress, 0.0, 0.45))
        self.check_cancel(feedback)
        result = georeference(
            sheet, core_crs_text(crs), grid_crs=core_crs_text(grid_crs),
            spacing=self.parameterAsDouble(parameters, self.SPACING, context),
            anchors=anchors, gcps=gcps,
            transform=TRANSFORMS[self.parameterAsEnum(parameters, self.TRANSFORM, context)],
            outdir=outdir, mask=mask if mask is not None else False,
            outliers=OUTLIERS[self.parameterAsEnum(parameters, self.OUTLIERS, context)],
            resampling=RESAMPLINGS[self.parameterAsEnum(parameters, self.RESAMPLING, context)],
            graticule=graticule, progress=sub_progress(progress, 0.45, 0.97))
        for warning in result.warnings:
            feedback.pushWarning(warning)
        out_crs = crs_from_wkt(result.report["crs"]["output_wkt"])
        sink, dest = self.parameterAsSink(parameters, self.OUTPUT_POINTS, context,
                                          intersection_fields(), QgsWkbTypes.Type.Point, out_crs)
        sink.addFeatures(intersection_features(result, graticule), QgsFeatureSink.Flag.FastInsert)
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
