"""A non-modal dialog that runs one core job at a time in a QgsTask.

Gives its subclasses a message bar for form problems, the "Scanned sheet" group (a raster
layer or an image file, and a map-area mask), a progress bar with Cancel, a status line, a
button row, and the routine of starting a task, re-enabling the buttons and reporting the
outcome or the failure (in the QGIS message bar: a task may end after the dialog was
closed).
"""

from __future__ import annotations

from pathlib import Path

from qgis.core import Qgis, QgsApplication, QgsMapLayerProxyModel, QgsProject, QgsRasterLayer
from qgis.gui import QgsFileWidget, QgsMapLayerComboBox, QgsMessageBar
from qgis.PyQt.QtCore import pyqtSignal
from qgis.PyQt.QtWidgets import (
    QDialog,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ..i18n import tr
from ..sheets import SheetError, layer_file
from ..tasks import CoreTask
from ..widgets import MessageLine, push_message


def file_input(parent, placeholder: str, file_filter: str = "",
               mode: QgsFileWidget.StorageMode = QgsFileWidget.StorageMode.GetFile
               ) -> QgsFileWidget:
    """A file (or folder) field whose empty state shows ``placeholder`` (what happens then)."""
    widget = QgsFileWidget(parent)
    widget.setStorageMode(mode)
    if file_filter:
        widget.setFilter(file_filter)
    edit = widget.lineEdit()
    edit.setPlaceholderText(placeholder)
    edit.setToolTip(placeholder)
    # wide enough to show the whole placeholder (it says what an empty field means)
    edit.setMinimumWidth(edit.fontMetrics().horizontalAdvance(placeholder) + 24)
    return widget


def file_path(widget: QgsFileWidget) -> Path | None:
    """The path in a file field, None when it is empty."""
    text = widget.filePath().strip()
    return Path(text) if text else None


class SheetInput(QWidget):
    """A raster layer of the project or an image file: a layer combo box with a "…" button.

    A file chosen with the button is added to the combo box as an extra item.
    """

    changed = pyqtSignal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.combo = QgsMapLayerComboBox(self)
        self.combo.setFilters(QgsMapLayerProxyModel.Filter.RasterLayer)
        self.combo.setAllowEmptyLayer(True)
        self.combo.setShowCrs(False)
        self.browse = QToolButton(self)
        self.browse.setText("…")
        self.browse.setToolTip(tr("Choose an image file"))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.combo, 1)
        layout.addWidget(self.browse)
        self.browse.clicked.connect(self._choose_file)
        self._selected = self._selection()
        self.combo.currentIndexChanged.connect(self._index_changed)

    def _selection(self) -> tuple:
        layer = self.combo.currentLayer()
        return (layer.id() if layer is not None else None, self.combo.currentText())

    def _index_changed(self, _index: int) -> None:
        # layers added to or removed from the project move the index, not the selection
        selected = self._selection()
        if selected != self._selected:
            self._selected = selected
            self.changed.emit()

    def _choose_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, tr("Scanned sheet"), "",
            tr("Images (*.jpg *.jpeg *.png *.tif *.tiff);;All files (*)"))
        if path:
            self.set_file(path)

    def set_file(self, path: str | Path) -> None:
        """Select an image file (not necessarily loaded in the project)."""
        text = str(path)
        items = list(self.combo.additionalItems())
        if text not in items:
            items.append(text)
            self.combo.setAdditionalItems(items)
        self.combo.setCurrentIndex(self.combo.findText(text))

    def set_layer(self, layer) -> None:
        self.combo.setLayer(layer)

    def layer(self):
        """The selected raster layer, or None when a file (or nothing) is selected."""
        return self.combo.currentLayer()

    def path(self) -> Path:
        """The sheet's image file; SheetError (message for the user) if there is none."""
        layer = self.combo.currentLayer()
        if layer is not None:
            return layer_file(layer)
        text = self.combo.currentText().strip()
        if not text:
            raise SheetError(tr("Choose the scanned sheet: a raster layer or an image file."))
        path = Path(text)
        if not path.is_file():
            raise SheetError(tr("The file {0} does not exist; choose the sheet again.")
                             .format(text))
        return path

    def as_layer(self) -> QgsRasterLayer:
        """The selected raster layer; for a file, the project's layer reading it, else a
        new layer of it added to the project. SheetError when QGIS cannot open it."""
        layer = self.layer()
        if layer is not None:
            return layer
        path = self.path()
        for layer in QgsProject.instance().mapLayers().values():
            if isinstance(layer, QgsRasterLayer) and layer.source() == str(path):
                return layer
        layer = QgsRasterLayer(str(path), path.stem)
        if not layer.isValid():
            raise SheetError(tr("QGIS cannot open {0}.").format(path))
        return QgsProject.instance().addMapLayer(layer)


def add_field(form: QFormLayout, text: str, widget) -> QLabel:
    """Add ``widget`` to ``form`` under the label ``text``; returns the label."""
    form.addRow(text, widget)
    return form.labelForField(widget)


class TaskDialog(QDialog):
    """Base of the plugin's dialogs: subclasses add their groups to ``self.layout_`` after
    the message bar, then call :meth:`add_buttons`."""

    def __init__(self, iface, parent=None) -> None:
        super().__init__(parent or iface.mainWindow())
        self.iface = iface
        self.task: CoreTask | None = None
        self.run_buttons: list[QPushButton] = []
        self.layout_ = QVBoxLayout(self)
        self.bar = QgsMessageBar(self)
        self.bar.setSizePolicy(QSizePolicy.Policy.Minimum, QSizePolicy.Policy.Fixed)
        self.layout_.addWidget(self.bar)
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 100)
        self.progress.setValue(0)
        self.cancel_button = QPushButton(tr("Cancel"), self)
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(lambda: self.task is not None and self.task.cancel())
        self.status = MessageLine(self)    # one line whatever the message's length

    def sheet_box(self, mask_placeholder: str) -> tuple[QGroupBox, QFormLayout]:
        """The "Scanned sheet" group: ``self.sheet`` and ``self.mask`` with their labels."""
        box = QGroupBox(tr("Scanned sheet"), self)
        form = QFormLayout(box)
        self.sheet = SheetInput(box)
        self.sheet_label = add_field(form, tr("Sheet"), self.sheet)
        self.mask = file_input(box, mask_placeholder, tr("PNG masks (*.png);;All files (*)"))
        self.mask_label = add_field(form, tr("Map-area mask"), self.mask)
        self.sheet.changed.connect(self.clear_messages)
        self.mask.fileChanged.connect(lambda _path: self.clear_messages())
        self.layout_.addWidget(box)
        return box, form

    def add_buttons(self, run_text: str, run, *extra: QPushButton) -> QPushButton:
        """The progress row, the status line, then ``extra`` buttons on the left and the
        default button ``run_text`` (calling ``run``) and Close on the right."""
        self.layout_.addStretch(1)       # a taller window leaves room here, not in the groups
        row = QHBoxLayout()
        row.addWidget(self.progress, 1)
        row.addWidget(self.cancel_button)
        self.layout_.addLayout(row)
        self.layout_.addWidget(self.status)
        self.run_button = QPushButton(run_text, self)
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(run)
        self.close_button = QPushButton(tr("Close"), self)
        self.close_button.clicked.connect(self.close)
        row = QHBoxLayout()
        for button in extra:
            row.addWidget(button)
        row.addStretch(1)
        row.addWidget(self.run_button)
        row.addWidget(self.close_button)
        self.layout_.addLayout(row)
        self.run_buttons = [*extra, self.run_button]
        return self.run_button

    def clear_messages(self) -> None:
        """Forget what was said about the previous sheet: form warnings, status, progress."""
        self.bar.clearWidgets()
        self.status.setText("")
        if self.task is None:
            self.progress.setValue(0)

    def warn(self, text: str) -> None:
        """A problem with the form, in the dialog's own message bar (one line, the whole
        text behind its button)."""
        self.bar.clearWidgets()
        push_message(self.bar, text, Qgis.MessageLevel.Warning, 10)

    def say(self, text: str, level: Qgis.MessageLevel, duration: int = 0,
            details: str = "") -> None:
        """``text`` in the status line and in the QGIS message bar, one line each, the
        whole text and ``details`` behind a button."""
        self.status.setText(text, details)
        push_message(self.iface.messageBar(), text, level, duration, details)

    def launch(self, request, description: str, what: str, job, on_done) -> CoreTask | None:
        """Run ``job(request(), progress)`` in the background and hand its result to
        ``on_done``; a form problem (``request`` raises ValueError) or a running job is a
        warning instead. ``description``: the task's text ({0}: the sheet's name);
        ``what``: the job's name, for a failure or a cancel."""
        if self.task is not None:
            self.warn(tr("A job is already running; wait for it or cancel it."))
            return None
        try:
            req = request()
            description = description.format(self.sheet.path().name)
        except ValueError as exc:
            self.warn(str(exc))
            return None

        def done(task: CoreTask) -> None:
            succeeded = task.result is not None and not task.cancelled
            self.task = None
            self.progress.setValue(100 if succeeded else 0)  # never left half-way
            self.cancel_button.setEnabled(False)
            for button in self.run_buttons:
                button.setEnabled(True)
            if task.result is not None:
                on_done(task.result)
            elif task.cancelled:
                self.say(tr("{0} cancelled; nothing was written.").format(what),
                         Qgis.MessageLevel.Info, 5)
            else:
                self.say(task.error or tr("{0} failed.").format(what),
                         Qgis.MessageLevel.Critical, details=task.details or "")

        task = self.task = CoreTask(description, lambda progress: job(req, progress), done)
        self.bar.clearWidgets()
        self.progress.setValue(0)
        self.cancel_button.setEnabled(True)
        task.progressChanged.connect(lambda value: self.progress.setValue(int(value)))
        for button in self.run_buttons:
            button.setEnabled(False)
        self.status.setText(description)
        QgsApplication.taskManager().addTask(task)
        return task

    def show_outcome(self, load, describe) -> None:
        """Add a job's outcome to the project with ``load()``, then say ``describe(what
        load returned)``; a layer QGIS cannot open (OSError) is said instead."""
        try:
            text, level = describe(load()), Qgis.MessageLevel.Success
        except OSError as exc:
            text, level = str(exc), Qgis.MessageLevel.Critical
        self.say(text, level)

    def cleanup(self) -> None:
        """Cancel a running job without calling back (the plugin is being unloaded)."""
        if self.task is not None:
            try:
                self.task.on_done = None
                self.task.cancel()
            except RuntimeError:  # the task manager already deleted it
                pass
            self.task = None
