"""Processing algorithm "Refit GCPs": a sheet and its reviewed .points file in, the
georeferenced outputs out (``python -m core.georef SHEET --gcps FILE --gcps-only``), so
the last step of a review can be scripted or batched."""

from __future__ import annotations

from pathlib import Path

from qgis.core import QgsProcessingParameterCrs, QgsProcessingParameterFile

from ..crs import core_crs_text
from ..i18n import tr
from .georeference import GeoreferenceAlgorithm


class RefitGcpsAlgorithm(GeoreferenceAlgorithm):
    """Fit a transform to the enabled points of a .points file as they are and write the
    GeoTIFF, .points, VRT, world file and reports (no detection)."""

    NAME = "refitgcps"

    def displayName(self) -> str:
        return tr("Refit GCPs")

    def shortHelpString(self) -> str:
        return tr("Fits a transform to the enabled points of a QGIS .points file as they are "
                  "(no detection, no snapping) and writes the georeferenced sheet, its "
                  ".points file, VRT, world file and reports: what the review panel's Save "
                  "writes, and python -m core.georef SHEET --gcps FILE --gcps-only --outliers "
                  "none. Disabled "
                  "points stay in the outputs, disabled. By default every enabled point is "
                  "used (no outlier rejection), as in QGIS's georeferencer.\n\nGrid CRS: the "
                  "CRS the point coordinates are read in (default: the file's #CRS line); "
                  "the report gives them in it.")

    def initAlgorithm(self, config=None) -> None:
        self.add_sheet()
        self.addParameter(QgsProcessingParameterFile(
            self.GCPS, tr("GCPs (.points file)"),
            fileFilter=tr("QGIS GCP files (*.points);;All files (*)")))
        self.addParameter(QgsProcessingParameterCrs(self.GRID_CRS, tr("Grid CRS"),
                                                    optional=True))
        self.add_fit_parameters("none")
        self.add_georef_outputs()

    def run_job(self, parameters, context, feedback, progress) -> dict:
        from ...core.formats.qgis_points import read_points_file
        from ...core.georef import georeference

        sheet = self.sheet_path(parameters, self.INPUT, context)
        gcps = self.optional_path(parameters, self.GCPS, context)
        crs = self.crs_parameter(parameters, self.CRS, context, None)
        given = parameters.get(self.GRID_CRS)
        grid_crs = (core_crs_text(self.crs_parameter(parameters, self.GRID_CRS, context, None))
                    if given not in (None, "") else read_points_file(gcps).crs)
        mask = self.optional_path(parameters, self.MASK, context)
        outdir = Path(self.parameterAsString(parameters, self.OUTPUT_FOLDER, context))
        result = georeference(
            sheet, core_crs_text(crs), grid_crs=grid_crs, gcps=gcps, gcps_only=True,
            transform=self.choice(parameters, self.TRANSFORM, context), outdir=outdir,
            mask=mask if mask is not None else "auto",
            outliers=self.choice(parameters, self.OUTLIERS, context),
            resampling=self.choice(parameters, self.RESAMPLING, context), progress=progress)
        return self.georef_results(result, sheet, outdir, parameters, context, feedback)
