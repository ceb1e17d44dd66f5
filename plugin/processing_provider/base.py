"""What every algorithm of the provider shares: groups, help, progress, errors.

Progress: core jobs report a fraction in [0, 1]; it goes to ``feedback.setProgress`` and
the Cancel button of Processing raises :class:`core.progress.Cancelled` inside the job, which
then stops without writing anything. User errors (core's InputError, an unusable layer)
become a one-line :class:`QgsProcessingException`; an unexpected error too, with the
traceback in the log as debug information.
"""

from __future__ import annotations

import traceback
from pathlib import Path

from qgis.core import (
    QgsCoordinateReferenceSystem,
    QgsProcessingAlgorithm,
    QgsProcessingException,
    QgsProcessingParameterEnum,
)

from .. import deps
from ..errors import user_message
from ..i18n import tr
from ..main import icon
from ..sheets import SheetError, layer_file

HELP_URL = ("https://github.com/graticule-georeferencer/graticule-georeferencer/blob/main/"
            "docs/plugin.md")


def group_names() -> dict[str, str]:
    """Group id -> translated display name."""
    return {"georeferencing": tr("Georeferencing"),
            "vectorization": tr("Vectorization"),
            "evaluation": tr("Evaluation (ICDAR 2021 MapSeg)")}


def feedback_progress(feedback):
    """A core progress callback driving ``feedback`` and honouring its Cancel button."""
    from ...core.progress import Cancelled

    last = {"message": None}

    def progress(fraction: float, message: str = "") -> None:
        if feedback is None:
            return
        if feedback.isCanceled():
            raise Cancelled()
        feedback.setProgress(100.0 * min(1.0, max(0.0, fraction)))
        if message and message != last["message"]:
            last["message"] = message
            feedback.setProgressText(message)

    return progress


class CoreAlgorithm(QgsProcessingAlgorithm):
    """Base of the provider's algorithms; subclasses implement :meth:`run_job`."""

    NAME = ""
    GROUP = "georeferencing"

    def name(self) -> str:
        return self.NAME

    def group(self) -> str:
        return group_names()[self.GROUP]

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

    def sheet_path(self, parameters, name: str, context) -> Path:
        """The image file of raster-layer parameter ``name``."""
        layer = self.parameterAsRasterLayer(parameters, name, context)
        if layer is None:
            raise QgsProcessingException(tr("The sheet could not be opened as a raster layer."))
        try:
            return layer_file(layer)
        except SheetError as exc:
            raise QgsProcessingException(str(exc)) from None

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
        from ...core.errors import InputError
        from ...core.progress import Cancelled

        try:
            return self.run_job(parameters, context, feedback, feedback_progress(feedback))
        except Cancelled:
            feedback.pushInfo(tr("Cancelled; nothing was written."))
            return {}
        except (InputError, SheetError) as exc:
            raise QgsProcessingException(user_message(exc)) from None
        except QgsProcessingException:
            raise
        except MemoryError:
            raise QgsProcessingException(tr("Not enough memory for this sheet: close other "
                                            "programs and try again.")) from None
        except Exception as exc:
            feedback.pushDebugInfo("".join(traceback.format_exception(type(exc), exc,
                                                                      exc.__traceback__)))
            raise QgsProcessingException(tr("Unexpected error: {0}").format(exc)) from None

    def check_cancel(self, feedback) -> None:
        """Stop between two steps when the user pressed Cancel."""
        from ...core.progress import Cancelled

        if feedback is not None and feedback.isCanceled():
            raise Cancelled()

    def run_job(self, parameters, context, feedback, progress) -> dict:
        """The algorithm's work; ``progress`` is a core progress callback."""
        raise NotImplementedError
