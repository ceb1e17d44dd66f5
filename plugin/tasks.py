"""Run a core job in a QgsTask: progress bar, Cancel, one-line errors, never a frozen QGIS.

``run()`` (worker thread, no GUI calls) calls ``job(progress)``; the progress callback
reports the fraction to QGIS and raises :class:`core.progress.Cancelled` once the user has
pressed Cancel, which core jobs honour by stopping and writing nothing. ``finished()`` (main
thread) hands the task to ``on_done``, which adds layers or shows the error. Processing's
algorithms use the same progress callback and error wording.

Errors: core raises :class:`core.errors.InputError` with references to the options at
fault; the command line words them as flags (``--spacing``), the plugin as the labels of
its fields ("Grid spacing"). The message itself is core's, never reworded here.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import Any

from qgis.core import Qgis, QgsMessageLog, QgsTask

from .i18n import tr

LOG_TAG = "Graticule Georeferencer"
Progress = Callable[[float, str], None]
Job = Callable[[Progress], Any]


def field_label(name: str) -> str:
    """How a message names core option ``name``: the label of the plugin field that sets
    it, in quotes."""
    labels = {
        "input": tr("Sheet"), "mask": tr("Map-area mask"), "anchor": tr("Anchor"),
        "gcps": tr("Known points (.points)"), "gcps-only": tr("(known points only)"),
        "spacing": tr("Grid spacing"), "grid-crs": tr("Grid CRS"), "crs": tr("Target CRS"),
        "transform": tr("Transform"), "outdir": tr("Output folder"),
        "output": tr("Output"), "threshold": tr("Outlier threshold"),
        "outliers": tr("Outlier rejection"), "resampling": tr("Resampling"),
        "tolerance": tr("Simplification tolerance"), "level": tr("Level"),
        "georef": tr("Georeferencing"), "gpkg": tr("GeoPackage"),
    }
    return f"“{labels.get(name, name)}”"


def describe_error(exc: BaseException) -> tuple[str, str | None]:
    """(one line for the user, the traceback for the log or None) of a failed job: core's
    InputError with its options named as fields, an unusable sheet, or an unexpected
    error."""
    from ..core.errors import InputError
    from .sheets import SheetError

    if isinstance(exc, InputError):
        return exc.render(field_label), None
    if isinstance(exc, SheetError):
        return str(exc), None
    if isinstance(exc, MemoryError):
        return tr("Not enough memory for this sheet: close other programs and try again."), None
    details = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return tr("Unexpected error: {0}. The details are in the log (Log Messages panel, "
              "Graticule Georeferencer tab, or the algorithm's log).").format(text), details


def progress_callback(target, show_text: Callable[[str], None] | None = None) -> Progress:
    """A core progress callback driving ``target`` (a QgsTask, or Processing's feedback:
    both have ``isCanceled`` and ``setProgress`` in percent) that raises
    :class:`core.progress.Cancelled` once ``target`` is cancelled; ``show_text`` receives
    each new progress message."""
    from ..core.progress import Cancelled

    last = [None]

    def progress(fraction: float, message: str = "") -> None:
        if target.isCanceled():
            raise Cancelled()
        target.setProgress(100.0 * min(1.0, max(0.0, fraction)))
        if show_text is not None and message and message != last[0]:
            last[0] = message
            show_text(message)

    return progress


class CoreTask(QgsTask):
    """A cancellable QgsTask around one core job.

    Attributes after the run: ``result`` (the job's return value) or ``error`` (one line
    for the message bar); ``cancelled`` when the user stopped it.
    """

    def __init__(self, description: str, job: Job,
                 on_done: Callable[[CoreTask], None] | None = None) -> None:
        super().__init__(description, QgsTask.Flag.CanCancel)
        self.job = job
        self.on_done = on_done
        self.result: Any = None
        self.error: str | None = None
        self.details: str | None = None
        self.cancelled = False

    def run(self) -> bool:
        from ..core.progress import Cancelled

        try:
            self.result = self.job(progress_callback(self))
        except Cancelled:
            self.cancelled = True
        except Exception as exc:  # shown as one line; the traceback goes to the log
            self.error, self.details = describe_error(exc)
        return not (self.cancelled or self.error or self.isCanceled())

    def finished(self, result: bool) -> None:
        self.cancelled = self.cancelled or self.isCanceled()
        if self.details:
            QgsMessageLog.logMessage(self.details, LOG_TAG, Qgis.MessageLevel.Critical)
        if self.on_done is None:
            return
        try:
            self.on_done(self)
        except Exception as exc:  # never let a traceback dialog reach the user
            message, details = describe_error(exc)
            QgsMessageLog.logMessage(details or message, LOG_TAG, Qgis.MessageLevel.Critical)
