"""What every algorithm of the provider shares: groups, help, progress, errors.

Progress: core jobs report a fraction in [0, 1]; it goes to ``feedback.setProgress`` and
the Cancel button of Processing raises :class:`core.progress.Cancelled` inside the job, which
then stops without writing anything. User errors (core's InputError, an unusable layer)
become a one-line :class:`QgsProcessingException`; an unexpected error too, with the
traceback in the log as debug information.
"""

from __future__ import annotations

from pathlib import Path

from qgis.core import (
    QgsCoordinateReferenceSystem,
    QgsProcessingAlgorithm,
    QgsProcessingException,
    QgsProcessingFeedback,
    QgsProcessingParameterDefinition,
    QgsProcessingParameterEnum,
    QgsProcessingParameterFile,
    QgsProcessingParameterRasterLayer,
)

from .. import deps
from ..i18n import tr
from ..main import icon
from ..sheets import layer_file
from ..tasks import describe_error, progress_callback

HELP_URL = ("https://github.com/graticule-georeferencer/graticule-georeferencer/blob/main/"
            "docs/plugin.md")


class CoreAlgorithm(QgsProcessingAlgorithm):
    """Base of the provider's algorithms; subclasses implement :meth:`run_job`."""

    NAME = ""
    GROUP = "georeferencing"

    def name(self) -> str:
        return self.NAME

    def group(self) -> str:
        return {"georeferencing": tr("Georeferencing"), "vectorization": tr("Vectorization"),
                "evaluation": tr("Evaluation (ICDAR 2021 MapSeg)")}[self.GROUP]

    def groupId(self) -> str:
        return self.GROUP

    def icon(self):
        return icon("icon.svg")

    def helpUrl(self) -> str:
        return HELP_URL

    def createInstance(self):
        return type(self)()

    def canExecute(self):
        missing = deps.missing_packages()
        if missing:
            return False, deps.missing_message(missing)
        return True, ""

    def add_sheet(self, mask: bool = True) -> None:
        """The "Scanned sheet" parameter ``INPUT`` and, with ``mask``, the optional map-area
        mask ``MASK`` (read them with :meth:`sheet_path` and :meth:`optional_path`)."""
        self.addParameter(QgsProcessingParameterRasterLayer("INPUT", tr("Scanned sheet")))
        if mask:
            self.addParameter(QgsProcessingParameterFile(
                "MASK", tr("Map-area mask (PNG, optional)"), optional=True,
                fileFilter=tr("PNG masks (*.png);;All files (*)")))

    @staticmethod
    def advanced(parameter):
        """``parameter`` shown under Processing's "Advanced parameters"."""
        parameter.setFlags(parameter.flags()
                           | QgsProcessingParameterDefinition.Flag.FlagAdvanced)
        return parameter

    def sheet_path(self, parameters, name: str, context) -> Path:
        """The image file of raster-layer parameter ``name`` (SheetError when it has none)."""
        return layer_file(self.parameterAsRasterLayer(parameters, name, context))

    def optional_path(self, parameters, name: str, context) -> Path | None:
        """A file parameter's path, or None when left empty."""
        text = self.parameterAsFile(parameters, name, context)
        return Path(text) if text else None

    def choice_parameter(self, name: str, label: str, options: list[tuple[str, str]],
                         default: str) -> QgsProcessingParameterEnum:
        """An enum parameter over ``options`` ``(label, core key)``; read it back with
        :meth:`choice`."""
        keys = [key for _label, key in options]
        self.__dict__.setdefault("_choice_keys", {})[name] = keys
        return QgsProcessingParameterEnum(name, label, options=[lab for lab, _ in options],
                                          defaultValue=keys.index(default))

    def choice(self, parameters, name: str, context) -> str:
        """The core key chosen for enum parameter ``name``."""
        return self._choice_keys[name][self.parameterAsEnum(parameters, name, context)]

    def crs_parameter(self, parameters, name: str, context,
                      default: QgsCoordinateReferenceSystem | None):
        """CRS parameter ``name``; ``default`` when left empty (if it may be). A value
        QGIS does not know as a CRS is an error that names it (never silently replaced)."""
        given = parameters.get(name)
        crs = self.parameterAsCrs(parameters, name, context)
        if crs.isValid():
            return crs
        label = self.parameterDefinition(name).description()
        empty = given is None or (isinstance(given, str) and not given.strip())
        if empty and default is not None and default.isValid():
            return default
        if empty:
            raise QgsProcessingException(tr("{0}: choose a CRS.").format(label))
        raise QgsProcessingException(tr(
            "{0}: “{1}” is not a CRS QGIS knows; give an authority code (EPSG:2154), a PROJ "
            "string or WKT.").format(label, given))

    def processAlgorithm(self, parameters, context, feedback):
        from ...core.progress import Cancelled

        feedback = feedback or QgsProcessingFeedback()
        try:
            return self.run_job(parameters, context, feedback,
                                progress_callback(feedback, feedback.setProgressText))
        except Cancelled:
            feedback.pushInfo(tr("Cancelled; nothing was written."))
            return {}
        except QgsProcessingException:
            raise
        except Exception as exc:
            message, details = describe_error(exc)
            if details:
                feedback.pushDebugInfo(details)
            raise QgsProcessingException(message) from None

    def run_job(self, parameters, context, feedback, progress) -> dict:
        """The algorithm's work; ``progress`` is a core progress callback that raises
        :class:`core.progress.Cancelled` once the user pressed Cancel."""
        raise NotImplementedError
