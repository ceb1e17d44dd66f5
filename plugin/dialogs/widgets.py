"""Small widgets the dialogs share: a sheet chooser, a file field, a progress row."""

from __future__ import annotations

from pathlib import Path

from qgis.core import QgsMapLayerProxyModel, QgsProject, QgsRasterLayer
from qgis.gui import QgsFileWidget, QgsMapLayerComboBox
from qgis.PyQt.QtCore import pyqtSignal
from qgis.PyQt.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QProgressBar,
    QPushButton,
    QToolButton,
    QWidget,
)

from ..i18n import tr
from ..sheets import SheetError, layer_file


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

    def layer_for_path(self, path: Path):
        """A raster layer of the project reading ``path``, if any."""
        for layer in QgsProject.instance().mapLayers().values():
            try:
                if isinstance(layer, QgsRasterLayer) and layer_file(layer) == path:
                    return layer
            except SheetError:
                continue
        return None


class TaskProgress(QWidget):
    """A progress bar and a Cancel button bound to one running QgsTask at a time."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.bar = QProgressBar(self)
        self.bar.setRange(0, 100)
        self.bar.setValue(0)
        self.cancel_button = QPushButton(tr("Cancel"), self)
        self.cancel_button.setEnabled(False)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.bar, 1)
        layout.addWidget(self.cancel_button)
        self.task = None
        self.cancel_button.clicked.connect(self.cancel)

    def follow(self, task) -> None:
        self.task = task
        self.bar.setValue(0)
        self.cancel_button.setEnabled(True)
        task.progressChanged.connect(lambda value: self.bar.setValue(int(value)))

    def done(self, succeeded: bool = True) -> None:
        """The task ended: a full bar when it succeeded, an empty one otherwise (never a
        bar left half-way after a failure or a cancel)."""
        self.task = None
        self.cancel_button.setEnabled(False)
        self.bar.setValue(100 if succeeded else 0)

    def reset(self) -> None:
        """An empty bar (a new sheet, nothing run yet)."""
        if self.task is None:
            self.bar.setValue(0)

    def cancel(self) -> None:
        if self.task is not None:
            self.task.cancel()
