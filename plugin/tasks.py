"""Run a core job in a QgsTask: progress bar, Cancel, one-line errors, never a frozen QGIS.

``run()`` (worker thread, no GUI calls) calls ``job(progress)``; the progress callback
reports the fraction to QGIS and raises :class:`core.progress.Cancelled` once the user has
pressed Cancel, which core jobs honour by stopping and writing nothing. ``finished()`` (main
thread) hands the task to ``on_done``, which adds layers or shows the error.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import Any

from qgis.core import Qgis, QgsMessageLog, QgsTask

from .errors import user_message
from .i18n import tr

LOG_TAG = "Graticule Georeferencer"
Job = Callable[[Callable[[float, str], None]], Any]


def describe_error(exc: BaseException) -> tuple[str, str | None]:
    """(one-line message for the user, details for the log or None) of a failed job."""
    from ..core.errors import InputError

    if isinstance(exc, InputError):
        return user_message(exc), None
    if isinstance(exc, MemoryError):
        return tr("Not enough memory for this sheet: close other programs and try again."), None
    details = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return tr("Unexpected error: {0}. The details are in the Log Messages panel "
              "(Graticule Georeferencer tab).").format(text), details


class CoreTask(QgsTask):
    """A cancellable QgsTask around one core job.

    Attributes after the run: ``result`` (the job's return value) or ``error`` (one line
    for the message bar); ``cancelled`` when the user stopped it; ``step`` the job's last
    progress message.
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
        self.step = ""

    def report(self, fraction: float, message: str = "") -> None:
        """Progress callback given to the core job (worker thread)."""
        from ..core.progress import Cancelled

        if self.isCanceled():
            raise Cancelled()
        self.step = message
        self.setProgress(100.0 * min(1.0, max(0.0, fraction)))

    def run(self) -> bool:
        from ..core.progress import Cancelled

        try:
            self.result = self.job(self.report)
        except Cancelled:
            self.cancelled = True
            return False
        except Exception as exc:  # shown as one line; the traceback goes to the log
            self.error, self.details = describe_error(exc)
            return False
        if self.isCanceled():
            self.cancelled = True
            return False
        return True

    def finished(self, result: bool) -> None:
        if self.isCanceled():
            self.cancelled = True
        if self.details:
            QgsMessageLog.logMessage(self.details, LOG_TAG, Qgis.MessageLevel.Critical)
        if self.on_done is None:
            return
        try:
            self.on_done(self)
        except Exception as exc:  # never let a traceback dialog reach the user
            message, details = describe_error(exc)
            QgsMessageLog.logMessage(details or message, LOG_TAG, Qgis.MessageLevel.Critical)
