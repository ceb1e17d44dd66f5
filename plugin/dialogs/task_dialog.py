"""A non-modal dialog that runs one core job at a time in a QgsTask.

Gives its subclasses a message bar for form problems, a progress bar with Cancel, a status
line, and the routine of starting a task, re-enabling the buttons and reporting a failure
(in the QGIS message bar: a task may end after the dialog was closed).
"""

from __future__ import annotations

from qgis.core import Qgis, QgsApplication
from qgis.gui import QgsMessageBar
from qgis.PyQt.QtCore import Qt
from qgis.PyQt.QtWidgets import QDialog, QFormLayout, QGroupBox, QLabel, QSizePolicy

from ..i18n import tr
from ..tasks import CoreTask
from .widgets import SheetInput, TaskProgress, file_input


class TaskDialog(QDialog):
    """Base of the plugin's dialogs. Subclasses add ``self.bar``, ``self.progress`` and
    ``self.status`` to their layout and list their run buttons in ``self.run_buttons``."""

    def __init__(self, iface, parent=None) -> None:
        super().__init__(parent or iface.mainWindow())
        self.iface = iface
        self.task: CoreTask | None = None
        self.run_buttons: list = []
        self.bar = QgsMessageBar(self)
        self.bar.setSizePolicy(QSizePolicy.Policy.Minimum, QSizePolicy.Policy.Fixed)
        self.progress = TaskProgress(self)
        self.status = QLabel("", self)
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

    def sheet_box(self, mask_placeholder: str) -> tuple[QGroupBox, QFormLayout]:
        """The "Scanned sheet" group: ``self.sheet`` and ``self.mask`` with their labels."""
        box = QGroupBox(tr("Scanned sheet"), self)
        form = QFormLayout(box)
        self.sheet = SheetInput(box)
        self.sheet_label = QLabel(tr("Sheet"), box)
        form.addRow(self.sheet_label, self.sheet)
        self.mask = file_input(box, mask_placeholder, tr("PNG masks (*.png);;All files (*)"))
        self.mask_label = QLabel(tr("Map-area mask"), box)
        form.addRow(self.mask_label, self.mask)
        self.sheet.changed.connect(self.clear_messages)
        self.mask.fileChanged.connect(lambda _path: self.clear_messages())
        return box, form

    def clear_messages(self) -> None:
        """Forget what was said about the previous sheet: form warnings, status, progress."""
        self.bar.clearWidgets()
        self.status.setText("")
        self.progress.reset()

    def warn(self, text: str) -> None:
        """A problem with the form, in the dialog's own message bar."""
        self.bar.clearWidgets()
        self.bar.pushMessage(tr("Graticule Georeferencer"), text,
                             level=Qgis.MessageLevel.Warning, duration=10)

    def busy(self) -> bool:
        """True (and a warning) when a job is already running."""
        if self.task is not None:
            self.warn(tr("A job is already running; wait for it or cancel it."))
            return True
        return False

    def start(self, description: str, job, on_done) -> CoreTask:
        """Run ``job(progress)`` in the background; ``on_done(task)`` when it ends."""
        def done(task: CoreTask) -> None:
            self.task_over(task.result is not None and not task.cancelled)
            on_done(task)

        task = CoreTask(description, job, done)
        self.task = task
        self.bar.clearWidgets()
        self.progress.follow(task)
        for button in self.run_buttons:
            button.setEnabled(False)
        self.status.setText(description)
        QgsApplication.taskManager().addTask(task)
        return task

    def task_over(self, succeeded: bool = True) -> None:
        self.task = None
        self.progress.done(succeeded)
        for button in self.run_buttons:
            button.setEnabled(True)

    def report_failure(self, task: CoreTask, what: str) -> None:
        """Say in the QGIS message bar that ``what`` was cancelled or failed, and why."""
        bar = self.iface.messageBar()
        if task.cancelled:
            text = tr("{0} cancelled; nothing was written.").format(what)
            bar.pushMessage(tr("Graticule Georeferencer"), text, level=Qgis.MessageLevel.Info,
                            duration=5)
        else:
            text = task.error or tr("{0} failed.").format(what)
            bar.pushMessage(tr("Graticule Georeferencer"), text,
                            level=Qgis.MessageLevel.Critical, duration=0)
        self.status.setText(text)

    def cleanup(self) -> None:
        """Cancel a running job without calling back (the plugin is being unloaded)."""
        if self.task is not None:
            try:
                self.task.on_done = None
                self.task.cancel()
            except RuntimeError:  # the task manager already deleted it
                pass
            self.task = None
